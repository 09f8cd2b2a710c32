#!/usr/bin/env node
'use strict';
// Generate src/tokenizer/hf_tables.c: the character classes of the Hugging Face
// `tokenizers` library (BertNormalizer, BertPreTokenizer, NFD, lowercase),
// found by probing the library itself on every Unicode scalar value.
//
//   node tests/tokenizer/gen_tables.js [--tokenizers DIR] [-o FILE] [--check]
//
//   --tokenizers DIR  the npm package directory (default: $PARITY_TOKENIZERS,
//                     else build/npm/node_modules/tokenizers in the repository)
//   -o FILE           where to write (default: src/tokenizer/hf_tables.c)
//   --check           write nothing; exit 1 when FILE differs from what would
//                     be generated
//
// Every table is probed one code point per call (the binding does about a
// million calls a second, so no batching tricks are needed and no separator can
// interact with the probed character). Surrogates D800-DFFF are skipped: they
// are not scalar values and cannot reach the library from a JS string.
//
// After probing, the tables are checked: a JavaScript re-implementation of
// BertNormalizer + BertPreTokenizer that uses only the tables must reproduce
// the library on every single code point and on many random multi-character
// strings (combining-mark reordering, decompositions, case mappings, ...).
// Any disagreement aborts the generation.

const fs = require('fs');
const path = require('path');
const { ROOT, loadTokenizers, prng } = require('./common.js');



const EXPECTED_VERSION = '0.23.2';

function usage(msg) {
  if (msg) process.stderr.write(msg + '\n');
  process.stderr.write('usage: node tests/tokenizer/gen_tables.js [--tokenizers DIR] [-o FILE] [--check]\n');
  process.exit(2);
}

const opts = { out: path.join(ROOT, 'src', 'tokenizer', 'hf_tables.c'), check: false, tokenizers: null };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '-o' || a === '--out') { if (++i >= process.argv.length) usage('-o needs a file'); opts.out = process.argv[i]; }
  else if (a === '--tokenizers') { if (++i >= process.argv.length) usage('--tokenizers needs a directory'); opts.tokenizers = process.argv[i]; }
  else if (a === '--check') opts.check = true;
  else if (a === '-h' || a === '--help') usage();
  else usage(`unknown argument: ${a}`);
}

const t0 = Date.now();
const { lib: T, version } = loadTokenizers(opts.tokenizers);
if (version !== EXPECTED_VERSION)
  process.stderr.write(`warning: tokenizers ${version}, the tables are meant for ${EXPECTED_VERSION}\n`);

const MAXCP = 0x10FFFF;
const isSurrogate = (cp) => cp >= 0xD800 && cp <= 0xDFFF;
const S = String.fromCodePoint;
const hex = (cp) => 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
const cpsOf = (s) => Array.from(s, (c) => c.codePointAt(0));
const showStr = (s) => cpsOf(s).map(hex).join(' ') || '(empty)';

const problems = [];
function problem(msg) {
  problems.push(msg);
  if (problems.length <= 50) process.stderr.write('PROBLEM: ' + msg + '\n');
}

const bert = (o) => T.bertNormalizer(Object.assign(
  { cleanText: false, handleChineseChars: false, stripAccents: false, lowercase: false }, o));
const nClean = bert({ cleanText: true });
const nChinese = bert({ handleChineseChars: true });
const nStrip = bert({ stripAccents: true });
const nLowerB = bert({ lowercase: true });
const nNfd = T.nfdNormalizer();
const nLower = T.lowercase();
const nStripAcc = T.stripAccentsNormalizer();
const pre = T.bertPreTokenizer();

// Class flags, one byte per code point.
const OTHER = 1, SPACE = 2, SPLIT = 4, PUNCT = 8, MN = 16, CHINESE = 32;
const flags = new Uint8Array(MAXCP + 1);
const nfd = new Map();   // cp -> string (only where it differs)
const lower = new Map(); // cp -> string (only where it differs)
const ccc = new Uint8Array(MAXCP + 1);
const stats = { stripAccRemoves: 0, stripAccOnlyExtra: [], mnDecomposable: [] };

