#!/usr/bin/env node
'use strict';
// An adversarial corpus for the tokenizer.json tokenizer, one JSON string a
// line (feed it to tests/tokenizer/hf_encode.js and to parity's tokenizer):
//
//   node tests/tokenizer/gen_corpus.js [SEED] > corpus.jsonl
//
// Deterministic for a given SEED (default 1): a seeded PRNG, no Math.random,
// no dependence on the Node version's Unicode data (every code point list is
// written out here), duplicates dropped, no lone surrogates. Inputs: the demo
// vocabulary fixtures/campus-club/vocab.txt and its corpus.tsv (realistic
// sentences with many known tokens), and the range tables of src/tokenizer/hf_tables.c
// (every class boundary is probed in context).

const fs = require('fs');
const path = require('path');
const { ROOT, prng, corpusWriter } = require('./common.js');


const seedArg = process.argv[2];
if (process.argv.length > 3 || (seedArg !== undefined && !/^\d+$/.test(seedArg))) {
  process.stderr.write('usage: node tests/tokenizer/gen_corpus.js [SEED] > corpus.jsonl\n');
  process.exit(2);
}
const R = prng(seedArg === undefined ? 1 : Number(seedArg));

const C = (...cps) => String.fromCodePoint(...cps);
const isSurrogate = (cp) => cp >= 0xD800 && cp <= 0xDFFF;
const span = (lo, hi) => { const a = []; for (let c = lo; c <= hi; c++) if (!isSurrogate(c)) a.push(c); return a; };
const pickCp = (lo, hi) => { for (;;) { const c = R.range(lo, hi); if (!isSurrogate(c)) return c; } };
const rep = (n, f) => { let s = ''; for (let i = 0; i < n; i++) s += f(i); return s; };
const cpLen = (s) => Array.from(s).length;
const cpSlice = (s, n) => Array.from(s).slice(0, n).join('');

