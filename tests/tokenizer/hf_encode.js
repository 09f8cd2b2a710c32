#!/usr/bin/env node
'use strict';
// Reference token ids from the Hugging Face `tokenizers` library:
//
//   node tests/tokenizer/hf_encode.js TOKENIZER_JSON [--tokenizers DIR] < corpus.jsonl > ids.txt
//
// Each input line is a JSON string (the text). Each output line is the ids of
// Tokenizer.fromFile(TOKENIZER_JSON).encode(text) with special tokens added
// (the post-processor applied), joined by spaces, or "ERROR <message>" when the
// library throws (or the line is not a JSON string). One output line per input
// line, in order. The library directory is found as in loadTokenizers (common.js)
// ($PARITY_TOKENIZERS, else build/npm/node_modules/tokenizers).
//
// encode() is asynchronous in the Node binding, so lines are encoded in
// chunks with encodeBatch; a chunk that fails is redone line by line so that
// only the failing lines report an error.

const fs = require('fs');

const { loadTokenizers } = require('./common.js');


function usage(msg) {
  if (msg) process.stderr.write(msg + '\n');
  process.stderr.write('usage: node tests/tokenizer/hf_encode.js TOKENIZER_JSON [--tokenizers DIR] < corpus.jsonl > ids.txt\n');
  process.exit(2);
}
let tokFile = null, libDir = null;
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--tokenizers') { if (++i >= process.argv.length) usage('--tokenizers needs a directory'); libDir = process.argv[i]; }
  else if (a === '-h' || a === '--help') usage();
  else if (tokFile === null) tokFile = a;
  else usage(`unexpected argument: ${a}`);
}
if (tokFile === null) usage();

const { lib: T } = loadTokenizers(libDir);
let tokenizer;
try { tokenizer = T.Tokenizer.fromFile(tokFile); } catch (e) { usage(`cannot load ${tokFile}: ${e.message}`); }

const oneLine = (s) => String(s).replace(/[\r\n]+/g, ' ');
const errMsg = (e) => oneLine(e && e.message !== undefined ? e.message : e);
const OPTS = { addSpecialTokens: true };
const CHUNK = 1024;

async function main() {
  const input = fs.readFileSync(0, 'utf8');
  const lines = input.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const out = [];
  for (let start = 0; start < lines.length; start += CHUNK) {
    const part = lines.slice(start, start + CHUNK);
    const res = new Array(part.length);
    const texts = [], where = [];
    part.forEach((line, i) => {
      let v;
      try { v = JSON.parse(line); } catch (e) { res[i] = `ERROR input line is not JSON: ${errMsg(e)}`; return; }
      if (typeof v !== 'string') { res[i] = 'ERROR input line is not a JSON string'; return; }
      texts.push(v); where.push(i);
    });
    let encs = null;
    try { encs = await tokenizer.encodeBatch(texts, OPTS); } catch (e) { encs = null; }
    for (let k = 0; k < texts.length; k++) {
      let enc = encs ? encs[k] : null;
      if (!enc) {
        try { enc = await tokenizer.encode(texts[k], null, OPTS); } catch (e) { res[where[k]] = `ERROR ${errMsg(e)}`; continue; }
      }
      res[where[k]] = enc.getIds().join(' ');
    }
    for (const r of res) out.push(r + '\n');
    if (out.length >= 8192) { fs.writeSync(1, out.join('')); out.length = 0; }
  }
  fs.writeSync(1, out.join(''));
}
main().catch((e) => { process.stderr.write(`hf_encode: ${e && e.stack || e}\n`); process.exit(1); });