// ---- pass 1: clean_text, chinese, NFD, lowercase, pre-tokenizer -----------
for (let cp = 0; cp <= MAXCP; cp++) {
  if (isSurrogate(cp)) continue;
  const s = S(cp);

  let r = nClean.normalizeString(s);
  if (r === '') flags[cp] |= OTHER;
  else if (r === ' ') flags[cp] |= SPACE;
  else if (r !== s) problem(`clean_text ${hex(cp)} -> ${showStr(r)}`);

  r = nChinese.normalizeString(s);
  if (r === ' ' + s + ' ') flags[cp] |= CHINESE;
  else if (r !== s) problem(`handle_chinese_chars ${hex(cp)} -> ${showStr(r)}`);

  r = nNfd.normalizeString(s);
  if (r !== s) nfd.set(cp, r);

  r = nLower.normalizeString(s);
  if (r !== s) lower.set(cp, r);
  const rb = nLowerB.normalizeString(s);
  if (rb !== r) problem(`lowercase() and BertNormalizer lowercase disagree on ${hex(cp)}: ${showStr(r)} vs ${showStr(rb)}`);

  const p = pre.preTokenizeString('a' + s + 'a').map((x) => x[0]);
  if (p.length === 2 && p[0] === 'a' && p[1] === 'a') flags[cp] |= SPLIT;
  else if (p.length === 3 && p[0] === 'a' && p[1] === s && p[2] === 'a') flags[cp] |= PUNCT;
  else if (!(p.length === 1 && p[0] === 'a' + s + 'a'))
    problem(`pre-tokenizer on a ${hex(cp)} a -> ${JSON.stringify(p)}`);
}
const tPass1 = Date.now();

// ---- pass 2: strip_accents (BertNormalizer: NFD, then drop Mn) -------------
// BertNormalizer's strip_accents uses unicode_categories' is_mark_nonspacing
// (Mn). The stand-alone stripAccentsNormalizer() uses a different predicate
// (unicode-normalization's is_combining_mark: Mn, Mc and Me), so it is only
// compared here, not used for the table.
for (let cp = 0; cp <= MAXCP; cp++) {
  if (isSurrogate(cp) || nfd.has(cp)) continue;
  const s = S(cp);
  const r = nStrip.normalizeString(s);
  if (r === '') flags[cp] |= MN;
  else if (r !== s) problem(`strip_accents ${hex(cp)} -> ${showStr(r)}`);
}
for (const [cp, d] of nfd) {
  // NFD output consists of NFD-invariant characters: all classified above.
  const want = cpsOf(d).filter((c) => !(flags[c] & MN)).map((c) => S(c)).join('');
  const r = nStrip.normalizeString(S(cp));
  if (r !== want) problem(`strip_accents ${hex(cp)} -> ${showStr(r)}, tables say ${showStr(want)}`);
  for (const c of cpsOf(d)) if (nfd.has(c)) problem(`NFD of ${hex(cp)} contains decomposable ${hex(c)}`);
  // A decomposable code point whose whole decomposition is dropped (U+0344 ...)
  // is entered too, so that the table answers "removed" for it either way.
  if (r === '') { flags[cp] |= MN; stats.mnDecomposable.push(cp); }
}
for (let cp = 0; cp <= MAXCP; cp++) {
  if (isSurrogate(cp)) continue;
  const r = nStripAcc.normalizeString(S(cp));
  if (r === '') {
    stats.stripAccRemoves++;
    if (!(flags[cp] & MN)) stats.stripAccOnlyExtra.push(cp);
  } else if (flags[cp] & MN) problem(`stripAccentsNormalizer keeps ${hex(cp)}, which BertNormalizer strips`);
}
const tPass2 = Date.now();

