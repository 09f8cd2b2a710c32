#!/usr/bin/env node
'use strict';
// The library's answers for the agreement test (tests/test_hf_agree.c), for
// one tokenizer.json and one corpus, in one run:
//
//   node tests/tokenizer/hf_agree_ref.js TOKENIZER_JSON CORPUS OUTDIR [--tokenizers DIR]
//
// OUTDIR/enc.txt  one line per corpus line: the ids of encode(text) with the
//                 specials the post processor adds (Tokenizer.fromFile,
//                 encodeBatch, addSpecialTokens), space-separated, or
//                 "ERROR <message>";
// OUTDIR/dec.jsonl one line per id sequence: [ids, decode(ids, false),
//                 decode(ids, true)] (decodeBatch). The sequences (>= 5 000):
//                 whole encodings, slices of them cut at random points (so
//                 byte-level pieces split UTF-8 characters), and random ids
//                 across the vocab: any id, the added tokens' ids, the first
//                 300 ids (bytes, <0xXX>), and ids past the vocab (dropped).
// OUTDIR/key      the sha256 of everything the answers depend on (the file,
//                 the corpus, this script, common.js, the library's version):
//                 when it matches, nothing is redone (a repeated make check
//                 costs a hash of the inputs).
// Deterministic: the PRNG is seeded from the corpus length.

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { loadTokenizers, prng } = require('./common.js');

function usage(msg) {
  if (msg) process.stderr.write(msg + '\n');
  process.stderr.write('usage: node tests/tokenizer/hf_agree_ref.js TOKENIZER_JSON CORPUS OUTDIR [--tokenizers DIR]\n');
  process.exit(2);
}
const pos = [];
let libDir = null;
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--tokenizers' && i + 1 < process.argv.length) libDir = process.argv[++i];
  else pos.push(process.argv[i]);
}
if (pos.length !== 3) usage();
const [tokFile, corpusFile, outDir] = pos;

const { lib: T, version } = loadTokenizers(libDir);
const h = crypto.createHash('sha256');
for (const f of [tokFile, corpusFile, __filename, path.join(__dirname, 'common.js')]) h.update(fs.readFileSync(f));
h.update(version);
const key = h.digest('hex');
fs.mkdirSync(outDir, { recursive: true });
const keyFile = path.join(outDir, 'key');
if (fs.existsSync(keyFile) && fs.readFileSync(keyFile, 'utf8').trim() === key &&
    fs.existsSync(path.join(outDir, 'enc.txt')) && fs.existsSync(path.join(outDir, 'dec.jsonl'))) {
  process.stderr.write(`hf_agree_ref: ${outDir} is up to date\n`);
  process.exit(0);
}
try { fs.unlinkSync(keyFile); } catch (e) { /* none yet */ }

let tokenizer;
try { tokenizer = T.Tokenizer.fromFile(tokFile); } catch (e) { usage(`cannot load ${tokFile}: ${e.message}`); }
const oneLine = (s) => String(s).replace(/[\r\n]+/g, ' ');
const errMsg = (e) => oneLine(e && e.message !== undefined ? e.message : e);
const OPTS = { addSpecialTokens: true };
const CHUNK = 2048;

async function encodeAll(texts) {
  const out = new Array(texts.length);
  for (let start = 0; start < texts.length; start += CHUNK) {
    const part = texts.slice(start, start + CHUNK);
    let encs = null;
    try { encs = await tokenizer.encodeBatch(part, OPTS); } catch (e) { encs = null; }
    for (let k = 0; k < part.length; k++) {
      let enc = encs ? encs[k] : null;
      if (!enc) {
        try { enc = await tokenizer.encode(part[k], null, OPTS); } catch (e) { out[start + k] = `ERROR ${errMsg(e)}`; continue; }
      }
      out[start + k] = enc.getIds();
    }
  }
  return out;
}

function sequences(encs, vocabSize, addedIds, R) {
  const seqs = [];
  const good = encs.filter((e) => Array.isArray(e) && e.length > 0);
  // whole encodings: every 8th, at most 2 500
  for (let i = 0; i < good.length && seqs.length < 2500; i += 8) seqs.push(good[i]);
  // slices at random points
  for (let i = 0; i < 2500 && good.length; i++) {
    const e = R.pick(good);
    const a = R.int(e.length), b = a + 1 + R.int(Math.min(e.length - a, 12));
    seqs.push(e.slice(a, b));
  }
  // random ids
  const anyId = () => {
    const r = R.next();
    if (r < 0.45) return R.int(vocabSize);
    if (r < 0.65 && addedIds.length) return R.pick(addedIds);
    if (r < 0.9) return R.int(Math.min(300, vocabSize));
    if (r < 0.97) return vocabSize + R.int(1000);
    return R.pick([vocabSize, 2147483647, 4294967295]);
  };
  for (let i = 0; i < 2000; i++) seqs.push(Array.from({ length: R.range(1, 24) }, anyId));
  seqs.push([]);
  return seqs;
}

async function decodeAll(seqs, skip) {
  const out = [];
  for (let start = 0; start < seqs.length; start += CHUNK) {
    const part = seqs.slice(start, start + CHUNK);
    let texts = null;
    try { texts = await tokenizer.decodeBatch(part, skip); } catch (e) { texts = null; }
    for (let k = 0; k < part.length; k++) {
      if (texts) { out.push(texts[k]); continue; }
      try { out.push(await tokenizer.decode(part[k], skip)); } catch (e) { out.push({ error: errMsg(e) }); }
    }
  }
  return out;
}

async function main() {
  const texts = fs.readFileSync(corpusFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  const t0 = Date.now();
  const encs = await encodeAll(texts);
  const t1 = Date.now();
  const vocabSize = tokenizer.getVocabSize(true);
  const j = JSON.parse(fs.readFileSync(tokFile, 'utf8'));
  const addedIds = (j.added_tokens || []).map((t) => t.id);
  const seqs = sequences(encs, vocabSize, addedIds, prng(texts.length));
  const [plain, skipped] = [await decodeAll(seqs, false), await decodeAll(seqs, true)];
  const t2 = Date.now();
  fs.writeFileSync(path.join(outDir, 'enc.txt'), encs.map((e) => (Array.isArray(e) ? e.join(' ') : e) + '\n').join(''));
  fs.writeFileSync(path.join(outDir, 'dec.jsonl'), seqs.map((s, i) => JSON.stringify([s, plain[i], skipped[i]]) + '\n').join(''));
  fs.writeFileSync(keyFile, key + '\n');
  process.stderr.write(`hf_agree_ref: ${path.basename(path.dirname(path.dirname(tokFile)))}: ${texts.length} strings encoded in ` +
    `${((t1 - t0) / 1000).toFixed(1)} s, ${seqs.length} sequences decoded twice in ${((t2 - t1) / 1000).toFixed(1)} s\n`);
}
main().catch((e) => { process.stderr.write(`hf_agree_ref: ${e && e.stack || e}\n`); process.exit(1); });
