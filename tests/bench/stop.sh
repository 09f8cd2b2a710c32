#!/bin/bash
# make bench: how long stopping takes, from the signal or the key to the
# shell prompt with every executor ended (goal: <= 100 ms). Medians of 7:
#   parity run, SIGINT during the executors' start-up, and mid-forward
#     (tests/data/slow.yaml's slow example);
#   the review screen, q pressed while the executors start (tmux).
set -euo pipefail
parity=$(realpath "$1") executor=$(realpath "$2") runs=${RUNS:-7}
dir=$(mktemp -d)
session=parity-bench-quit-$$
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$dir"' EXIT
cp fixtures/campus-club/{fixture.yaml,model.pt,vocab.txt} "$dir"
mkdir "$dir/slow"
sed -e 's#\.\./models/slow\.pt#model.pt#' -e 's#\.\./\.\./fixtures/campus-club/vocab\.txt#vocab.txt#' \
    tests/data/slow.yaml > "$dir/slow/fixture.yaml"
cp tests/models/slow.pt "$dir/slow/model.pt"
cp fixtures/campus-club/vocab.txt "$dir/slow/"
median() { sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
# Seconds from SIGINT to the end of parity and of every executor of the run.
interrupt_after() { # fixture, delay, extra args
    local fx=$1 delay=$2; shift 2
    setsid "$parity" run "$fx" -q -o "$dir/r.yaml" "$@" >/dev/null 2>&1 &
    local pid=$! t0 t1
    sleep "$delay"
    t0=$(now)
    kill -INT -- "-$pid"
    wait "$pid" || true
    while pgrep -f "$(dirname "$fx")/model.pt" >/dev/null; do sleep 0.002; done
    t1=$(now)
    echo "$t1 - $t0" | bc -l
}
startup=$(for _ in $(seq "$runs"); do interrupt_after "$dir/fixture.yaml" 0.15; done | median)
forward=$(for _ in $(seq "$runs"); do interrupt_after "$dir/slow/fixture.yaml" 2 -e patient; done | median)
quit=$(for _ in $(seq "$runs"); do
    tmux new-session -d -s "$session" -x 100 -y 30 \
        "cd '$dir' && TERM=xterm-256color PARITY_TORCH='$executor' '$parity' review fixture.yaml --reviewer bench"
    sleep 0.3
    t0=$(now)
    tmux send-keys -t "$session" q
    while tmux has-session -t "$session" 2>/dev/null || pgrep -f "$dir/model.pt" >/dev/null; do sleep 0.002; done
    t1=$(now)
    echo "$t1 - $t0" | bc -l
done | median)
printf 'stop: run, Ctrl-C during start-up:      median %.0f ms to the prompt, executors ended (goal <= 100)\n' \
    "$(echo "$startup * 1000" | bc -l)"
printf 'stop: run, Ctrl-C mid-forward:          median %.0f ms (goal <= 100)\n' "$(echo "$forward * 1000" | bc -l)"
printf 'stop: review, q during start-up (tmux): median %.0f ms, tmux polling included (goal <= 100)\n' \
    "$(echo "$quit * 1000" | bc -l)"