// ---- pass 3: canonical combining classes ----------------------------------
// NFD of a string is not the concatenation of per-character NFDs: runs of
// non-starters are stably sorted by canonical combining class. The classes are
// probed too: "a" + X + M comes back as "a" + M + X exactly when ccc(X) > ccc(M).
// One reference mark per ccc value (as in Unicode 15 / utf8proc 2.8) names the
// classes; every non-starter must fall into exactly one reference's class, so
// the numbers are real Unicode ccc values, and their order is the library's.
const CCC_REFS = [ // [ccc, [reference marks with that class in Unicode 15]]
  [1, [0x0334, 0x0335, 0x0336]], [6, [0x16FF0, 0x16FF1]], [7, [0x093C, 0x09BC, 0x0A3C]],
  [8, [0x3099, 0x309A]], [9, [0x094D, 0x09CD, 0x0A4D]], [10, [0x05B0]],
  [11, [0x05B1]], [12, [0x05B2]], [13, [0x05B3]], [14, [0x05B4]], [15, [0x05B5]],
  [16, [0x05B6]], [17, [0x05B7]], [18, [0x05B8, 0x05C7]], [19, [0x05B9, 0x05BA]],
  [20, [0x05BB]], [21, [0x05BC]], [22, [0x05BD]], [23, [0x05BF]], [24, [0x05C1]],
  [25, [0x05C2]], [26, [0xFB1E]], [27, [0x064B, 0x08F0]], [28, [0x064C, 0x08F1]],
  [29, [0x064D, 0x08F2]], [30, [0x0618, 0x064E]], [31, [0x0619, 0x064F]],
  [32, [0x061A, 0x0650]], [33, [0x0651]], [34, [0x0652]], [35, [0x0670]],
  [36, [0x0711]], [84, [0x0C55]], [91, [0x0C56]], [103, [0x0E38, 0x0E39]],
  [107, [0x0E48, 0x0E49, 0x0E4A]], [118, [0x0EB8, 0x0EB9]], [122, [0x0EC8, 0x0EC9, 0x0ECA]],
  [129, [0x0F71]], [130, [0x0F72, 0x0F7A, 0x0F7B]], [132, [0x0F74]],
  [202, [0x0321, 0x0322, 0x0327]], [214, [0x1DCE]], [216, [0x031B, 0x0F39, 0x1D165]],
  [218, [0x1DFA, 0x302A]], [220, [0x0316, 0x0317, 0x0318]], [222, [0x059A, 0x05AD, 0x1939]],
  [224, [0x302E, 0x302F]], [226, [0x1D16D]], [228, [0x05AE, 0x18A9, 0x1DF7]],
  [230, [0x0300, 0x0301, 0x0302]], [232, [0x0315, 0x031A, 0x0358]],
  [233, [0x035C, 0x035F, 0x0362]], [234, [0x035D, 0x035E, 0x0360]], [240, [0x0345]],
];
// 1: ccc(x) > ccc(m); -1: ccc(x) < ccc(m); 0: equal (x, m NFD-invariant non-starters)
function cccCompare(x, m) {
  if (x === m) return 0;
  const xs = S(x), ms = S(m);
  const a = nNfd.normalizeString('a' + xs + ms);
  const b = nNfd.normalizeString('a' + ms + xs);
  const aSwap = a === 'a' + ms + xs, bSwap = b === 'a' + xs + ms;
  if (!aSwap && a !== 'a' + xs + ms) problem(`NFD(a ${hex(x)} ${hex(m)}) -> ${showStr(a)}`);
  if (!bSwap && b !== 'a' + ms + xs) problem(`NFD(a ${hex(m)} ${hex(x)}) -> ${showStr(b)}`);
  if (aSwap && bSwap) problem(`NFD reorders both ways: ${hex(x)} ${hex(m)}`);
  return aSwap ? 1 : bSwap ? -1 : 0;
}
function isNonStarter(x) {
  // "a" U+0315 (ccc 232) X swaps when 0 < ccc(X) < 232; "a" X U+0334 (ccc 1)
  // swaps when ccc(X) > 1. A starter (ccc 0) never moves.
  const xs = S(x);
  const a = nNfd.normalizeString('a\u0315' + xs);
  const b = nNfd.normalizeString('a' + xs + '\u0334');
  const aSwap = a === 'a' + xs + '\u0315', bSwap = b === 'a\u0334' + xs;
  if (!aSwap && a !== 'a\u0315' + xs) problem(`NFD(a U+0315 ${hex(x)}) -> ${showStr(a)}`);
  if (!bSwap && b !== 'a' + xs + '\u0334') problem(`NFD(a ${hex(x)} U+0334) -> ${showStr(b)}`);
  return aSwap || bSwap;
}
const nonStarters = [];
for (let cp = 0; cp <= MAXCP; cp++) {
  if (isSurrogate(cp) || nfd.has(cp)) continue;
  if (isNonStarter(cp)) nonStarters.push(cp);
}
const nonStarterSet = new Set(nonStarters);
// For each class, the reference marks the library knows as non-starters; the
// first one names the class, the others must compare equal to it.
const refs = [];
stats.droppedRefs = [];
for (const [c, marks] of CCC_REFS) {
  const known = marks.filter((cp) => nonStarterSet.has(cp));
  for (const cp of marks) if (!nonStarterSet.has(cp)) stats.droppedRefs.push([cp, c]);
  for (const cp of known.slice(1))
    if (cccCompare(cp, known[0]) !== 0) problem(`reference marks ${hex(cp)} and ${hex(known[0])} differ in ccc`);
  if (known.length) refs.push([known[0], c]);
}
for (let i = 1; i < refs.length; i++)
  if (cccCompare(refs[i - 1][0], refs[i][0]) !== -1)
    problem(`reference marks ${hex(refs[i - 1][0])} and ${hex(refs[i][0])} are not in ccc order`);