// ---------------------------------------------------------------- inputs ----
const vocabLines = fs.readFileSync(path.join(ROOT, 'fixtures/campus-club/vocab.txt'), 'utf8').split('\n').filter((l) => l !== '');
const WORDS = vocabLines.filter((t) => /^[a-z][a-z0-9']*$/.test(t) && t.length >= 2);
const PIECES = vocabLines.filter((t) => t.startsWith('##')).map((t) => t.slice(2));
const SINGLES = vocabLines.filter((t) => !t.startsWith('##') && !t.startsWith('[') && cpLen(t) === 1);
const SENTENCES = fs.readFileSync(path.join(ROOT, 'fixtures/campus-club/corpus.tsv'), 'utf8')
  .split('\n').filter((l) => l.includes('\t')).map((l) => l.slice(l.indexOf('\t') + 1));

// Range tables of src/tokenizer/hf_tables.c (optional: the section is skipped without it).
const TABLE_BOUNDS = [];
try {
  const src = fs.readFileSync(path.join(ROOT, 'src/tokenizer/hf_tables.c'), 'utf8');
  for (const m of src.matchAll(/\{(0x[0-9A-F]+), (0x[0-9A-F]+)(?:, \d+)?\}/g)) {
    const lo = parseInt(m[1], 16), hi = parseInt(m[2], 16);
    for (const c of [lo - 1, lo, lo + 1, hi - 1, hi, hi + 1]) if (c >= 0 && c <= 0x10FFFF && !isSurrogate(c)) TABLE_BOUNDS.push(c);
  }
  // every mapped code point (hf_lower, hf_nfd), but only one Hangul syllable in 64
  for (const m of src.matchAll(/\{(0x[0-9A-F]+), "/g)) {
    const c = parseInt(m[1], 16);
    if (c < 0xAC00 || c > 0xD7A3 || (c - 0xAC00) % 64 === 0) TABLE_BOUNDS.push(c);
  }
} catch (e) {
  process.stderr.write(`gen_corpus: no src/tokenizer/hf_tables.c (${e.code}); table-boundary lines skipped\n`);
}

// ------------------------------------------------------------ character sets
const ASCII_PUNCT = Array.from('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
const UNI_PUNCT = Array.from('¡¿«»„“”‘’‚‹›…‰‱′″‴※‼⁇⁈⁉‐‑‒–—―§¶·、。〃〈〉《》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟＂＃％＆＇（）＊，－．／：；？＠［＼］＿｛｝｡｢｣､･‧⸮⸘⁂⁑⁕⸺⸻').concat(
  [0x055A, 0x055E, 0x0589, 0x05BE, 0x05C0, 0x05C3, 0x05F3, 0x05F4, 0x060C, 0x061B, 0x061F, 0x066A, 0x06D4,
    0x0964, 0x0965, 0x0E4F, 0x0F04, 0x104A, 0x10FB, 0x1361, 0x1362, 0x166E, 0x17D4, 0x1800, 0x1806,
    0x2E2E, 0x2E3A, 0x2E3B, 0x2E40, 0x2E42, 0xA4FE, 0xA60D, 0xA673, 0xFE10, 0xFE19, 0xFE30, 0xFE4F,
    0x10100, 0x1039F, 0x10857, 0x1091F, 0x12470, 0x16AF5, 0x1BC9F, 0x1DA87, 0x1E95E].map((c) => C(c)));
const SYMBOLS = Array.from('©®°±×÷€£¥¢¤¦¨¬¯´¸¼½¾™℃℉←↑→↓↔∀∂∃∅∇∈∑√∞∧∨∩∪∫≈≠≡≤≥⊂⊃⊕⊗⌘⌥␣■□▲►◆○●★☆☺☻♠♣♥♦♪♫✓✔✗✘❤➡⬆₿₹₽₩₪₫');
// Every White_Space character, plus the ones some libraries call space and
// Rust doesn't (U+001C..U+001F, U+180E, U+200B, U+FEFF).
const SPACES = [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, ...span(0x2000, 0x200A), 0x2028, 0x2029,
  0x202F, 0x205F, 0x3000, 0x1C, 0x1D, 0x1E, 0x1F, 0x180E, 0x200B, 0xFEFF].map((c) => C(c));
const CONTROLS = [...span(0x00, 0x1F), 0x7F, ...span(0x80, 0x9F)].map((c) => C(c));
const FORMAT = [0x00AD, 0x034F, 0x061C, 0x180B, 0x180C, 0x180D, 0x180E, 0x180F, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F,
  0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x2065, 0x2066, 0x2067, 0x2068,
  0x2069, 0x206A, 0x206F, 0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB, 0xFFFC, 0xFFFD, 0xFE00, 0xFE0E, 0xFE0F, 0x0600, 0x0605,
  0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD, 0x13430, 0x13438, 0x13439, 0x1343F, 0x1BCA0, 0x1BCA3,
  0x1D173, 0x1D17A, 0xE0001, 0xE0020, 0xE0041, 0xE007F, 0xE0100, 0xE01EF].map((c) => C(c));
const BIDI = [0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x061C].map((c) => C(c));
const PRIVATE = [0xE000, 0xE001, 0xF8FF, 0xF0000, 0xFFFFD, 0x100000, 0x10FFFD, 0xEFFF, 0xF123];
const NONCHAR = [0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0x1FFFE, 0x1FFFF, 0x2FFFE, 0xEFFFF, 0xFFFFE, 0xFFFFF, 0x10FFFE, 0x10FFFF];
// Unassigned in Unicode 16 (several planes, some right next to assigned blocks).
const UNASSIGNED_RANGES = [[0x0378, 0x0379], [0x0380, 0x0383], [0x038B, 0x038B], [0x038D, 0x038D], [0x03A2, 0x03A2],
  [0x0530, 0x0530], [0x0557, 0x0558], [0x058B, 0x058C], [0x0590, 0x0590], [0x05C8, 0x05CF], [0x05EB, 0x05EE],
  [0x05F5, 0x05FF], [0x070E, 0x070E], [0x074B, 0x074C], [0x07B2, 0x07BF], [0x07FB, 0x07FC], [0x082E, 0x082F],
  [0x085C, 0x085D], [0x0892, 0x0896], [0x0984, 0x0984], [0x0DE0, 0x0DE5], [0x1AFF, 0x1AFF], [0x1FFF, 0x1FFF],
  [0x2B74, 0x2B75], [0x2E5E, 0x2E7F], [0x2E9A, 0x2E9A], [0x2EF4, 0x2EFF], [0x2FD6, 0x2FEF], [0x3040, 0x3040],
  [0x4DB6 + 10, 0x4DB6 + 10], [0xA7DD, 0xA7F1], [0xFB07, 0xFB12], [0xFFEF, 0xFFF8],
  [0x1000C, 0x1000C], [0x1019D, 0x1019F], [0x10EBA, 0x10EC1], [0x11FF2, 0x11FFE], [0x16A39, 0x16A3F],
  [0x1FB94, 0x1FB94], [0x1FBFA, 0x1FFFD], [0x2A6E0, 0x2A6FF], [0x2B81E, 0x2B81F], [0x2CEA2, 0x2CEAF],
  [0x2EBE1, 0x2EBEF], [0x2EE5E, 0x2F7FF], [0x2FA1E, 0x2FFFD], [0x3134B, 0x3134F], [0x323B0, 0x3FFFD],
  [0x40000, 0x4FFFD], [0x50000, 0x5FFFD], [0x7A000, 0x7A0FF], [0xA0000, 0xA0010], [0xDFFF0, 0xDFFFD],
  [0xE0000, 0xE0000], [0xE0002, 0xE001F], [0xE0080, 0xE00FF], [0xE01F0, 0xEFFFD]];
const unassigned = () => { const [lo, hi] = R.pick(UNASSIGNED_RANGES); return C(pickCp(lo, hi)); };

// Combining marks of many classes: [cp, Unicode ccc] (ccc in Unicode 16).
const MARKS = [[0x0300, 230], [0x0301, 230], [0x0302, 230], [0x0303, 230], [0x0304, 230], [0x0306, 230], [0x0307, 230],
  [0x0308, 230], [0x030A, 230], [0x030C, 230], [0x0315, 232], [0x0316, 220], [0x031B, 216], [0x0321, 202],
  [0x0323, 220], [0x0327, 202], [0x0328, 202], [0x0334, 1], [0x0335, 1], [0x0338, 1], [0x0345, 240], [0x035C, 233],
  [0x035D, 234], [0x035F, 233], [0x0360, 234], [0x0361, 234], [0x0591, 220], [0x05B0, 10], [0x05B4, 14], [0x05B8, 18],
  [0x05BC, 21], [0x05C1, 24], [0x05C2, 25], [0x05C7, 18], [0x064B, 27], [0x064E, 30], [0x0650, 32], [0x0651, 33],
  [0x0652, 34], [0x0670, 35], [0x0711, 36], [0x093C, 7], [0x094D, 9], [0x0C55, 84], [0x0C56, 91], [0x0E38, 103],
  [0x0E48, 107], [0x0EB8, 118], [0x0EC8, 122], [0x0F71, 129], [0x0F72, 130], [0x0F74, 132], [0x1DCE, 214],
  [0x302A, 218], [0x302E, 224], [0x05AE, 228], [0x059A, 222], [0x3099, 8], [0x1D165, 216], [0x1D16D, 226],
  [0x20D0, 230], [0x20D2, 1], [0x1AB0, 230], [0x1DC0, 230],
  // classes the library's older data doesn't have (so it treats them as ccc 0)
  [0x07FD, 220], [0x0898, 230], [0x0899, 220], [0x089F, 230], [0x08D3, 220], [0x1DF6, 232], [0x1DF9, 220],
  [0x1DFA, 218], [0x1AC1, 230], [0x1ACE, 230], [0x16FF0, 6], [0x16FF1, 6], [0x10EAB, 230], [0x10EAC, 230],
  [0x0897, 230], [0x1E4EC, 232], [0x1E4EE, 220], [0x1E5EE, 230], [0x10D69, 230], [0x11F42, 9], [0x0C3C, 7],
  [0x10F46, 220], [0x0EBA, 9], [0x1E2AE, 230],
  // spacing and enclosing marks, and Mn marks of class 0
  [0x0903, 0], [0x093E, 0], [0x20DD, 0], [0x20E3, 0], [0x0488, 0], [0x1734, 9], [0x111C9, 0], [0x0E31, 0], [0x0F39, 216],
  [0x034F, 0], [0xFE0F, 0], [0x180B, 0], [0xE0100, 0], [0x0F73, 0], [0x0344, 0], [0x0340, 0], [0x0343, 0], [0x0F81, 0]];
const mark = () => C(R.pick(MARKS)[0]);
// Non-starters that BertNormalizer's strip_accents keeps (its Mn table is older
// than its combining-class table, or they are spacing marks): their canonical
// reordering shows in the output.
const KEPT_NONSTARTERS = [0x08D4, 0x08DA, 0x08E1, 0x1B44, 0x1BAA, 0x1BF2, 0x1DFB, 0x302E, 0x302F, 0xA953, 0xA9C0,
  0x111C0, 0x11446, 0x116B6, 0x1D165, 0x1D166, 0x1D16D, 0x1D16E, 0x1D172, 0x1E000, 0x1E02A, 0x1E944, 0x1E94A];

const PRECOMPOSED = Array.from('ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿĀāĂăĄąĆćČčĎďĐđĒēĖėĘęĚěĞğĢģĪīĮįİıĶķĹĺĻļĽľŁłŃńŅņŇňŌōŐőŒœŔŕŘřŚśŞşŠšŢţŤťŪūŮůŰűŲųŸŹźŻżŽžǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǢǣǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻǼǽǾǿȀȁȂȃȘșȚțȦȧȨȩȪȫȬȭȮȯȰȱȲȳḀḁḂḃḈḉḌḍḒḓḜḝḞḟḠḡḤḥḮḯḰḱḶḷḸḹṀṁṄṅṌṍṐṑṔṕṘṙṜṝṠṡṤṥṨṩṪṫṸṹẀẁẂẃẄẅẈẉẌẍẐẑẖẗẘẙẛạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ');
const GREEK = Array.from('ΆΈΉΊΌΎΏΐΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩΪΫάέήίΰαβγδεζηθικλμνξοπρςστυφχψωϊϋόύώϐϑϒϓϔϕϖϰϱϲϳϴϵϷϸϹϺϻἀἁἂἈἉἊὈὉᾀᾈᾼῌῼΆΈ');
const CASE_SPECIAL = ['İ', 'ı', 'İSTANBUL', 'ıSPARTA', 'DİYARBAKIR', 'ΣΑΣ', 'ΟΔΥΣΣΕΥΣ', 'ὈΔΥΣΣΕΎΣ', 'ΌΣΟΣ', 'σίσυφος', 'Σ', 'ς',
  'ǅ', 'Ǆǅǆ', 'ǈ', 'ǋ', 'ǲ', 'ǱUNGLA', 'ẞ', 'ẞTRASSE', 'STRAẞE', 'ß', 'ﬀ', 'ﬁ', 'ﬃ', 'ŉ', 'ǰ', 'ΐ', 'ΰ', 'ᾈ', 'ᾼ', 'ῼ', 'ͅ',
  'K', 'Ω', 'Å', 'Ⅻ', 'ⅻ', 'Ⓐ', 'ⓩ', 'ＡＢＣ', 'ａｂｃ', 'Ꭰ', 'ꭰ', 'ᏸ', 'Ᏸ', 'ᲐᲑᲒ', 'აბგ', 'Ⰰ', 'ⰰ', 'Ա', 'Ⴀ', 'ⴀ',
  C(0x10400, 0x10401), C(0x10428), C(0x104B0), C(0x10C80), C(0x118A0), C(0x16E40), C(0x1E900), C(0x1E922),
  C(0x10570, 0x10571), C(0x10D50, 0x10D51), C(0xA7CB), C(0xA7CC), C(0xA7DA), C(0xA7DC), C(0x1C89), C(0x1C8A),
  C(0xA7C0), C(0xA7C2), C(0xA7C4), C(0xA7F5), C(0x2C2F), C(0x0130, 0x0301), C(0x0049, 0x0307), 'Iİıi', 'ǅungla', 'ǈubljana'];
const CJK_BLOCKS = [ // [name, lo, hi]
  ['unified', 0x4E00, 0x9FFF], ['ext A', 0x3400, 0x4DBF], ['ext B', 0x20000, 0x2A6DF], ['ext C', 0x2A700, 0x2B73F],
  ['ext D', 0x2B740, 0x2B81F], ['ext E', 0x2B820, 0x2CEAF], ['ext F', 0x2CEB0, 0x2EBEF], ['ext I', 0x2EBF0, 0x2EE5F],
  ['ext G', 0x30000, 0x3134F], ['ext H', 0x31350, 0x323AF], ['ext J', 0x323B0, 0x3347F],
  ['compat', 0xF900, 0xFAFF], ['compat sup', 0x2F800, 0x2FA1F], ['radicals sup', 0x2E80, 0x2EFF], ['kangxi', 0x2F00, 0x2FDF],
  ['ideographic desc', 0x2FF0, 0x2FFF], ['symbols', 0x3000, 0x303F], ['strokes', 0x31C0, 0x31EF], ['enclosed', 0x3200, 0x32FF],
  ['compat chars', 0x3300, 0x33FF], ['compat forms', 0xFE30, 0xFE4F], ['hiragana', 0x3040, 0x309F], ['katakana', 0x30A0, 0x30FF],
  ['bopomofo', 0x3100, 0x312F], ['kanbun', 0x3190, 0x319F], ['halfwidth', 0xFF61, 0xFF9F], ['tangut', 0x17000, 0x187F7],
  ['kana sup', 0x1B000, 0x1B0FF], ['yijing', 0x4DC0, 0x4DFF],
];
// Boundaries of BertNormalizer's fixed "chinese" ranges.
const CJK_EDGES = [0x4DFF, 0x4E00, 0x9FFF, 0xA000, 0x33FF, 0x3400, 0x4DBF, 0x4DC0, 0x1FFFF, 0x20000, 0x2A6DF, 0x2A6E0,
  0x2A6FF, 0x2A700, 0x2B739, 0x2B73A, 0x2B73F, 0x2B740, 0x2B81D, 0x2B81F, 0x2B820, 0x2B91F, 0x2B920, 0x2CEA1, 0x2CEAF,
  0x2CEB0, 0xF8FF, 0xF900, 0xFAFF, 0xFB00, 0x2F7FF, 0x2F800, 0x2FA1D, 0x2FA1F, 0x2FA20, 0x9FA5, 0x9FBB, 0x9FCC, 0x9FD5,
  0x9FEA, 0x9FEF, 0x9FFC, 0x4DB5, 0x4DB6, 0xFA6D, 0xFA6E, 0xFAD9, 0xFADA, 0x2EBE0, 0x2EBF0, 0x2EE5D, 0x3134A, 0x323AF];
const CJK_TEXT = ['野口里佳 Noguchi Rika', '我爱北京天安门', '東京大学の学生です。', '中文English混合', '電影之夜，免費入場！',
  '学生会「音乐节」', '𠀀𠀁𪚥𫝀𫠠𬺰', '（注意）', '李小龙 Bruce Lee', '日本語テキスト', '한국어 텍스트', '漢字かなカナ', '丽 丽', 'ｶﾀｶﾅ'];
const HANGUL_TEXT = ['안녕하세요', '대학교 영화의 밤', '서울 Seoul 2024', '한글날', '뷁', '똠방각하', 'ㄱㄴㄷ ㅏㅑ', 'ﾡﾢ',
  C(0x1100, 0x1161, 0x11A8), C(0x1100, 0x1161), C(0x1112, 0x1175, 0x11C2), C(0xA960, 0x1161), C(0x1100, 0xD7B0), C(0xAC00, 0x11A8)];
const EMOJI = ['😀', '😂', '🎬', '🎵', '⚽', '🏀', '🍕', '❤️', '❤', '✨', '👍', '👍🏽', '👍🏿', '👋🏻', '🧑‍🤝‍🧑', '👨‍👩‍👧‍👦',
  '👩🏽‍💻', '🏳️‍🌈', '🏳‍⚧', '🏴‍☠️', '🇨🇦', '🇺🇸', '🇯🇵', '🇪🇺', '🇦', '🇦🇦🇦', '1️⃣', '#️⃣', '*️⃣', '9⃣', '🔟', '©️', '™️', '☺︎',
  '🏴󠁧󠁢󠁥󠁮󠁧󠁿', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '👁️‍🗨️', '🫨', '🫎', '🪼', '🫩', '🫆', '🪾', '🫟', '🧌', '🫠', '🥲', '🦩', '🧑🏾‍🦱', '👩‍❤️‍💋‍👨',
  '🤌🏼', '🙂‍↔️', '🐦‍🔥', '🍋‍🟩', '⛓️‍💥', '🧑‍🧑‍🧒', '🀄', '🃏', '🅰️', '🆗', '🈁', '🈚', '🉐', '〽️', '〰️'];
const ARABIC = ['مرحبا بالعالم', 'السَّلَامُ عَلَيْكُمْ', 'كِتَابٌ', 'الطلاب، مرحباً؟', 'لیلة الفيلم ١٢٣', 'ـــــ', 'فارسی زبان', 'اردو',
  'شُكْرًا', 'مُحَمَّدٌ', 'ﷺ', 'ﻻ', 'ﷲ', 'ܫܠܡܐ', 'ދިވެހި', 'ߒߞߏ', C(0x0627, 0x0653), C(0x0628, 0x0651, 0x064E), C(0x0628, 0x064E, 0x0651)];
const HEBREW = ['שלום עולם', 'שָׁלוֹם', 'בְּרֵאשִׁית בָּרָא', 'מַה־טֹּבוּ', 'צה״ל', 'ג׳ירפה', 'וַיֹּ֣אמֶר', 'ﬠ', 'ﬡ', 'שּׁ',
  C(0x05E9, 0x05C1, 0x05BC), C(0x05E9, 0x05BC, 0x05C1), C(0xFB2C), C(0x05D0, 0x05B7, 0x0591), C(0x05D0, 0x0591, 0x05B7)];
const NEW_CHARS = [0x2E50, 0x2E51, 0x2E52, 0x2E53, 0x2E54, 0x2E55, 0x2E56, 0x2E5A, 0x2E5D, 0x10EAB, 0x10EAC, 0x10EAD,
  0x10E80, 0x10EB0, 0x0870, 0x0888, 0x088E, 0x0897, 0x0898, 0x089F, 0x08C8, 0x11F00, 0x11F04, 0x11F41, 0x11F43,
  0x11F4F, 0x11F5A, 0x1E4D0, 0x1E4EC, 0x1E4F9, 0x1E290, 0x1E2AE, 0x10570, 0x10597, 0x105C0, 0x10D40, 0x10D4E,
  0x10D50, 0x10D6E, 0x10D70, 0x10D8E, 0x11380, 0x113C2, 0x113C5, 0x113D4, 0x113D7, 0x11BC0, 0x11BE1, 0x16100,
  0x1611E, 0x16121, 0x16129, 0x16D40, 0x16D63, 0x16D68, 0x16D6D, 0x1E5D0, 0x1E5FF, 0x1CC00, 0x1CC9E, 0x13460,
  0x116D0, 0x1B132, 0x1B155, 0x1F7D9, 0x1FA89, 0x1FAE8, 0x1FAE9, 0x1FBCB, 0x0C5D, 0x0CF3, 0x0ECE, 0x11241,
  0x11B00, 0x11B09, 0x1DF00, 0x1DF25, 0x1E030, 0x1E08F, 0x16FF0, 0x16FF1, 0x11938, 0x11935, 0x10F70, 0x10F82,
  0x10FB0, 0x18D00, 0x18B00, 0x1AFF0, 0x1AFFE, 0x1E7E0, 0x1F6DD, 0x1F979, 0x166D, 0x111C9, 0x1734, 0x061D, 0x09FD,
  0x0A76, 0x0C77, 0x0C84, 0x1B7D, 0x1B7E, 0x1B7F, 0x2E43, 0x2E4F, 0xA7C0, 0xA7D0, 0xA7D9, 0x1DF9, 0x1ABF].map((c) => C(c));
const LETTERS_MISC = ['Ω', 'ж', 'Москва', 'Привет мир', 'ЁЖИК', 'Ґ', 'ǀ', 'ʼ', 'ˆ', '˜', '¨', 'ﬁlm', 'ｆｉｌｍ', 'ℌ', '𝐅𝐢𝐥𝐦', '𝔣𝔦𝔩𝔪',
  '①', '²', '½', '٣', '७', 'Ⅳ', 'ສະບາຍດີ', 'สวัสดีครับ', 'नमस्ते', 'क़', 'ক্ষ', 'தமிழ்', 'ಕನ್ನಡ', 'བོད་ཡིག', 'ཱི', 'ཱུ',
  'ᜀᜁ', 'ꦗꦮ', 'ᐃᓄᒃᑎᑐᑦ', 'ሰላም', 'Ⴀ', 'ᚠᚢᚦ', 'ꓮꓯ', '𐌰𐌱', '𓀀𓁐', '𒀀', 'ᠮᠣᠩᠭᠣᠯ', 'ꯃꯤꯇꯩ', '〆', '々', 'ー', 'ヽ'];

// ----------------------------------------------------------- sentence kit ---
const word = () => R.pick(WORDS);
const caseIt = (w) => { const r = R.next(); if (r < 0.55) return w; if (r < 0.8) return w[0].toUpperCase() + w.slice(1); if (r < 0.92) return w.toUpperCase(); return Array.from(w, (ch) => (R.chance(0.5) ? ch.toUpperCase() : ch)).join(''); };
const unknownPiece = () => rep(R.range(1, 6), () => R.pick('abcdefghijklmnopqrstuvwxyzqxjz'));
const wordish = () => {
  const r = R.next();
  if (r < 0.7) return caseIt(word());
  if (r < 0.8) return word() + R.pick(PIECES);                // known + continuation
  if (r < 0.88) return word() + unknownPiece();              // known + unknown tail
  if (r < 0.94) return unknownPiece() + word();
  return rep(R.range(1, 3), () => R.pick(PIECES)) + R.pick(SINGLES);
};
const sentence = (n) => { const ws = []; for (let i = 0; i < n; i++) ws.push(wordish()); let s = ws.join(' '); if (R.chance(0.7)) s += R.pick(['.', '!', '?', '...', '!!', '?!', ',', ':', ';']); return R.chance(0.5) ? s[0].toUpperCase() + s.slice(1) : s; };
// Put x somewhere in a short vocabulary sentence.
const inContext = (x) => {
  const r = R.next();
  if (r < 0.2) return x;
  if (r < 0.4) return word() + x + word();
  if (r < 0.6) return word() + ' ' + x + ' ' + word();
  if (r < 0.75) return x + word();
  if (r < 0.9) return sentence(R.range(2, 6)) + ' ' + x;
  return word() + x + x + ' ' + word();
};

// --------------------------------------------------------------- output -----
const { emit, begin, lines, sections } = corpusWriter();

// 1. ASCII words and sentences --------------------------------------------
begin('ascii');
for (const s of SENTENCES) emit(s);
for (const w of WORDS) emit(w);
for (let i = 0; i < 900; i++) emit(sentence(R.range(1, 14)));
for (let i = 0; i < 200; i++) emit(rep(R.range(1, 4), () => wordish()));               // glued words
for (let i = 0; i < 120; i++) emit(`${R.range(0, 99999)} ${word()} ${R.range(1, 12)}${R.pick(['am', 'pm', 'AM', ':30pm', '', 'th'])}`);
emit(''); emit(' '); emit('   '); emit('a'); emit('A'); emit('Film night!'); emit('film night'); emit('FILM NIGHT');

// 2. Accents ------------------------------------------------------------------
begin('accents');
for (const ch of PRECOMPOSED) { emit(ch); emit(inContext(ch)); }
for (let i = 0; i < 300; i++) emit(rep(R.range(1, 4), () => caseIt(word()).replace(/[aeiou]/, () => R.pick(PRECOMPOSED))) );
const BASES = Array.from('aAeEoOuUiInNcCsSzZyY') .concat(['ı', 'İ', 'ø', 'α', 'Ω', 'и', 'ש', 'ب', 'क', 'ก', 'ᄀ', '中', ' ', '.', '1']);
for (let i = 0; i < 500; i++) {                                   // stacked marks, random order
  const ms = []; for (let k = R.range(1, 5); k > 0; k--) ms.push(mark());
  const b = R.pick(BASES);
  emit(b + ms.join(''));
  const perm = ms.slice().reverse();
  emit(word() + b + perm.join('') + word());
  if (R.chance(0.3)) emit(R.pick(PRECOMPOSED) + ms.join(''));     // precomposed + more marks
}
for (let i = 0; i < 400; i++) {                                   // reordering that survives strip_accents
  const ms = []; for (let k = R.range(2, 5); k > 0; k--) ms.push(R.chance(0.6) ? C(R.pick(KEPT_NONSTARTERS)) : mark());
  emit(R.pick(BASES) + ms.join(''));
  emit(caseIt(word()) + ms.slice().reverse().join('') + (R.chance(0.5) ? ' ' + word() : ''));
}
for (const a of KEPT_NONSTARTERS) for (const b of KEPT_NONSTARTERS) if (a !== b && R.chance(0.15)) emit('a' + C(a, b) + '\u0301');
for (const [a] of MARKS) for (const [b] of MARKS) if (R.chance(0.08)) { emit('a' + C(a, b)); emit('a' + C(b, a)); }
for (const [m] of MARKS) { emit(C(m)); emit(C(m) + 'film'); emit('film' + C(m)); emit(' ' + C(m)); emit('.' + C(m)); emit('中' + C(m)); }
emit('e\u0301\u0301\u0301'); emit('é\u0301'); emit('cafe\u0301'); emit('café'); emit('Cafe\u0301 re\u0301sume\u0301'); emit('ḉ\u0316');
emit('a\u0301\u0316'); emit('a\u0316\u0301'); emit('a\u0315\u0300\u0316\u0334'); emit('\u0301\u0301\u0301');
emit(rep(40, () => '\u0301')); emit('a' + rep(40, (i) => C([0x0301, 0x0316, 0x0334, 0x0345][i % 4])));
emit('ṩ'); emit('s\u0323\u0307'); emit('s\u0307\u0323'); emit('ǖ'); emit('u\u0308\u0304'); emit('ǘ'); emit('ǖ\u0301');
emit('Ἀθῆναι'); emit('ᾅ'); emit('ᾅ'.normalize('NFD')); emit('Amélie'.normalize('NFD')); emit('Agnès Varda'); emit('Ciné-club français');

// 3. CJK, Hangul ---------------------------------------------------------------
begin('cjk');
for (const [, lo, hi] of CJK_BLOCKS) {
  for (const c of [lo - 1, lo, lo + 1, hi - 1, hi, hi + 1]) if (!isSurrogate(c)) { emit(C(c)); emit(inContext(C(c))); }
  for (let i = 0; i < 12; i++) emit(inContext(rep(R.range(1, 6), () => C(pickCp(lo, hi)))));
}
for (const c of CJK_EDGES) { emit(C(c)); emit('a' + C(c) + 'b'); emit(C(c, c)); emit(word() + ' ' + C(c) + word()); }
for (const s of CJK_TEXT) { emit(s); emit(inContext(s)); }
for (let i = 0; i < 150; i++) emit(rep(R.range(2, 10), () => (R.chance(0.6) ? C(pickCp(0x4E00, 0x9FFF)) : R.pick([word(), ' ', '。', '、', '，', '！', '1', 'a', C(pickCp(0x3040, 0x30FF)), C(pickCp(0x20000, 0x2A6DF))]))));
begin('hangul');
for (const s of HANGUL_TEXT) { emit(s); emit(inContext(s)); emit(s.normalize('NFD')); }
for (let i = 0; i < 150; i++) emit(inContext(rep(R.range(1, 5), () => C(pickCp(0xAC00, 0xD7A3)))));
for (let i = 0; i < 60; i++) emit(rep(R.range(1, 4), () => C(pickCp(0x1100, 0x1112), pickCp(0x1161, 0x1175)) + (R.chance(0.5) ? C(pickCp(0x11A8, 0x11C2)) : '')));
for (const c of [0xABFF, 0xAC00, 0xD7A3, 0xD7A4, 0xD7B0, 0xD7FB, 0x3131, 0x318E, 0xA960, 0xA97C, 0xFFA0, 0xFFDC, 0x115F, 0x1160, 0x3164]) emit(inContext(C(c)));

// 4. Emoji -------------------------------------------------------------------------
begin('emoji');
for (const e of EMOJI) { emit(e); emit(inContext(e)); emit(word() + e); emit(e + e + e); }
for (let i = 0; i < 100; i++) emit(rep(R.range(1, 5), () => (R.chance(0.5) ? R.pick(EMOJI) : ' ' + word())));
for (let i = 0; i < 60; i++) emit(inContext(C(pickCp(0x1F300, 0x1FAFF)) + (R.chance(0.4) ? C(pickCp(0x1F3FB, 0x1F3FF)) : '') + (R.chance(0.3) ? '\u200D' + C(pickCp(0x1F300, 0x1F5FF)) : '')));
for (let i = 0; i < 30; i++) emit(rep(R.range(1, 4), () => C(pickCp(0x1F1E6, 0x1F1FF))));

// 5. Unassigned, private use, noncharacters -------------------------------------------
begin('unassigned');
for (const [lo, hi] of UNASSIGNED_RANGES) { emit(C(lo)); emit(C(hi)); emit(inContext(C(pickCp(lo, hi)))); }
for (let i = 0; i < 150; i++) emit(inContext(rep(R.range(1, 3), unassigned)));
for (const c of PRIVATE.concat(NONCHAR)) { emit(C(c)); emit(inContext(C(c))); emit('film' + C(c) + 'night'); }
for (let i = 0; i < 40; i++) emit(inContext(C(R.pick([pickCp(0xE000, 0xF8FF), pickCp(0xF0000, 0xFFFFD), pickCp(0x100000, 0x10FFFD)]))));

// 6. Controls, format characters, spaces -----------------------------------------------
begin('controls');
for (const ch of CONTROLS) { emit(ch); emit('film' + ch + 'night'); emit('film ' + ch + ' night'); emit(ch + 'film' + ch); }
for (const ch of FORMAT) { emit(ch); emit('film' + ch + 'night'); emit(ch + ' ' + word()); emit('[SEP' + ch + ']'); }
for (const ch of BIDI) { emit(ch + 'שלום' + ch + ' film'); emit('film ' + ch + 'مرحبا' + '\u202C night'); }
for (let i = 0; i < 200; i++) emit(rep(R.range(2, 8), () => R.pick([word(), R.pick(CONTROLS), R.pick(FORMAT), R.pick(SPACES), R.pick(BIDI)])));
emit('\u0000'); emit('a\u0000b'); emit('\u0000\u0000'); emit('\uFFFD'); emit('a\uFFFDb'); emit('\u00ADfilm\u00AD'); emit('film\u00ADnight');
emit('\uFEFFfilm night'); emit('film\u200Bnight'); emit('film\u200Dnight'); emit('film\u200Cnight'); emit('\u2060film\u2060');
emit('line one\nline two'); emit('tab\tseparated\tvalues'); emit('crlf\r\nline'); emit('\r'); emit('\n'); emit('\t');
begin('spaces');
for (const sp of SPACES) { emit(sp); emit('film' + sp + 'night'); emit(sp + 'film' + sp); emit(sp + sp + sp); emit('a' + sp + sp + 'b'); emit('中' + sp + '文'); emit('film' + sp + '!' + sp); }
for (let i = 0; i < 150; i++) emit(rep(R.range(2, 8), () => R.pick([word(), R.pick(SPACES), R.pick(SPACES) + R.pick(SPACES)])));

// 7. RTL text ------------------------------------------------------------------------------
begin('rtl');
for (const s of ARABIC.concat(HEBREW)) { emit(s); emit(inContext(s)); emit(s.normalize('NFD')); emit('\u200F' + s + '\u200E'); }
for (let i = 0; i < 120; i++) emit(rep(R.range(2, 7), () => R.pick([R.pick(ARABIC), R.pick(HEBREW), word(), '،', '؟', '׃', '־', C(pickCp(0x0591, 0x05C7)), C(pickCp(0x064B, 0x065F)), C(pickCp(0x0660, 0x0669))])).trim());

// 8. Long words ----------------------------------------------------------------------------
begin('long');
for (const n of [98, 99, 100, 101, 102, 150, 200, 1000]) {
  emit('a'.repeat(n)); emit('A'.repeat(n)); emit('é'.repeat(n)); emit('e\u0301'.repeat(n)); emit('İ'.repeat(n));
  emit(C(0x4E00).repeat(n)); emit('film ' + 'x'.repeat(n) + ' night'); emit(cpSlice('film'.repeat(n), n));
  emit(cpSlice('filmnight'.repeat(n), n)); emit(cpSlice('qzx'.repeat(n), n)); emit(cpSlice('ab-'.repeat(n), n));
  emit('\u0301'.repeat(n)); emit('a' + '\u0301'.repeat(n)); emit('😀'.repeat(n)); emit('ÅSTRÖM'.repeat(Math.ceil(n / 6)).slice(0, n));
  emit(cpSlice(rep(n, () => R.pick(PRECOMPOSED)), n)); emit('a\u200B'.repeat(n)); emit('a\u0000'.repeat(n));
  emit(cpSlice(rep(n, () => R.pick(WORDS)), n)); emit(cpSlice(rep(n, () => R.pick(PIECES)), n));
  emit('x'.repeat(n - 1) + 'é'); emit('x'.repeat(n - 1) + 'e\u0301'); emit('x'.repeat(n - 1) + 'İ'); emit('x'.repeat(n - 1) + 'ǅ');
  emit('x'.repeat(n) + '.' + 'y'.repeat(n)); emit(('film night ').repeat(Math.ceil(n / 11)));
}
for (let i = 0; i < 60; i++) { const n = R.range(90, 130); emit(cpSlice(rep(n, () => (R.chance(0.7) ? R.pick(WORDS) : unknownPiece())), n)); }
emit(rep(300, () => R.pick(WORDS) + ' ')); emit(rep(2000, () => 'a ')); emit(cpSlice(rep(500, () => R.pick(SENTENCES) + ' '), 20000));

// 9. Punctuation ---------------------------------------------------------------------------
begin('punct');
for (const p of ASCII_PUNCT.concat(UNI_PUNCT, SYMBOLS)) { emit(p); emit('film' + p + 'night'); emit(p + p + p); emit(word() + ' ' + p + word()); }
for (let i = 0; i < 250; i++) emit(rep(R.range(1, 12), () => R.pick(R.chance(0.5) ? ASCII_PUNCT : R.chance(0.6) ? UNI_PUNCT : SYMBOLS)));
for (let i = 0; i < 150; i++) emit(rep(R.range(2, 8), () => R.pick([word(), R.pick(ASCII_PUNCT), R.pick(UNI_PUNCT), R.pick(SYMBOLS), ' '])));
emit('!!!???...'); emit('...'); emit('—'); emit('film—night'); emit("don't"); emit("students' union"); emit('e-mail'); emit('U.S.A.'); emit('$5.00'); emit('50%'); emit('a/b\\c'); emit('#tag @user');

// 10. Literal special tokens -----------------------------------------------------------------
begin('special');
const SPECIALS = ['[SEP]', '[CLS]', '[UNK]', '[MASK]', '[PAD]'];
for (const s of ['[SEP]', '[CLS] x', 'a[SEP]b', '[sep]', '[UNK]', '[MASK]', '[PAD]', '[cls]', '[Sep]', '[ SEP ]', '[SEP][SEP]', '[[SEP]]',
  '[SEP', 'SEP]', '[SEP ]', '[MASK]ed', 'un[MASK]', 'x [MASK] y', '[CLS][SEP]', '[CLS] film night [SEP]', '[ＳＥＰ]', '［SEP］',
  '[SE\u200BP]', '[SE\u0000P]', '\u00A0[SEP]\u00A0', '[SEP]\u0301', '\u0301[SEP]', 'İ[SEP]İ', '中[SEP]文', '[UNK][UNK]', '[PAD] [PAD]',
  '[MASK][MASK][MASK]', 'film[SEP]night[CLS]', '[sep] [SEP] [Sep]', '##', '##a', 'a ##b', '[', ']', '[]', '[SEP]'.repeat(30)]) {
  emit(s); emit(inContext(s));
}
for (let i = 0; i < 150; i++) emit(rep(R.range(2, 7), () => R.pick([word(), R.pick(SPECIALS), R.pick(SPECIALS).toLowerCase(), ' ', R.pick(PIECES), '##'])));

// 11. Characters new in Unicode 13..16 and other old-table traps ----------------------------------
begin('new');
for (const ch of NEW_CHARS) { emit(ch); emit('film' + ch + 'night'); emit(word() + ' ' + ch + ' ' + word()); emit('a' + ch + '\u0301'); emit(ch + ch); }
for (let i = 0; i < 100; i++) emit(inContext(rep(R.range(1, 4), () => R.pick(NEW_CHARS))));

// 12. Case mappings ---------------------------------------------------------------------------
begin('case');
for (const s of CASE_SPECIAL.concat(GREEK)) { emit(s); emit(inContext(s)); emit(s + s.toLowerCase()); emit(s.normalize('NFD')); }
for (let i = 0; i < 150; i++) emit(rep(R.range(2, 6), () => R.pick(CASE_SPECIAL) + (R.chance(0.3) ? ' ' : '') + (R.chance(0.3) ? caseIt(word()) : '')));
for (let i = 0; i < 80; i++) emit(rep(R.range(3, 9), () => R.pick(GREEK)) + ' ' + rep(R.range(3, 9), () => R.pick(GREEK)));
for (const s of LETTERS_MISC) { emit(s); emit(inContext(s)); }

// 13. Every class boundary of the generated tables, in context -----------------------------------
begin('table-bounds');
for (const c of TABLE_BOUNDS) emit(R.chance(0.5) ? C(c) : R.pick(['a', 'A', ' ', '中', 'x\u0301']) + C(c) + R.pick(['b', 'B', '.', '\u0316', '']));
for (let i = 0; i < 400 && TABLE_BOUNDS.length; i++) emit(rep(R.range(2, 6), () => C(R.pick(TABLE_BOUNDS))));

// 14. Random code points, then mixtures of everything -----------------------------------------
begin('random');
for (let i = 0; i < 300; i++) emit(rep(R.range(1, 12), () => C(R.chance(0.6) ? pickCp(0, 0xFFFF) : pickCp(0, 0x10FFFF))));
for (let i = 0; i < 200; i++) emit(inContext(rep(R.range(1, 4), () => C(pickCp(0x80, 0x2FFF)))));
begin('mixed');
const ANY = [
  () => caseIt(word()), () => sentence(R.range(1, 5)), () => R.pick(PRECOMPOSED), mark, () => R.pick(CJK_TEXT), () => C(pickCp(0x4E00, 0x9FFF)),
  () => R.pick(HANGUL_TEXT), () => R.pick(EMOJI), unassigned, () => C(R.pick(PRIVATE)), () => R.pick(CONTROLS), () => R.pick(FORMAT),
  () => R.pick(ARABIC), () => R.pick(HEBREW), () => R.pick(SPACES), () => R.pick(ASCII_PUNCT), () => R.pick(UNI_PUNCT), () => R.pick(SYMBOLS),
  () => R.pick(SPECIALS), () => R.pick(NEW_CHARS), () => R.pick(CASE_SPECIAL), () => R.pick(GREEK), () => R.pick(LETTERS_MISC),
  () => 'x'.repeat(R.range(95, 105)), () => ' ', () => ' ', () => ' ',
];
for (let i = 0; i < 1500; i++) emit(rep(R.range(2, 12), () => R.pick(ANY)()));

// ------------------------------------------------------------------- write ----
if (lines.length < 6000) { process.stderr.write(`gen_corpus: only ${lines.length} lines\n`); process.exit(1); }
process.stdout.write(lines.map((s) => JSON.stringify(s)).join('\n') + '\n');
process.stderr.write(`gen_corpus: ${lines.length} lines ${JSON.stringify(sections)}\n`);
