#!/bin/bash
# make bench (and make bench-search alone): the search demo's texts
# (fixtures/campus-search, the real all-MiniLM-L6-v2 of make deps) encoded
# through parity against a bare Python loop with the same model and
# settings (tests/bench/search_bare.py: AutoModel, the same ids, mean
# pooling, normalize, float32, one thread), side by side; the goal is a
# ratio parity/bare of at most 1.1 (issue 28).
#   warm: milliseconds per example over a pass of the texts, tokenizing done
#         before: parity bench --endpoint single on the reference
#         environment (1000 / its examples_per_s, the executor's round trip
#         included) against the loop's passes; medians of RUNS (default 5)
#         bench runs and of as many passes of the loop;
#   end to end: parity run of the reference environment (start, load,
#         tokenize, encode, judge, write) against the loop's --once (start,
#         load, tokenize, encode), medians of RUNS.
# Needs the Python executor on the venv's interpreter (transformers).
set -euo pipefail
parity=$1 python=${2:-build/venv/bin/python} runs=${RUNS:-5}
fixture=fixtures/campus-search/fixture.yaml
here=$(dirname "$0")
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1
[ -e build/models/all-MiniLM-L6-v2/model.safetensors ] || { echo "bench search: no model (make deps)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# warm, parity: one bench run per RUNS, ms per example from examples_per_s
for _ in $(seq "$runs"); do
    "$parity" bench "$fixture" -e reference --endpoint single --warmup 2 --iters 5 -q --python "$python" \
        -o "$tmp/bench.yaml" >/dev/null
    eps=$(grep -m1 'examples_per_s:' "$tmp/bench.yaml" | awk '{print $2}')
    echo "1000 / $eps" | bc -l
done > "$tmp/parity.txt"
"$python" "$here/search_bare.py" "$fixture" --passes "$runs" --warmup 2 --threads 1 > "$tmp/bare.txt"
p=$(median < "$tmp/parity.txt") b=$(median < "$tmp/bare.txt")
printf 'search (MiniLM, %s), warm ms per example: parity bench single %.3f, bare Python loop %.3f (medians of %d)\n' \
    "$(basename "$(dirname "$fixture")")" "$p" "$b" "$runs"
printf 'ratio parity/bare: %.2f (goal <= 1.1)\n' "$(echo "$p / $b" | bc -l)"

# end to end
time_cmd() {
    for _ in $(seq "$runs"); do
        s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        echo "$e - $s" | bc -l
    done
}
rp=$(time_cmd "$parity" run "$fixture" -e reference -q -o "$tmp/run.yaml" --python "$python" | median)
rb=$(time_cmd "$python" "$here/search_bare.py" "$fixture" --once --threads 1 | median)
printf 'search end to end (start, load, encode all): parity run -e reference %.3f s, bare Python %.3f s (medians of %d)\n' \
    "$rp" "$rb" "$runs"
printf 'ratio parity/bare: %.2f\n' "$(echo "$rp / $rb" | bc -l)"