for (const x of nonStarters) {
  let lo = 0, hi = refs.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = cccCompare(x, refs[mid][0]);
    if (c === 0) { found = mid; break; }
    if (c < 0) hi = mid - 1; else lo = mid + 1;
  }
  if (found < 0) problem(`non-starter ${hex(x)} has a combining class no reference mark has`);
  else ccc[x] = refs[found][1];
}
const tPass3 = Date.now();

// ---- verification: re-implement the pipeline from the tables --------------
function refNormalize(s, o) {
  let cs = cpsOf(s);
  if (o.clean) cs = cs.filter((c) => !(flags[c] & OTHER)).map((c) => (flags[c] & SPACE ? 0x20 : c));
  if (o.chinese) cs = cs.flatMap((c) => (flags[c] & CHINESE ? [0x20, c, 0x20] : [c]));
  if (o.strip) {
    cs = cs.flatMap((c) => (nfd.has(c) ? cpsOf(nfd.get(c)) : [c]));
    for (let i = 0; i < cs.length;) { // stable sort of each run of non-starters
      if (!ccc[cs[i]]) { i++; continue; }
      let j = i;
      while (j < cs.length && ccc[cs[j]]) j++;
      const run = cs.slice(i, j).map((c, k) => [c, k]);
      run.sort((p, q) => ccc[p[0]] - ccc[q[0]] || p[1] - q[1]);
      for (let k = i; k < j; k++) cs[k] = run[k - i][0];
      i = j;
    }
    cs = cs.filter((c) => !(flags[c] & MN));
  }
  let out = cs.map((c) => S(c)).join('');
  if (o.lower) out = cs.map((c) => (lower.has(c) ? lower.get(c) : S(c))).join('');
  return out;
}
function refPreTokenize(s) {
  const toks = [];
  let cur = '';
  for (const ch of s) {
    const f = flags[ch.codePointAt(0)];
    if (f & SPLIT) { if (cur) toks.push(cur); cur = ''; }
    else if (f & PUNCT) { if (cur) toks.push(cur); toks.push(ch); cur = ''; }
    else cur += ch;
  }
  if (cur) toks.push(cur);
  return toks;
}
const CONFIGS = [
  { clean: true, chinese: true, strip: true, lower: true },
  { clean: true, chinese: true, strip: false, lower: true },
  { clean: true, chinese: true, strip: false, lower: false },
  { clean: true, chinese: true, strip: true, lower: false },
  { clean: false, chinese: false, strip: true, lower: true },
].map((o) => Object.assign(o, { lib: bert({
  cleanText: o.clean, handleChineseChars: o.chinese, stripAccents: o.strip, lowercase: o.lower }) }));
