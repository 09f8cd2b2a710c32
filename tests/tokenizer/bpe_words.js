'use strict';
// The BPE model of a tokenizer.json alone, through the real library, for
// tests/test_hf_bpe.c and tests/bench/bpe_bench.c:
//
//   node tests/tokenizer/bpe_words.js TOKENIZER_JSON OUTDIR [--gen N] [--seed S]
//        [--words FILE.jsonl | --text FILE] [--bench ROUNDS] [--tokenizers DIR]
//
// writes into OUTDIR
//   model.txt   type, byte_fallback, ignore_merges, fuse_unk, unk_id (-1 no
//               unk_token, -2 one absent from the vocab), prefix, suffix,
//               max_chars (strings as hex), one "name value" a line;
//   vocab.txt   "id hex" for every token of model.vocab;
//   merges.txt  "left right merged" ids, one merge a line in rank order
//               (the merged id as the library computes it: left + right with
//               continuing_subword_prefix's length cut from right's front);
//   words.txt   "hex<TAB>ids" (or "hex<TAB>ERROR message"): each word and
//               what the library's model gives for it.
// The words are those of --words (a JSON string a line) or N generated ones
// (--gen, default 3000), or the pieces of a text file (--text: real word
// frequencies, for the bench): characters of every script in the model's alphabet
// (the byte-level mapping for a byte-level vocab, "▁" for a SentencePiece-style
// one), vocab tokens and their concatenations, runs and long repetitions.
//
// The library runs the model alone: a copy of the file with normalizer,
// pre_tokenizer, post_processor and decoder null and no added tokens, so
// encode(word) is BPE.tokenize(word). --bench ROUNDS times encodeBatch over
// all words ROUNDS times and prints "words/s" (set RAYON_NUM_THREADS=1 and
// TOKENIZERS_PARALLELISM=false for one thread).
const fs = require('fs');
const path = require('path');
const { loadTokenizers, prng } = require('./common');

function usage(msg) {
  if (msg) process.stderr.write(`bpe_words: ${msg}\n`);
  process.stderr.write('usage: node tests/tokenizer/bpe_words.js TOKENIZER_JSON OUTDIR [--gen N] [--seed S] [--words FILE] [--bench ROUNDS] [--tokenizers DIR]\n');
  process.exit(2);
}

const args = { gen: 3000, seed: 26, words: null, text: null, bench: 0, lib: null, pos: [] };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const val = () => { if (++i >= process.argv.length) usage(`${a} needs a value`); return process.argv[i]; };
  if (a === '--gen') args.gen = +val();
  else if (a === '--seed') args.seed = +val();
  else if (a === '--words') args.words = val();
  else if (a === '--text') args.text = val();
  else if (a === '--bench') args.bench = +val();
  else if (a === '--tokenizers') args.lib = val();
  else args.pos.push(a);
}
if (args.pos.length !== 2) usage();
const [tokFile, outDir] = args.pos;
const hex = (s) => Buffer.from(s, 'utf8').toString('hex');

const json = JSON.parse(fs.readFileSync(tokFile, 'utf8'));
const model = json.model;
if (!model || (model.type !== 'BPE' && model.type !== 'WordPiece')) usage(`${tokFile}: not a BPE or WordPiece model`);
const wordPiece = model.type === 'WordPiece';
const vocab = model.vocab;
const prefix = wordPiece ? (model.continuing_subword_prefix ?? '##') : (model.continuing_subword_prefix || '');
const suffix = model.end_of_word_suffix || '';

// The byte-level alphabet (GPT-2's bytes_to_unicode).
function byteMap() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n); n++; }
  const m = new Array(256);
  bs.forEach((b, i) => { m[b] = String.fromCodePoint(cs[i]); });
  return m;
}
const BYTES = byteMap();
const byteLevel = Object.prototype.hasOwnProperty.call(vocab, 'Ġ') && !model.byte_fallback;
const toAlphabet = (s) => wordPiece ? s : byteLevel
  ? Array.from(Buffer.from(s, 'utf8'), (b) => BYTES[b]).join('')
  : s.replace(/ /g, '▁');

