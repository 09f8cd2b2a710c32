#!/bin/bash
# The review screen in a real terminal (tmux): start on the demo, wait for
# the verdicts, flag an example, write, quit; the fixture must hold the
# decision and nothing else may have changed.
set -euo pipefail
parity=$(realpath "$1") executor=$(realpath "$2")
dir=$(mktemp -d)
session=parity-smoke-$$
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$dir"' EXIT
cp fixtures/campus-club/{fixture.yaml,model.pt,vocab.txt} "$dir"
tmux new-session -d -s "$session" -x 100 -y 30 \
    "cd '$dir' && TERM=xterm-256color PARITY_TORCH='$executor' '$parity' review fixture.yaml --reviewer smoke"
screen() { tmux capture-pane -p -t "$session"; }
for _ in $(seq 1 120); do
    screen | grep -q 'cpu-bf16.*+contract' && break
    sleep 0.5
done
screen | grep -q 'cpu-bf16.*+contract' || { echo "tmux smoke: verdicts never arrived"; screen; exit 1; }
tmux send-keys -t "$session" j j m
sleep 0.5
screen | grep -q 'recorded: bouldering flag' || { echo "tmux smoke: decision not shown"; screen; exit 1; }
tmux send-keys -t "$session" q
sleep 0.5
screen | grep -q 'not yet written' || { echo "tmux smoke: quit did not ask"; screen; exit 1; }
tmux send-keys -t "$session" w
for _ in $(seq 1 20); do tmux has-session -t "$session" 2>/dev/null || break; sleep 0.25; done
if tmux has-session -t "$session" 2>/dev/null; then echo "tmux smoke: did not quit"; screen; exit 1; fi
diff <(grep -v '^ *$' fixtures/campus-club/fixture.yaml) <(grep -v '^ *$' "$dir/fixture.yaml") > "$dir/diff" || true
grep -q '^>       decision: flag' "$dir/diff" || { echo "tmux smoke: decision not written"; cat "$dir/diff"; exit 1; }
# review:, decision, by, at, and what it was made on: env, results_sha256
grep -q '^>       env: "cpu-bf16"' "$dir/diff" || { echo "tmux smoke: the environment shown was not recorded"; cat "$dir/diff"; exit 1; }
[ "$(grep -c '^[<>]' "$dir/diff")" -eq 6 ] || { echo "tmux smoke: more than the review changed"; cat "$dir/diff"; exit 1; }
echo "tmux smoke: 1 passed, 0 failed"