const cfgName = (o) => `clean=${o.clean} chinese=${o.chinese} strip=${o.strip} lower=${o.lower}`;
let verified = 0;
function verify(s) {
  for (const o of CONFIGS) {
    const lib = o.lib.normalizeString(s), mine = refNormalize(s, o);
    if (lib !== mine) problem(`normalize [${cfgName(o)}] ${showStr(s)}: library ${showStr(lib)}, tables ${showStr(mine)}`);
  }
  const lt = pre.preTokenizeString(s).map((x) => x[0]), mt = refPreTokenize(s);
  if (JSON.stringify(lt) !== JSON.stringify(mt))
    problem(`pre-tokenize ${showStr(s)}: library ${JSON.stringify(lt)}, tables ${JSON.stringify(mt)}`);
  verified++;
}
for (let cp = 0; cp <= MAXCP; cp++) if (!isSurrogate(cp)) verify(S(cp));
{
  const rng = prng(20240611);
  const all = (f) => { const a = []; for (let c = 0; c <= MAXCP; c++) if (flags[c] & f) a.push(c); return a; };
  const pools = [
    nonStarters, all(MN), [...nfd.keys()], [...lower.keys()], all(SPACE).concat(all(SPLIT)),
    all(OTHER).slice(0, 5000), all(PUNCT), all(CHINESE).filter((_, i) => i % 97 === 0),
    Array.from('abcdefghijklmnopqrstuvwxyzAEIOUSZ0123456789 \t\n', (c) => c.codePointAt(0)),
    [0x0130, 0x03A3, 0x01C5, 0x1E9E, 0x0386, 0x1F88, 0x0345, 0x0307, 0x0344, 0x0F73, 0xFB2C, 0xAC00, 0xD4DB],
  ];
  const any = () => { for (;;) { const c = rng.int(MAXCP + 1); if (!isSurrogate(c)) return c; } };
  for (let n = 0; n < 60000; n++) {
    const len = rng.range(1, 16);
    const cs = [];
    for (let k = 0; k < len; k++) cs.push(rng.chance(0.08) ? any() : rng.pick(rng.pick(pools)));
    verify(cs.map((c) => S(c)).join(''));
  }
}
const tVerify = Date.now();

if (problems.length) {
  process.stderr.write(`${problems.length} problem(s); nothing written\n`);
  process.exit(1);
}

