'use strict';
// Shared by the tokenizer agreement scripts (gen_tables.js, gen_corpus.js,
// hf_encode.js): where the repository and the library are, and the seeded
// PRNG that makes generated tables and corpora deterministic.

const fs = require('fs');
const path = require('path');
const ROOT = path.resolve(__dirname, '..', '..');

// The library directory: --tokenizers DIR on the command line, else the
// PARITY_TOKENIZERS environment variable, else build/npm/node_modules/tokenizers
// under the repository root (install it with
//   npm install --prefix build/npm --no-audit --no-fund tokenizers@0.23.2).
function tokenizersDir(argDir) {
  return path.resolve(argDir || process.env.PARITY_TOKENIZERS ||
    path.join(ROOT, 'build', 'npm', 'node_modules', 'tokenizers'));
}

function loadTokenizers(argDir) {
  const dir = tokenizersDir(argDir);
  let lib, version;
  try {
    lib = require(dir);
    version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  } catch (e) {
    process.stderr.write(`cannot load the tokenizers library from ${dir}: ${e.message}\n` +
      'install it with: npm install --prefix build/npm --no-audit --no-fund tokenizers@0.23.2\n' +
      '(or point PARITY_TOKENIZERS at its directory)\n');
    process.exit(2);
  }
  return { lib, version, dir };
}

// mulberry32: tiny deterministic 32-bit PRNG.
function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const r = {
    next,
    int: (n) => Math.floor(next() * n),            // 0 .. n-1
    range: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), // inclusive
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    chance: (p) => next() < p,
  };
  return r;
}

// A corpus being written: emit(s) keeps s once (refusing a lone surrogate,
// which no UTF-8 text holds), counted under the section begin() named.
function corpusWriter() {
  const seen = new Set();
  const lines = [];
  const sections = {};
  const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  let section = '';
  function emit(s) {
    if (typeof s !== 'string') throw new Error(`not a string in ${section}`);
    if (LONE.test(s)) throw new Error(`lone surrogate in ${section}: ${JSON.stringify(s)}`);
    if (seen.has(s)) return;
    seen.add(s);
    lines.push(s);
    sections[section] = (sections[section] || 0) + 1;
  }
  const begin = (name) => { section = name; };
  return { emit, begin, lines, sections };
}

module.exports = { ROOT, tokenizersDir, loadTokenizers, prng, corpusWriter };
