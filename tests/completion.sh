#!/bin/bash
# Bash completion (src/completion/parity.bash) driven as bash drives it:
# COMP_WORDS/COMP_CWORD set, _parity called, COMPREPLY read. parity on PATH is
# the one just built. tests/completion.sh PARITY
set -uo pipefail
parity=$(realpath "$1")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ln -s "$parity" "$dir/parity"
export PATH="$dir:$PATH"
source src/completion/parity.bash
fails=0
# complete WORDS... : the last word is the one being completed.
complete_line() {
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _parity
    ((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
expect() { # expect WANT WORDS...
    local want=$1
    shift
    local got
    got=$(complete_line "$@")
    if [[ $got != "$want" ]]; then
        echo "completion of '$*': got '$got', want '$want'"
        fails=$((fails + 1))
    fi
}
fx=fixtures/campus-club/fixture.yaml
expect "decide " parity "de"
expect "check " parity "ch"
expect "--python " parity run $fx "--py"
expect "--format " parity check $fx "--fo"
expect "" parity run $fx "--fo"
expect "cpu-bf16 " parity run $fx -e "cpu"
expect "cpu-bf16 reference " parity check $fx --env ""
expect "bouldering " parity decide $fx "bo"
expect "json " parity check $fx --format "j"
expect "needs-rule " parity decide $fx bouldering --decision "ne"
expect "light " parity review $fx --theme "li"
expect "$fx " parity run "fixtures/campus-club/fix"
expect "merge " parity "me"
expect "--shard " parity run $fx "--sh"
expect "" parity check $fx "--sh"
expect "" parity run $fx --shard ""
expect "tests/data/campus-results.yaml " parity merge $fx "tests/data/campus-res"
expect "train-step: " parity bench $fx --endpoint "tr"
expect "batch: single train-step: " parity bench $fx --endpoint ""
expect "" parity bench $fx --budget ""
# Every command is offered with nothing typed.
got=$(complete_line parity "")
for c in run merge check review decide lint bench; do
    [[ " $got " == *" $c "* ]] || { echo "completion offers no '$c' ($got)"; fails=$((fails + 1)); }
done
# A fixture that does not load: nothing offered, nothing printed.
echo "not: [a fixture" > "$dir/bad.yaml"
out=$(complete_line parity run "$dir/bad.yaml" -e "" 2>&1)
[[ -z ${out// /} ]] || { echo "a bad fixture made completion say: $out"; fails=$((fails + 1)); }
if ((fails)); then echo "completion: $fails failed"; exit 1; fi
echo "completion: passed"