// ---- emit C ------------------------------------------------------------------
function ranges(f) {
  const out = [];
  for (let cp = 0; cp <= MAXCP; cp++) {
    if (!(flags[cp] & f)) continue;
    const last = out[out.length - 1];
    if (last && last[1] === cp - 1) last[1] = cp; else out.push([cp, cp]);
  }
  return out;
}
const chex = (cp) => '0x' + cp.toString(16).toUpperCase().padStart(4, '0');
// A C string literal of the UTF-8 bytes; pure ASCII output. Every byte that is
// not a letter or digit is escaped, and so is a hex digit right after an
// escape (C hex escapes are greedy). '?' is escaped, so no trigraphs.
function cString(s) {
  let out = '"', afterHex = false;
  for (const b of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(b);
    const alnum = /[A-Za-z0-9]/.test(ch);
    if (alnum && !(afterHex && /[0-9A-Fa-f]/.test(ch))) { out += ch; afterHex = false; }
    else { out += '\\x' + b.toString(16).padStart(2, '0'); afterHex = true; }
  }
  return out + '"';
}
const L = [];
const w = (s) => L.push(s);
function emitRanges(name, f, what) {
  const rs = ranges(f);
  if (!rs.length) { process.stderr.write(`table ${name} is empty\n`); process.exit(1); }
  w(`/* ${what} */`);
  w(`const hf_range ${name}_ranges[] = {`);
  for (let i = 0; i < rs.length; i += 4)
    w('    ' + rs.slice(i, i + 4).map(([lo, hi]) => `{${chex(lo)}, ${chex(hi)}},`).join(' '));
  w('};');
  w(`const size_t ${name}_count = sizeof ${name}_ranges / sizeof ${name}_ranges[0];`);
  w('');
  return rs.length;
}
function emitMap(name, m, what) {
  const keys = [...m.keys()].sort((a, b) => a - b);
  w(`/* ${what} */`);
  w(`const hf_mapping ${name}[] = {`);
  // Hangul syllables (11172 algorithmic decompositions) go four to a line
  // without comments, to keep the file small.
  const isHangul = (cp) => cp >= 0xAC00 && cp <= 0xD7A3;
  for (let i = 0; i < keys.length;) {
    const cp = keys[i];
    if (!isHangul(cp)) {
      w(`    {${chex(cp)}, ${cString(m.get(cp))}}, /* -> ${showStr(m.get(cp))} */`);
      i++;
      continue;
    }
    const row = [];
    while (i < keys.length && isHangul(keys[i]) && row.length < 4) { row.push(keys[i]); i++; }
    w('    ' + row.map((c) => `{${chex(c)}, ${cString(m.get(c))}},`).join(' '));
  }
  w('};');
  w(`const size_t ${name}_count = sizeof ${name} / sizeof ${name}[0];`);
  w('');
  return keys.length;
}

w('/* src/tokenizer/hf_tables.c: GENERATED FILE, DO NOT EDIT BY HAND.');
w(' *');
w(` * Character classes of the Hugging Face \`tokenizers\` library ${version} (npm`);
w(' * package `tokenizers`, the Node binding of the Rust library), found by probing');
w(' * the library on every Unicode scalar value (U+0000..U+10FFFF without the');
w(' * surrogates) and checked against it by tests/tokenizer/gen_tables.js.');
w(' * Regenerate with:');
w(` *   npm install --prefix build/npm --no-audit --no-fund tokenizers@${EXPECTED_VERSION}`);
w(' *   node tests/tokenizer/gen_tables.js');
w(' * (node tests/tokenizer/gen_tables.js --check says whether this file is current.)');
w(' * Lookups: hf_in() and hf_map() in src/tokenizer/hf_tables_lookup.c.');
w(' */');
w('#include "parity/hf_tables.h"');
w('');
const sizes = {};
sizes.other = emitRanges('hf_other', OTHER,
  'BertNormalizer clean_text removes these: NUL, U+FFFD and is_control\n' +
  ' * (unicode_categories is_other, minus \\t \\n \\r). Checked before the space map.');
sizes.space = emitRanges('hf_space', SPACE,
  'BertNormalizer clean_text maps these to U+0020 (\\t \\n \\r and\n * char::is_whitespace, less what clean_text removes).');
sizes.split_space = emitRanges('hf_split_space', SPLIT,
  'BertPreTokenizer splits on these and drops them (char::is_whitespace).');
sizes.punct = emitRanges('hf_punct', PUNCT,
  'BertPreTokenizer isolates each of these as its own token (ASCII punctuation\n' +
  ' * or unicode_categories is_punctuation).');