function writeTables() {
  fs.mkdirSync(outDir, { recursive: true });
  // -1: no unk_token; -2: one the vocab lacks (an error when needed)
  const unk = model.unk_token == null ? -1
    : Object.prototype.hasOwnProperty.call(vocab, model.unk_token) ? vocab[model.unk_token] : -2;
  fs.writeFileSync(path.join(outDir, 'model.txt'),
    `byte_fallback ${model.byte_fallback ? 1 : 0}\nignore_merges ${model.ignore_merges ? 1 : 0}\n` +
    `fuse_unk ${model.fuse_unk ? 1 : 0}\nunk_id ${unk}\nprefix ${hex(prefix) || '-'}\nsuffix ${hex(suffix) || '-'}\n` +
    `type ${wordPiece ? 'wordpiece' : 'bpe'}\nmax_chars ${model.max_input_chars_per_word ?? 100}\n`);
  const v = [];
  for (const [tok, id] of Object.entries(vocab)) v.push(`${id} ${hex(tok) || '-'}\n`);
  fs.writeFileSync(path.join(outDir, 'vocab.txt'), v.join(''));
  const m = [];
  const plen = Buffer.byteLength(prefix, 'utf8');
  for (const e of wordPiece ? [] : model.merges) {
    const [a, b] = Array.isArray(e) ? e : [e.slice(0, e.indexOf(' ')), e.slice(e.indexOf(' ') + 1)];
    const merged = Buffer.concat([Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8').subarray(plen)]).toString('utf8');
    m.push(`${vocab[a]} ${vocab[b]} ${vocab[merged]}\n`);
  }
  fs.writeFileSync(path.join(outDir, 'merges.txt'), m.join(''));
}

// ---- generated words --------------------------------------------------------
const SCRIPTS = [
  [0x61, 0x7a], [0x41, 0x5a], [0x30, 0x39], [0x21, 0x2f], [0xc0, 0x24f], [0x370, 0x3ff],
  [0x400, 0x4ff], [0x530, 0x58f], [0x590, 0x5ff], [0x600, 0x6ff], [0x900, 0x97f], [0x980, 0x9ff],
  [0xe00, 0xe7f], [0x10a0, 0x10ff], [0x1100, 0x11ff], [0x3040, 0x30ff], [0x4e00, 0x9fff],
  [0xac00, 0xd7a3], [0x1f300, 0x1f6ff], [0x1f900, 0x1f9ff], [0x2000, 0x206f], [0xe000, 0xe0ff],
  [0x10000, 0x1007f], [0x20000, 0x2a6df], [0xfff0, 0xfffd], [0x0, 0x1f],
];
const SAMPLES = [
  'hello', 'world', 'tokenization', "don't", "DON'T", "we'll", "I'M", 'naïve', 'café', 'Straße',
  '1234567890', '3.14159', '2026-12-04', 'https://example.com/a?b=c', 'foo_bar_baz', 'camelCaseWord',
  '日本語のテキスト', '中文分词测试', '한국어', 'Привет', 'مرحبا', 'שלום', 'नमस्ते', 'สวัสดี', 'Ελληνικά',
  '👍🏽', '👨‍👩‍👧‍👦', '🇫🇷', 'a\u0301', '\u200d', '\ufeff', '\t\t', '\n\n\n', '   ', '\r\n',
  '<s>', '</s>', '<unk>', '<|endoftext|>', '<0x41>', '▁', 'Ġ', '##ing', 'ing</w>',
];

function genWords(n, seed) {
  const r = prng(seed);
  const toks = Object.keys(vocab);
  const cp = () => {
    const [lo, hi] = r.pick(SCRIPTS);
    let c = r.range(lo, hi);
    if (c >= 0xd800 && c <= 0xdfff) c = 0x41;
    return String.fromCodePoint(c);
  };
  const raw = () => {
    const k = r.int(7);
    if (k === 0) return r.pick(SAMPLES);
    if (k === 1) { let s = ''; for (let i = r.range(1, 12); i > 0; i--) s += cp(); return s; }
    if (k === 2) return (r.chance(0.5) ? ' ' : '') + r.pick(SAMPLES) + r.pick(SAMPLES);
    if (k === 3) return String(r.int(1e9)).repeat(r.range(1, 4));
    if (k === 4) return (r.chance(0.5) ? ' ' : '') + r.pick(['a', 'ab', 'x', ' ', '0', '日', '👍', 'é']).repeat(r.range(2, 300));
    if (k === 5) { let s = ''; for (let i = r.range(1, 6); i > 0; i--) s += r.pick(SAMPLES).slice(0, r.range(1, 5)); return s; }
    return ' ' + r.pick(SAMPLES);
  };
  const words = new Set();
  while (words.size < n) {
    const k = r.int(4);
    if (k === 0) words.add(r.pick(toks));
    else if (k === 1) { let s = ''; for (let i = r.range(2, 5); i > 0; i--) s += r.pick(toks); words.add(s); }
    else words.add(toAlphabet(raw()));
  }
  // very long repetitions: O(n log n) on both sides
  for (const [u, k] of [['a', 1000], ['ab', 3000], [' ', 2000], ['日', 1500], ['0', 4000]]) words.add(toAlphabet(u.repeat(k)));
  return [...words].filter((w) => w.length > 0);
}

function readWords(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

// The pieces of a text file in order, repeats kept (real word frequencies):
// GPT-2's pre-tokenizer regex for a byte-level vocab, else spaces as "▁"
// before each word.
function textWords(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (byteLevel) {
    const re = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
    return (text.match(re) || []).map(toAlphabet);
  }
  return text.split(/\s+/).filter((w) => w !== '').map((w) => '▁' + w);
}

// ---- the library -------------------------------------------------------------
function modelOnly(T) {
  const j = Object.assign({}, json, {
    normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null, added_tokens: [],
    truncation: null, padding: null,
  });
  return T.Tokenizer.fromString(JSON.stringify(j));
}

async function encodeAll(tok, words) {
  const out = new Array(words.length);
  const CHUNK = 2048;
  for (let s = 0; s < words.length; s += CHUNK) {
    const part = words.slice(s, s + CHUNK);
    let encs = null;
    try { encs = await tok.encodeBatch(part, { addSpecialTokens: false }); } catch (e) { encs = null; }
    for (let k = 0; k < part.length; k++) {
      try {
        const enc = encs ? encs[k] : await tok.encode(part[k], null, { addSpecialTokens: false });
        out[s + k] = enc.getIds().join(' ');
      } catch (e) { out[s + k] = `ERROR ${String(e && e.message || e).replace(/\s+/g, ' ')}`; }
    }
  }
  return out;
}

async function main() {
  const { lib: T } = loadTokenizers(args.lib);
  writeTables();
  const words = args.words ? readWords(args.words) : args.text ? textWords(args.text) : genWords(args.gen, args.seed);
  const tok = modelOnly(T);
  const ids = await encodeAll(tok, words);
  fs.writeFileSync(path.join(outDir, 'words.txt'), words.map((w, i) => `${hex(w) || '-'}\t${ids[i]}\n`).join(''));
  if (args.bench > 0) {
    const t0 = process.hrtime.bigint();
    let n = 0;
    for (let r = 0; r < args.bench; r++) {
      for (let s = 0; s < words.length; s += 4096) { await tok.encodeBatch(words.slice(s, s + 4096), { addSpecialTokens: false }); }
      n += words.length;
    }
    const sec = Number(process.hrtime.bigint() - t0) / 1e9;
    process.stdout.write(`library ${path.basename(path.dirname(path.dirname(tokFile)))}: ${n} words in ${sec.toFixed(3)} s: ${(n / sec).toFixed(0)} words/s\n`);
  }
}
main().catch((e) => { process.stderr.write(`bpe_words: ${e && e.stack || e}\n`); process.exit(1); });
