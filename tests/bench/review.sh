#!/bin/bash
# make bench (part): the review screen's start-up, key-to-redraw and memory.
#  - exec to first frame: parity review --results with a key script that
#    quits at once (q during the background load of the results is
#    immediate, so this is the first frame alone), against the start-up of
#    a program linked to libtorch (parity-torch --version); medians of 11.
#  - on a generated 10 000-example fixture: the first frame (goal <= 0.15 s),
#    the full load (a script that waits for the results, then quits: read,
#    checked and judged), and key-to-redraw: 2000 keys (j) in a script,
#    minus the full load, divided by 2000 (goal <= 5 ms).
#  - peak RSS of the review process with everything loaded (no executor
#    children with --results): goals <= 8 MiB on the demo, <= 24 MiB with
#    10 000 examples.
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
# A 10 000-example fixture that loads as strictly as any: the demo's
# contract, model and vocabulary (pinned), generated examples, and results
# from a real run of it (real hashes, token ids, outputs).
cp fixtures/campus-club/{model.pt,vocab.txt} "$tmp/"
/usr/bin/python3 - "$tmp" fixtures/campus-club/fixture.yaml <<'PY'
import sys
d, demo = sys.argv[1], sys.argv[2]
head = open(demo).read().split("\nexamples:\n")[0]
labels = ["film", "volunteer", "sports", "music", "social"]
words = ["film", "screening", "run", "concert", "choir", "volunteer", "beach", "clean", "match", "quiz", "night", "free"]
with open(f"{d}/fixture.yaml", "w") as f:
    f.write(head + "\nexamples:\n")
    for i in range(10000):
        text = " ".join(words[(i * 7 + k * 5) % len(words)] for k in range(3 + i % 9)) + f" {i}"
        f.write(f"  - id: e{i}\n    kind: normal\n    text: \"{text}\"\n"
                f"    expect: {{label: {labels[i % 5]}}}\n    why: generated for make bench\n")
PY
"$parity" run "$tmp/fixture.yaml" -q -o "$tmp/results.yaml" --executor "$torch" >/dev/null
printf 'wait\nq\n' > "$tmp/loaded"
{ echo wait; for _ in $(seq 2000); do echo j; done; echo q; } > "$tmp/keys"
first10k=$(for _ in $(seq 11); do PARITY_KEYS="$tmp/quit" secs "$parity" review "$tmp/fixture.yaml" --results "$tmp/results.yaml"; done | median)
base=$(for _ in 1 2 3; do PARITY_KEYS="$tmp/loaded" secs "$parity" review "$tmp/fixture.yaml" --results "$tmp/results.yaml"; done | median)
keys=$(for _ in 1 2 3; do PARITY_KEYS="$tmp/keys" secs "$parity" review "$tmp/fixture.yaml" --results "$tmp/results.yaml"; done | median)
printf 'review: 10000 examples: first frame median %.3f s (goal <= 0.15); full load (read, checked, judged) %.3f s; key-to-redraw %.3f ms (goal <= 5)\n' \
    "$first10k" "$base" "$(echo "($keys - $base) * 1000 / 2000" | bc -l)"
rss=$(PARITY_KEYS="$tmp/loaded" /usr/bin/time -f %M "$parity" review fixtures/campus-club/fixture.yaml \
    --results tests/data/campus-results.yaml 2>&1 >/dev/null | tail -1)
rss10k=$(PARITY_KEYS="$tmp/loaded" /usr/bin/time -f %M "$parity" review "$tmp/fixture.yaml" --results "$tmp/results.yaml" 2>&1 >/dev/null | tail -1)
printf 'review: peak RSS %.1f MiB on the demo (goal <= 8), %.1f MiB with 10000 examples (goal <= 24)\n' \
    "$(echo "$rss / 1024" | bc -l)" "$(echo "$rss10k / 1024" | bc -l)"
