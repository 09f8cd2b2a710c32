#!/bin/bash
# make bench (part): the review screen's start-up, key-to-redraw and memory.
#  - exec to first frame: parity review --results with a key script that
#    quits at once, against the start-up of a program linked to libtorch
#    (parity-torch --version); medians of 11.
#  - key-to-redraw on a generated 10 000-example fixture: 2000 keys (j) in a
#    script, minus the same script with no keys, divided by 2000.
#  - RSS of the review process (no executor children with --results).
set -euo pipefail
parity=$(realpath "$1") torch=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
echo q > "$tmp/quit"
first=$(for _ in $(seq 11); do PARITY_KEYS="$tmp/quit" secs "$parity" review fixtures/campus-club/fixture.yaml \
    --results tests/data/campus-results.yaml; done | median)
lt=$(for _ in $(seq 11); do secs "$torch" --version; done | median)
printf 'review: exec to first frame (and quit) median %.4f s; libtorch-linked start-up median %.3f s; ratio 1/%.0f (goal <= 1/20)\n' \
    "$first" "$lt" "$(echo "$lt / $first" | bc -l)"
/usr/bin/python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
n = 10000
with open(f"{d}/fixture.yaml", "w") as f:
    f.write("parity: 1\ncontract:\n  task: t\n  model: {path: m.pt}\n  input:\n"
            "    tokenizer: {kind: wordpiece, vocab: v.txt}\n  labels: [a, b]\n"
            "environments:\n  reference: {device: cpu}\n  cand: {device: cpu, dtype: bfloat16, role: twin}\nexamples:\n")
    for i in range(n):
        f.write(f"  - id: e{i}\n    text: \"generated example number {i}\"\n    expect: {{label: a}}\n")
with open(f"{d}/results.yaml", "w") as f:
    f.write('parity_results: 1\nfixture:\n  path: "fixture.yaml"\n  sha256: ""\nlabels: ["a", "b"]\nreference: "reference"\nenvironments:\n')
    for env, dt, delta in (("reference", "float32", 0.0), ("cand", "bfloat16", 0.001)):
        f.write(f'  "{env}":\n    role: null\n    note: null\n    state: "up"\n    labels: ["a", "b"]\n    manifest:\n'
                f'      parity_version: "0.1.0"\n      libtorch_version: "1.13.0"\n      device: "cpu"\n      device_name: "cpu"\n'
                f'      dtype: "{dt}"\n      threads: 1\n      model_sha256: "{"0"*64}"\n      vocab_sha256: "{"0"*64}"\n'
                f'      host: "h"\n      started_at: "2026-12-02T00:00:00Z"\n      load_ms: 1.0\n      first_forward_ms: 1.0\n'
                f'      restarts: 0\n    examples:\n')
        for i in range(n):
            f.write(f'      - id: "e{i}"\n        outcome: "ok"\n        output:\n          dtype: "{dt}"\n'
                    f'          shape: [1, 2]\n          values: [{1.0 + delta}, {-1.0 - delta}]\n        label: "a"\n        forward_ms: 1.0\n')
PY
echo q > "$tmp/none"
{ for _ in $(seq 2000); do echo j; done; echo q; } > "$tmp/keys"
base=$(for _ in 1 2 3; do PARITY_KEYS="$tmp/none" secs "$parity" review "$tmp/fixture.yaml" --results "$tmp/results.yaml"; done | median)
keys=$(for _ in 1 2 3; do PARITY_KEYS="$tmp/keys" secs "$parity" review "$tmp/fixture.yaml" --results "$tmp/results.yaml"; done | median)
printf 'review: 10000 examples: load+judge+first frame %.3f s; key-to-redraw %.3f ms (goal <= 5)\n' \
    "$base" "$(echo "($keys - $base) * 1000 / 2000" | bc -l)"
rss=$(PARITY_KEYS="$tmp/quit" /usr/bin/time -f %M "$parity" review fixtures/campus-club/fixture.yaml \
    --results tests/data/campus-results.yaml 2>&1 >/dev/null | tail -1)
rss10k=$(PARITY_KEYS="$tmp/none" /usr/bin/time -f %M "$parity" review "$tmp/fixture.yaml" --results "$tmp/results.yaml" 2>&1 >/dev/null | tail -1)
printf 'review: RSS %.1f MiB on the demo, %.1f MiB with 10000 examples (goal <= 12 MiB)\n' \
    "$(echo "$rss / 1024" | bc -l)" "$(echo "$rss10k / 1024" | bc -l)"
