#!/usr/bin/env node
'use strict';
// Reference decodings from the Hugging Face `tokenizers` library:
//
//   node tests/tokenizer/hf_decode.js TOKENIZER_JSON [--skip false|true|both] [--tokenizers DIR] < ids.jsonl > text.jsonl
//
// Each input line is a JSON array of token ids. Each output line is the JSON
// string Tokenizer.fromFile(TOKENIZER_JSON).decode(ids, skipSpecialTokens)
// gives (--skip false, the default, or true), or with --skip both a JSON
// array of the two ([decode(ids, false), decode(ids, true)]); "ERROR
// <message>" when the library throws or the line is not an array of
// non-negative integers. One output line per input line, in order. The
// library directory is found as in loadTokenizers (common.js).
//
// JSON.stringify escapes lone surrogates as \udXXX, but the library only
// ever returns valid UTF-8 (invalid bytes become U+FFFD), so every output
// string is well-formed and reads back with any JSON parser.
//
// Note: a decoder that panics in Rust (Strip with more to cut than a token
// holds) aborts the whole node process; such inputs cannot be measured here.

const fs = require('fs');

const { loadTokenizers } = require('./common.js');

function usage(msg) {
  if (msg) process.stderr.write(msg + '\n');
  process.stderr.write('usage: node tests/tokenizer/hf_decode.js TOKENIZER_JSON [--skip false|true|both] [--tokenizers DIR] < ids.jsonl > text.jsonl\n');
  process.exit(2);
}
let tokFile = null, libDir = null, skip = 'false';
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--tokenizers') { if (++i >= process.argv.length) usage('--tokenizers needs a directory'); libDir = process.argv[i]; }
  else if (a === '--skip') {
    if (++i >= process.argv.length) usage('--skip needs false, true or both');
    skip = process.argv[i];
    if (!['false', 'true', 'both'].includes(skip)) usage(`--skip: ${skip} is not false, true or both`);
  }
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
const CHUNK = 1024;

function parseIds(line) {
  let v;
  try { v = JSON.parse(line); } catch (e) { return `input line is not JSON: ${errMsg(e)}`; }
  if (!Array.isArray(v) || !v.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffffffff))
    return 'input line is not an array of ids (integers 0 .. 2^32-1)';
  return v;
}

// decodeBatch for a chunk; a chunk that throws is redone line by line so
// that only the failing lines report an error.
async function decodeAll(lists, flag) {
  let outs = null;
  try { outs = await tokenizer.decodeBatch(lists, flag); } catch (e) { outs = null; }
  if (outs) return outs.map((s) => JSON.stringify(s));
  const res = [];
  for (const ids of lists) {
    try { res.push(JSON.stringify(await tokenizer.decode(ids, flag))); } catch (e) { res.push(`ERROR ${errMsg(e)}`); }
  }
  return res;
}

async function main() {
  const lines = fs.readFileSync(0, 'utf8').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const out = [];
  for (let start = 0; start < lines.length; start += CHUNK) {
    const part = lines.slice(start, start + CHUNK);
    const res = new Array(part.length);
    const lists = [], where = [];
    part.forEach((line, i) => {
      const v = parseIds(line);
      if (typeof v === 'string') res[i] = `ERROR ${v}`;
      else { lists.push(v); where.push(i); }
    });
    const plain = skip !== 'true' ? await decodeAll(lists, false) : null;
    const skipped = skip !== 'false' ? await decodeAll(lists, true) : null;
    for (let k = 0; k < lists.length; k++) {
      if (skip === 'both') {
        const a = plain[k], b = skipped[k];
        res[where[k]] = a.startsWith('ERROR') ? a : b.startsWith('ERROR') ? b : `[${a},${b}]`;
      } else {
        res[where[k]] = (plain || skipped)[k];
      }
    }
    for (const r of res) out.push(r + '\n');
    if (out.length >= 8192) { fs.writeSync(1, out.join('')); out.length = 0; }
  }
  fs.writeSync(1, out.join(''));
}
main().catch((e) => { process.stderr.write(`hf_decode: ${e && e.stack || e}\n`); process.exit(1); });