sizes.mn = emitRanges('hf_mn', MN,
  'BertNormalizer strip_accents drops these after NFD (unicode_categories\n' +
  ' * is_mark_nonspacing). Also lists the few decomposable code points whose whole\n' +
  ' * NFD is dropped (U+0344 ...); after NFD they never occur anyway. Note: the\n' +
  ' * stand-alone StripAccents normalizer drops more (Mc and Me too); this is the\n' +
  ' * BertNormalizer set.');
sizes.chinese = emitRanges('hf_chinese', CHINESE,
  'BertNormalizer handle_chinese_chars puts a space before and after these.');
sizes.lower = emitMap('hf_lower', lower,
  'Lowercase (char::to_lowercase, one code point at a time, no final-sigma\n' +
  ' * rule): every code point whose lowercase differs from itself.');
sizes.nfd = emitMap('hf_nfd', nfd,
  'NFD of every code point whose full canonical decomposition differs from\n' +
  ' * itself (already in canonical order). NFD of a string also needs hf_ccc.');
{
  const rs = [];
  for (let cp = 0; cp <= MAXCP; cp++) {
    if (!ccc[cp]) continue;
    const last = rs[rs.length - 1];
    if (last && last[1] === cp - 1 && last[2] === ccc[cp]) last[1] = cp; else rs.push([cp, cp, ccc[cp]]);
  }
  w('/* Canonical combining class of every non-starter that NFD leaves as it is');
  w(' * (all others are 0). NFD reorders each run of non-starters by a stable sort');
  w(' * on this value. Probed: the order and grouping are the library\'s own. */');
  w('const hf_ccc_range hf_ccc_ranges[] = {');
  for (let i = 0; i < rs.length; i += 3)
    w('    ' + rs.slice(i, i + 3).map(([lo, hi, c]) => `{${chex(lo)}, ${chex(hi)}, ${c}},`).join(' '));
  w('};');
  w('const size_t hf_ccc_count = sizeof hf_ccc_ranges / sizeof hf_ccc_ranges[0];');
  sizes.ccc = rs.length;
}
const text = L.join('\n') + '\n';

const tEnd = Date.now();
const report = {
  library: version,
  seconds: { probe: (tPass1 - t0) / 1000, strip: (tPass2 - tPass1) / 1000, ccc: (tPass3 - tPass2) / 1000,
    verify: (tVerify - tPass3) / 1000, total: (tEnd - t0) / 1000 },
  table_entries: sizes,
  code_points: {
    other: ranges(OTHER).reduce((n, [a, b]) => n + b - a + 1, 0),
    space: ranges(SPACE).reduce((n, [a, b]) => n + b - a + 1, 0),
    split_space: ranges(SPLIT).reduce((n, [a, b]) => n + b - a + 1, 0),
    punct: ranges(PUNCT).reduce((n, [a, b]) => n + b - a + 1, 0),
    mn: ranges(MN).reduce((n, [a, b]) => n + b - a + 1, 0),
    chinese: ranges(CHINESE).reduce((n, [a, b]) => n + b - a + 1, 0),
    non_starters: nonStarters.length,
  },
  mn_decomposable: stats.mnDecomposable.map(hex),
  strip_accents_normalizer_removes: stats.stripAccRemoves,
  strip_accents_normalizer_extra_vs_bert: stats.stripAccOnlyExtra.length,
  ccc_refs_unknown_to_library: stats.droppedRefs.map(([cp, c]) => `${hex(cp)}(${c})`),
  verified_strings: verified,
};
process.stderr.write(JSON.stringify(report, null, 1) + '\n');

if (opts.check) {
  let cur = null;
  try { cur = fs.readFileSync(opts.out, 'utf8'); } catch (e) { /* missing */ }
  if (cur !== text) { process.stderr.write(`${opts.out} is out of date\n`); process.exit(1); }
  process.stderr.write(`${opts.out} is up to date\n`);
} else {
  fs.writeFileSync(opts.out, text);
  process.stderr.write(`wrote ${opts.out}\n`);
}
