#!/usr/bin/env node
'use strict';
// make bench (part): the Hugging Face `tokenizers` library (the npm binding,
// build/npm) measured as tests/bench/tok_bench.c measures parity, with the
// same output lines (tests/bench/tokenizers.sh prints the ratios):
//
//   RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false \
//     node tests/bench/tok_bench.js TOKENIZER_JSON LOADS STRINGS.jsonl...
//
//   rss_before_kib, load_peak_kib (VmHWM after the first Tokenizer.fromFile
//   minus VmRSS before it, the peak reset through /proc/self/clear_refs
//   where allowed), rss_loaded_kib, load_s (median of LOADS fromFile), and
//   per file "encode FILE BYTES STRINGS SECONDS REPS": every string encoded
//   (encodeBatch in chunks of 1 024, addSpecialTokens, one thread), REPS
//   times, at least 1 s in all. BYTES counts UTF-8 bytes.

const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const T = require(process.env.PARITY_TOKENIZERS || path.join(ROOT, 'build', 'npm', 'node_modules', 'tokenizers'));

const statusKib = (field) => {
  const m = fs.readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${field}\\s+(\\d+)`, 'm'));
  return m ? Number(m[1]) : -1;
};
const now = () => Number(process.hrtime.bigint()) / 1e9;

async function main() {
  const [file, loadsArg, ...lists] = process.argv.slice(2);
  const loads = Math.max(1, Number(loadsArg) || 1);
  try { fs.writeFileSync('/proc/self/clear_refs', '5'); } catch (e) { /* not allowed: VmHWM since start */ }
  const before = statusKib('VmRSS:');
  let t0 = now();
  let tok = T.Tokenizer.fromFile(file);
  const times = [now() - t0];
  const peak = statusKib('VmHWM:'), loaded = statusKib('VmRSS:');
  console.log(`rss_before_kib ${before}\nload_peak_kib ${peak - before}\nrss_loaded_kib ${loaded - before}`);
  for (let i = 1; i < loads; i++) {
    tok = null;
    t0 = now();
    tok = T.Tokenizer.fromFile(file);
    times.push(now() - t0);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  console.log(`load_s ${(times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2).toFixed(6)}`);
  for (const list of lists) {
    const strs = fs.readFileSync(list, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
    const bytes = strs.reduce((a, s) => a + Buffer.byteLength(s, 'utf8'), 0);
    let reps = 0, t;
    t0 = now();
    do {
      for (let i = 0; i < strs.length; i += 1024) await tok.encodeBatch(strs.slice(i, i + 1024), { addSpecialTokens: true });
      reps++;
      t = now() - t0;
    } while (t < 1.0 && reps < 1000);
    console.log(`encode ${list} ${bytes} ${strs.length} ${t.toFixed(6)} ${reps}`);
  }
}
main().catch((e) => { console.log(`refused ${e && e.message}`); });
