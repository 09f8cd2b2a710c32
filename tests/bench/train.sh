#!/bin/bash
# make bench: parity bench --endpoint train-step:N on tests/data/train.yaml
# (the demo with contract.train): the warm training step (forward,
# cross-entropy, backward, SGD update, copy of the loss to the host) as the
# executor times it, p50 over steps 2..N, for parity-torch and
# parity_torch.py in float32 and bfloat16 on the CPU, 1 thread.
# Medians of RUNS (default 5) runs' p50 on a shared machine: read medians
# and ratios.
set -euo pipefail
parity=$1 executor=$2 python=${PARITY_PYTHON:-/usr/bin/python3} runs=${RUNS:-5} steps=${STEPS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s|\.\./\.\./fixtures/|$PWD/fixtures/|" tests/data/train.yaml > "$tmp/libtorch.yaml"
sed 's/^    device: cpu$/    device: cpu\n    executor: python/' "$tmp/libtorch.yaml" > "$tmp/python.yaml"
grep -q 'executor: python' "$tmp/python.yaml" || { echo "bench: no python environments" >&2; exit 1; }
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# p50_ms of environment $2's train-step record in results file $1.
p50() {
    awk -v env="  \"$2\":" '$0 == env {in_env = 1; next} /^  "/ {in_env = 0}
        in_env && /- endpoint: "train-step:/ {in_rec = 1; next} in_rec && /p50_ms:/ {print $2; exit}' "$1"
}
declare -A med
for ex in libtorch python; do
    for env in reference cpu-bf16; do : > "$tmp/$ex-$env"; done
    for _ in $(seq "$runs"); do
        "$parity" bench "$tmp/$ex.yaml" --endpoint "train-step:$steps" -o "$tmp/r.yaml" \
            --executor "$executor" --python "$python" >/dev/null
        for env in reference cpu-bf16; do p50 "$tmp/r.yaml" "$env" >> "$tmp/$ex-$env"; done
    done
    for env in reference cpu-bf16; do
        med[$ex-$env]=$(median < "$tmp/$ex-$env")
        printf 'train step (%d steps, 5 examples), %-8s %-9s median p50 %.2f ms over %d runs\n' "$steps" "$ex" \
            "$env" "${med[$ex-$env]}" "$runs"
    done
done
printf 'ratio python/libtorch, float32: %.2f; bfloat16/float32, libtorch: %.2f\n' \
    "$(echo "${med[python-reference]} / ${med[libtorch-reference]}" | bc -l)" \
    "$(echo "${med[libtorch-cpu-bf16]} / ${med[libtorch-reference]}" | bc -l)"
