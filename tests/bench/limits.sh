#!/bin/bash
# make bench (part): refusing hostile input takes time linear in its size.
# For each kind of input, sizes doubling from 256 KiB to 4 MiB; the median
# of 5 runs at each size, and the ratio of each to the one before (about 2
# for linear time, 4 for quadratic). The inputs:
#  - deep: '[' repeated (libyaml's own loader was quadratic in the depth)
#  - anchors: '- &aN vN' then as many aliases '- *aN' (its anchor table was
#    a list searched for each one)
#  - ids: a fixture whose examples all carry one duplicate id at the end
#  - results: a results file for the demo with that many (unknown) examples,
#    read by check --results (each one was matched by a linear search)
set -euo pipefail
parity=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc -l; }

make_input() { # kind bytes file
    python3 - "$1" "$2" "$3" <<'PY'
import sys
kind, size, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = []
if kind == "deep":
    out = ["[" * size]
elif kind == "anchors":
    n = size // 24
    out = ["parity: 1\nshared:\n"] + ["  - &a%d v%d\n" % (i, i) for i in range(n)] + \
          ["again:\n"] + ["  - *a%d\n" % i for i in range(n)]
elif kind == "ids":
    head = open("fixtures/campus-club/fixture.yaml").read().split("examples:\n")[0] + "examples:\n"
    n = size // 48
    out = [head] + ["  - {id: e%d, text: t, expect: {label: film}}\n" % i for i in range(n)] + \
          ["  - {id: e0, text: t, expect: {label: film}}\n"]
elif kind == "results":
    n = size // 64
    out = ['parity_results: 2\nlabels: ["film", "volunteer", "sports", "music", "social"]\n',
           'environments:\n  "reference":\n    state: "up"\n    examples:\n'] + \
          ['      - {id: "x%d", outcome: "not-evaluated"}\n' % i for i in range(n)]
open(path, "w").write("".join(out))
PY
}

for kind in deep anchors ids results; do
    prev=""
    line="limits: $kind:"
    for kb in 256 512 1024 2048 4096; do
        f="$tmp/$kind-$kb.yaml"
        make_input "$kind" $((kb * 1024)) "$f"
        if [ "$kind" = results ]; then
            t=$(for _ in 1 2 3 4 5; do secs "$parity" check fixtures/campus-club/fixture.yaml --results "$f" -e reference; done | median)
        else
            t=$(for _ in 1 2 3 4 5; do secs "$parity" lint "$f"; done | median)
        fi
        ratio=""
        [ -z "$prev" ] || ratio=$(printf ' (x%.1f)' "$(echo "$t / $prev" | bc -l)")
        line="$line $(printf '%d KiB %.3f s%s,' "$kb" "$t" "$ratio")"
        prev=$t
    done
    echo "${line%,}"
done
