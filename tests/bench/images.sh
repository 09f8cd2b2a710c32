#!/bin/bash
# make bench (and make bench-images alone): the image demo's examples
# (fixtures/shapes, a tiny DiT pipeline) drawn through parity against
# diffusers' own DiTPipeline called bare with the same directory, settings
# and noise (tests/bench/images_bare.py: float32, the contract's steps and
# guidance, torch.Generator("cpu").manual_seed(seed), one thread), side by
# side; the goal is a ratio parity/bare of at most 1.1 (issue 39).
#   warm: milliseconds per example, the model loaded: parity bench
#         --endpoint single on the reference environment (1000 / its
#         examples_per_s: the DENOISE round trip, latents recorded every
#         step, the image and latents back to parity) against the bare
#         pipeline's passes; medians of RUNS (default 5) bench runs and of
#         as many passes. Where this parity's bench does not time an image
#         kind, the executor's own per-example time (the results'
#         forward_ms: noise to image, with its copy to the host) of a run
#         stands in, and the line says so.
#   end to end: parity run of the reference environment (start, load,
#         draw every example, judge, write) against the bare --once (start,
#         load, draw every example), medians of RUNS.
# Needs the Python executor on the venv's interpreter (diffusers).
set -euo pipefail
parity=$1 python=${2:-build/venv/bin/python} runs=${RUNS:-5}
fixture=fixtures/shapes/fixture.yaml
here=$(dirname "$0")
export HF_HUB_OFFLINE=1 OMP_NUM_THREADS=1
"$python" -c 'import diffusers' 2>/dev/null || { echo "bench images: no diffusers in $python (make deps)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# parity must run the fixture at all (the image kind, diffusers): else say why
rc=0
"$parity" run "$fixture" -e reference -q -o "$tmp/run.yaml" --python "$python" >/dev/null 2>"$tmp/run.err" || rc=$?
if [ "$rc" -gt 1 ]; then
    echo "bench images: parity run -e reference exit $rc: $(head -c 300 "$tmp/run.err")" >&2
    exit 1
fi

"$python" "$here/images_bare.py" "$fixture" --passes "$runs" --warmup 1 --threads 1 > "$tmp/bare.txt"
b=$(median < "$tmp/bare.txt")

# warm, parity: one bench run per RUNS, ms per example from examples_per_s
how="parity bench single"
for _ in $(seq "$runs"); do
    rc=0
    "$parity" bench "$fixture" -e reference --endpoint single --warmup 1 --iters 3 -q --python "$python" \
        -o "$tmp/bench.yaml" >/dev/null 2>"$tmp/bench.err" || rc=$?
    eps=$(grep -m1 'examples_per_s:' "$tmp/bench.yaml" 2>/dev/null | awk '{print $2}' || true)
    if [ "$rc" -gt 1 ] || [ -z "$eps" ]; then : > "$tmp/parity.txt"; break; fi
    echo "1000 / $eps" | bc -l >> "$tmp/parity.txt"
done
if [ ! -s "$tmp/parity.txt" ]; then
    # The executor's per-example time in a run (forward_ms of each example
    # that ran): the median example of each run, then the median of runs.
    how="parity run, the executor's forward_ms"
    for _ in $(seq "$runs"); do
        "$parity" run "$fixture" -e reference -q -o "$tmp/run.yaml" --python "$python" >/dev/null 2>&1 || true
        v=$(grep -o 'forward_ms: [0-9.]*' "$tmp/run.yaml" 2>/dev/null | awk '{print $2}' || true)
        if [ -n "$v" ]; then echo "$v" | median; fi
    done > "$tmp/parity.txt"
fi
[ -s "$tmp/parity.txt" ] || { echo "bench images: parity gave no timings ($(head -c 300 "$tmp/bench.err"))" >&2; exit 1; }
p=$(median < "$tmp/parity.txt")
printf 'images (%s, DiT), warm ms per example: %s %.2f, bare DiTPipeline %.2f (medians of %d)\n' \
    "$(basename "$(dirname "$fixture")")" "$how" "$p" "$b" "$runs"
printf 'ratio parity/bare: %.2f (goal <= 1.1)\n' "$(echo "$p / $b" | bc -l)"

# end to end
time_cmd() {
    for _ in $(seq "$runs"); do
        s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
        echo "$e - $s" | bc -l
    done
}
rp=$(time_cmd "$parity" run "$fixture" -e reference -q -o "$tmp/run.yaml" --python "$python" | median)
rb=$(time_cmd "$python" "$here/images_bare.py" "$fixture" --once --threads 1 | median)
printf 'images end to end (start, load, draw all): parity run -e reference %.3f s, bare DiTPipeline %.3f s (medians of %d)\n' \
    "$rp" "$rb" "$runs"
printf 'ratio parity/bare: %.2f\n' "$(echo "$rp / $rb" | bc -l)"
