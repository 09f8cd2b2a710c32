#!/bin/bash
# make bench: the Python executor against parity-torch on the demo.
#   start-up: spawn to READY (interpreter + import torch + model load, or
#             libtorch's start-up + model load), float32 on the CPU;
#   parity run end to end, both environments, with each executor.
# Medians of RUNS (default 7) on a shared machine: read medians and ratios.
set -euo pipefail
parity=$1 executor=$2 python=${PARITY_PYTHON:-/usr/bin/python3} runs=${RUNS:-7}
script="$(dirname "$parity")/parity_torch.py"
demo=fixtures/campus-club
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Seconds from spawn to the READY frame, once per run, for one executor.
ready_times() {
    "$python" - "$runs" "$@" <<'PY'
import os, struct, subprocess, sys, time
runs, argv = int(sys.argv[1]), sys.argv[2:]
for _ in range(runs):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    hdr = p.stdout.read(8)
    ftype, n = struct.unpack("<II", hdr)
    p.stdout.read(n)
    t = time.perf_counter() - t0
    if ftype != 0x59444552:
        sys.exit("not READY: %x" % ftype)
    p.stdin.close(); p.wait()
    print(t)
PY
}
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
time_cmd() {
    for _ in $(seq "$runs"); do
        s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        echo "$e - $s" | bc -l
    done
}

args=(--model "$demo/model.pt" --device cpu --dtype float32 --threads 1)
c=$(ready_times "$executor" "${args[@]}" | median)
p=$(ready_times "$python" "$script" "${args[@]}" | median)
printf 'start-up to READY, parity-torch:     median %.3f s over %d runs\n' "$c" "$runs"
printf 'start-up to READY, parity_torch.py:  median %.3f s over %d runs\n' "$p" "$runs"
printf 'ratio python/libtorch: %.2f\n' "$(echo "$p / $c" | bc -l)"

# The demo with both environments on the Python executor, beside the model.
cp "$demo"/{model.pt,vocab.txt} "$tmp/"
sed 's/^    device: cpu$/    device: cpu\n    executor: python/' "$demo/fixture.yaml" > "$tmp/fixture.yaml"
grep -q 'executor: python' "$tmp/fixture.yaml" || { echo "bench: no python environments" >&2; exit 1; }
cp "$demo/fixture.yaml" "$tmp/libtorch.yaml"
"$parity" run "$tmp/fixture.yaml" -q -o "$tmp/check.yaml" --python "$python" >/dev/null
rc=$(time_cmd "$parity" run "$tmp/libtorch.yaml" -q -o "$tmp/r1.yaml" --executor "$executor" | median)
rp=$(time_cmd "$parity" run "$tmp/fixture.yaml" -q -o "$tmp/r2.yaml" --python "$python" | median)
printf 'parity run (demo, 2 environments), libtorch: median %.3f s over %d runs\n' "$rc" "$runs"
printf 'parity run (demo, 2 environments), python:   median %.3f s over %d runs\n' "$rp" "$runs"
printf 'ratio python/libtorch: %.2f\n' "$(echo "$rp / $rc" | bc -l)"
