#!/bin/bash
# make bench: time `parity run` on the demo against bench-bare, a C++
# program that does only the same model loads and forwards; report medians
# and their ratio (for the default path, where parity-torch --serve forks the
# executors, and for PARITY_FORK_SERVER=0, where parity spawns each), and the
# start-up time of `parity --version` (no libtorch).
# Timings are wall clock on a shared machine: read the medians, not one run.
set -euo pipefail
parity=$1 bare=$2 runs=${RUNS:-9}
fixture=fixtures/campus-club/fixture.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$parity" run "$fixture" -q -o "$tmp/results.yaml" >/dev/null
# The ids parity sent for the examples it ran in the reference environment.
awk '/^  "reference":/{r=1} /^  "cpu-bf16":/{r=0}
     r && /outcome: "ok"/{ok=1} r && /outcome: "rejected"/{ok=0}
     r && ok && /token_ids:/{gsub(/.*\[|\]|,/,""); print; ok=0}' "$tmp/results.yaml" > "$tmp/ids.txt"
[ -s "$tmp/ids.txt" ] || { echo "bench: no token ids found" >&2; exit 1; }

median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
time_cmd() { # prints seconds for each of $runs runs of "$@"
    for _ in $(seq "$runs"); do
        s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        echo "$e - $s" | bc -l
    done
}
# One run: "wall cpu" seconds, cpu = user + system of the command and of
# every child it waited for (parity's executors).
wall_cpu() { /usr/bin/time -f '%e %U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1, $2 + $3}'; }
# The three alternate, so that the machine's moods fall on all alike.
for _ in $(seq "$runs"); do
    wall_cpu "$parity" run "$fixture" -q -o "$tmp/r.yaml" >> "$tmp/parity.txt"
    wall_cpu "$bare" fixtures/campus-club/model.pt "$tmp/ids.txt" float32 bfloat16 >> "$tmp/bare.txt"
    PARITY_FORK_SERVER=0 wall_cpu "$parity" run "$fixture" -q -o "$tmp/r.yaml" >> "$tmp/spawn.txt"
done
p=$(cut -d' ' -f1 "$tmp/parity.txt" | median) pc=$(cut -d' ' -f2 "$tmp/parity.txt" | median)
b=$(cut -d' ' -f1 "$tmp/bare.txt" | median) bc_=$(cut -d' ' -f2 "$tmp/bare.txt" | median)
s=$(cut -d' ' -f1 "$tmp/spawn.txt" | median) sc=$(cut -d' ' -f2 "$tmp/spawn.txt" | median)
v=$(time_cmd "$parity" --version | median)
printf 'parity run (demo, 2 environments): median %.3f s wall, %.3f s CPU over %d runs\n' "$p" "$pc" "$runs"
printf 'bare libtorch loads + forwards:    median %.3f s wall, %.3f s CPU (alternating with parity)\n' "$b" "$bc_"
printf 'ratio parity/bare: %.2f wall (goal <= 0.75, environments side by side), %.2f CPU (goal <= 1.1)\n' "$(echo "$p / $b" | bc -l)" \
    "$(echo "$pc / $bc_" | bc -l)"
printf 'without the fork server (PARITY_FORK_SERVER=0): median %.3f s wall, %.3f s CPU: %.2f wall, %.2f CPU of bare\n' \
    "$s" "$sc" "$(echo "$s / $b" | bc -l)" "$(echo "$sc / $bc_" | bc -l)"
printf 'parity --version:                  median %.4f s\n' "$v"
