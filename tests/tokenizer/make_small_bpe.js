#!/usr/bin/env node
'use strict';
// Two small BPE tokenizer.json files for fuzz_tokenizer (tests/fuzz/), cut
// from the real ones make deps installs (build/npm/node_modules/@lenml/):
//
//   node tests/tokenizer/make_small_bpe.js [--check]
//
//   tests/data/bpe-bytelevel-small.json  llama3's pipeline (Split regex +
//       ByteLevel, ignore_merges, ByteLevel decoder), its 256 byte
//       characters and the first 3 000 merges whose parts are kept, 4 of its
//       special tokens;
//   tests/data/bpe-fallback-small.json   llama2's pipeline (Prepend and
//       Replace normalizers, byte_fallback, <s> template, the Replace,
//       ByteFallback, Fuse, Strip decoders), <unk> <s> </s>, the 256 <0xXX>
//       tokens, its one-character tokens and the first 3 000 merges whose
//       parts are kept.
// Ids are renumbered 0..n-1 in the original order (the added tokens after
// the vocab, as in the real files). Then, with --check or always, the
// library itself is asked what fuzz_tokenizer asserts of parity: on every
// string of the LLM corpus that holds no added token's text (and, for the
// fallback file, no U+2581), decode(encode(s), skip_special_tokens true) == s.

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { ROOT, loadTokenizers } = require('./common.js');

const NPM = path.join(ROOT, 'build', 'npm', 'node_modules', '@lenml');
const read = (name) => JSON.parse(fs.readFileSync(path.join(NPM, `tokenizer-${name}`, 'models', 'tokenizer.json'), 'utf8'));
const N_MERGES = 3000;

// The library's byte -> character map (GPT-2's bytes_to_unicode).
function byteChars() {
  const bs = [];
  for (let b = 0x21; b <= 0x7E; b++) bs.push(b);
  for (let b = 0xA1; b <= 0xAC; b++) bs.push(b);
  for (let b = 0xAE; b <= 0xFF; b++) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n++); }
  return cs.map((c) => String.fromCodePoint(c));
}

// Keep `seed` tokens and the first N_MERGES merges (in rank order) whose
// parts and result are kept; renumber; put the kept added tokens after.
function cut(j, seed, addedKeep) {
  const vocab = j.model.vocab, kept = new Set(seed.filter((t) => t in vocab)), merges = [];
  for (const m of j.model.merges) {
    if (merges.length >= N_MERGES) break;
    const [a, b] = Array.isArray(m) ? m : m.split(' ');
    if (kept.has(a) && kept.has(b) && (a + b) in vocab) { merges.push(`${a} ${b}`); kept.add(a + b); }
  }
  const ordered = Array.from(kept).sort((x, y) => vocab[x] - vocab[y]);
  const newVocab = {};
  ordered.forEach((t, i) => { newVocab[t] = i; });
  let next = ordered.length;
  const added = [];
  for (const t of j.added_tokens.filter((t) => addedKeep.includes(t.content))) {
    const id = t.content in newVocab ? newVocab[t.content] : next++;
    added.push({ ...t, id });
  }
  return { ...j, added_tokens: added, model: { ...j.model, vocab: newVocab, merges } };
}

function bytelevel() {
  const j = cut(read('llama3'), byteChars(), ['<|begin_of_text|>', '<|end_of_text|>', '<|eot_id|>', '<|start_header_id|>']);
  return j;
}

function fallback() {
  const src = read('llama2');
  const seed = ['<unk>', '<s>', '</s>'];
  for (let b = 0; b < 256; b++) seed.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
  for (const t of Object.keys(src.model.vocab)) if (Array.from(t).length === 1) seed.push(t);
  const j = cut(src, seed, ['<unk>', '<s>', '</s>']);
  // the template names <s> by its id: keep it right
  for (const st of Object.values(j.post_processor.special_tokens || {})) st.ids = st.tokens.map((t) => j.model.vocab[t]);
  return j;
}

const out = { 'bpe-bytelevel-small.json': bytelevel(), 'bpe-fallback-small.json': fallback() };
for (const [f, j] of Object.entries(out)) {
  fs.writeFileSync(path.join(ROOT, 'tests', 'data', f), JSON.stringify(j, null, 1) + '\n');
  process.stderr.write(`make_small_bpe: tests/data/${f}: ${Object.keys(j.model.vocab).length} tokens, ${j.model.merges.length} merges, ${j.added_tokens.length} added\n`);
}

// The round trip fuzz_tokenizer asserts, asked of the library.
async function check() {
  const { lib: T } = loadTokenizers();
  const corpus = execFileSync(process.execPath, [path.join(__dirname, 'gen_llm_corpus.js')], { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] })
    .toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  let failed = 0;
  for (const [f, j] of Object.entries(out)) {
    const tok = T.Tokenizer.fromFile(path.join(ROOT, 'tests', 'data', f));
    const excluded = j.added_tokens.map((t) => t.content).concat(f.includes('fallback') ? ['\u2581'] : []);
    const texts = corpus.filter((s) => !excluded.some((x) => s.includes(x)));
    let bad = 0;
    for (let i = 0; i < texts.length; i += 2048) {
      const part = texts.slice(i, i + 2048);
      const encs = await tok.encodeBatch(part, { addSpecialTokens: true });
      const back = await tok.decodeBatch(encs.map((e) => e.getIds()), true);
      part.forEach((s, k) => {
        if (back[k] !== s && bad++ < 5) process.stderr.write(`  ${f}: ${JSON.stringify(s).slice(0, 200)} -> ${JSON.stringify(back[k]).slice(0, 200)}\n`);
      });
    }
    process.stderr.write(`make_small_bpe: ${f}: decode(encode(s), true) == s for ${texts.length - bad} of ${texts.length} corpus strings\n`);
    failed += bad;
  }
  process.exit(failed ? 1 : 0);
}
check().catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });
