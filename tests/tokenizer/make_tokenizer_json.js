#!/usr/bin/env node
'use strict';
// Write the tokenizer.json that Python transformers' BertTokenizerFast saves
// for a BERT WordPiece vocabulary (convert_slow_tokenizer's BertConverter, with
// tokenize_chinese_chars true and strip_accents unset):
//
//   node tests/tokenizer/make_tokenizer_json.js VOCAB_TXT LOWERCASE(true|false) > tokenizer.json
//
// The vocabulary is read as BERT's load_vocab reads it: one token a line, the
// trailing "\n" removed, id = line number from 0 (a repeated token keeps its
// last id). The output is the library's own serialization (serde_json pretty:
// two-space indent, every array expanded, keys in this order, vocab in id
// order), plus a final newline. Needs no library; deterministic.

const fs = require('fs');

function usage(msg) {
  if (msg) process.stderr.write(msg + '\n');
  process.stderr.write('usage: node tests/tokenizer/make_tokenizer_json.js VOCAB_TXT true|false > tokenizer.json\n');
  process.exit(2);
}
if (process.argv.length !== 4) usage();
const [vocabPath, lc] = process.argv.slice(2);
if (lc !== 'true' && lc !== 'false') usage(`LOWERCASE must be true or false, not ${JSON.stringify(lc)}`);
const lowercase = lc === 'true';

let text;
try { text = fs.readFileSync(vocabPath, 'utf8'); } catch (e) { usage(`cannot read ${vocabPath}: ${e.message}`); }
const lines = text.split('\n');
if (lines.length && lines[lines.length - 1] === '') lines.pop(); // the file's final newline
const vocab = new Map();
lines.forEach((tok, id) => {
  if (vocab.has(tok)) process.stderr.write(`warning: ${JSON.stringify(tok)} repeated; id ${id} wins\n`);
  vocab.set(tok, id);
});
const byId = [...vocab.entries()].sort((a, b) => a[1] - b[1]);

const UNK = '[UNK]', CLS = '[CLS]', SEP = '[SEP]';
for (const t of [UNK, CLS, SEP]) if (!vocab.has(t)) usage(`${vocabPath} has no ${t}`);

const added = ['[PAD]', UNK, CLS, SEP, '[MASK]']
  .filter((t) => vocab.has(t))
  .map((t) => ({ id: vocab.get(t), content: t, single_word: false, lstrip: false, rstrip: false,
    normalized: false, special: true }))
  .sort((a, b) => a.id - b.id);

const special = (id, typeId) => ({ SpecialToken: { id, type_id: typeId } });
const seq = (id, typeId) => ({ Sequence: { id, type_id: typeId } });
const specialTokens = {};
for (const t of [CLS, SEP].sort()) specialTokens[t] = { id: t, ids: [vocab.get(t)], tokens: [t] };

const json = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: added,
  normalizer: {
    type: 'BertNormalizer',
    clean_text: true,
    handle_chinese_chars: true,
    strip_accents: null,
    lowercase,
  },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: {
    type: 'TemplateProcessing',
    single: [special(CLS, 0), seq('A', 0), special(SEP, 0)],
    pair: [special(CLS, 0), seq('A', 0), special(SEP, 0), seq('B', 1), special(SEP, 1)],
    special_tokens: specialTokens,
  },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: {
    type: 'WordPiece',
    unk_token: UNK,
    continuing_subword_prefix: '##',
    max_input_chars_per_word: 100,
    vocab: Object.fromEntries(byId),
  },
};
// Object.fromEntries would put integer-like keys ("0", "12") first; build the
// vocab text by hand to keep id order.
const vocabText = byId.length
  ? '{\n' + byId.map(([t, id]) => `      ${JSON.stringify(t)}: ${id}`).join(',\n') + '\n    }'
  : '{}';
json.model.vocab = '\u0000VOCAB\u0000';
const out = JSON.stringify(json, null, 2).replace(JSON.stringify('\u0000VOCAB\u0000'), () => vocabText);
process.stdout.write(out + '\n');
