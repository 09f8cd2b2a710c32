#!/bin/bash
# The accelerator-host workflow of README "On a TPU VM", as far as this
# machine goes (it has no TPU: the host's environment runs on the CPU through
# the Python executor, and is named for what it is).
#
#   on the host: a copy of the sources, `make parity` with libtorch pointing
#     nowhere (no parity-torch is built, parity does not link libtorch),
#     `parity run -e host --python ...`, and the live review there;
#   at home: the results copied beside another copy of the fixture, named in
#     it (`host: {results: ...}`), `parity check` (the reference and the twin
#     run here with libtorch) and `parity review --results`.
#
#   tests/host_workflow.sh PARITY PARITY_TORCH     (the home build)
set -euo pipefail
parity=$(realpath "$1") executor=$(realpath "$2")
python=/usr/bin/python3
root=$(pwd)
dir=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
fail() { echo "host workflow: $*"; exit 1; }

# The host's checkout: the sources git knows (tracked, or new and not
# ignored), as a clone would have them; no build tree.
mkdir "$dir/src"
if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard -- Makefile src include fixtures |
        xargs -0 -I{} sh -c '[ -e "{}" ] && echo "{}"' | tar -cf - -T - | tar -xf - -C "$dir/src"
else
    cp -r Makefile src include fixtures "$dir/src/"
fi
[ ! -e "$dir/src/build" ] || fail "the copy has a build tree"
# A make of its own: nothing of the calling make comes along (make puts its
# command-line variables, SANITIZE=..., in the environment too).
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE make -s -C "$dir/src" parity SANITIZE= LIBTORCH=/nonexistent/libtorch \
    > "$dir/build.log" 2>&1 || { cat "$dir/build.log"; fail "make parity failed"; }
host="$dir/src/build/parity"
[ -x "$host" ] || fail "make parity built no parity"
[ -f "$dir/src/build/parity_torch.py" ] || fail "make parity did not put the Python executor beside parity"
[ ! -e "$dir/src/build/parity-torch" ] && [ -z "$(find "$dir/src/build" -name 'parity-torch*')" ] ||
    fail "make parity built the libtorch executor"
! ldd "$host" | grep -q torch || fail "parity links libtorch"

# The host's fixture: the demo's, with the host's environment added.
mkdir "$dir/host-run"
cp "$dir"/src/fixtures/campus-club/{fixture.yaml,model.pt,vocab.txt} "$dir/host-run/"
sed -i '/^environments:$/a\  host:\n    executor: python\n    device: cpu\n    dtype: bfloat16\n    note: the Python executor on the CPU, standing in for a TPU host' \
    "$dir/host-run/fixture.yaml"
cd "$dir/host-run"
PARITY_TORCH=/nonexistent "$host" run fixture.yaml -e host --python "$python" -q -o host-results.yaml > run.log 2>&1 ||
    { cat run.log; fail "parity run on the host failed"; }
grep -q '^    manifest:' host-results.yaml || fail "no manifest in the host's results"
grep -q '      executor: "python"' host-results.yaml || fail "the results do not say the Python executor ran"
grep -q '      runtime: "CPython ' host-results.yaml || fail "the results do not name the interpreter"
# The live review on the host, off-screen: the run finishes, the screen shows it.
printf 'wait\ndump host\nq\n' > keys
PARITY_TORCH=/nonexistent PARITY_KEYS=keys PARITY_DUMP_DIR=. "$host" review fixture.yaml -e host --python "$python" \
    > review.log 2>&1 || { cat review.log; fail "the review on the host failed"; }
grep -q 'host' host || fail "the host's review screen does not show the host environment"

# Home: another copy of the fixture, the results copied beside it and named.
mkdir "$dir/home"
cp "$root"/fixtures/campus-club/{fixture.yaml,model.pt,vocab.txt} "$dir/home/"
cp "$dir/host-run/host-results.yaml" "$dir/home/"
sed -i '/^environments:$/a\  host: {results: host-results.yaml, dtype: bfloat16, note: recorded on the host}' "$dir/home/fixture.yaml"
cd "$dir/home"
status=0
PARITY_TORCH="$executor" "$parity" check fixture.yaml --format json > check.json 2> check.err || status=$?
[ "$status" -eq 0 ] || { cat check.err; fail "check at home: exit $status, want 0 (the demo meets its contract)"; }
"$python" - check.json <<'EOF' || fail "check at home did not judge the host's results"
import json, sys
d = json.load(open(sys.argv[1]))
e = {x["name"]: x for x in d["environments"]}
assert e["host"]["origin"] == "file", e["host"]["origin"]
assert e["host"]["met"] is True, e["host"]
assert e["reference"]["origin"] == "run" and e["cpu-bf16"]["origin"] == "run"
EOF
# The host's bfloat16 CPU run through Python is the twin's run through
# libtorch, bit for bit: the same logits in both files.
PARITY_TORCH="$executor" "$parity" run fixture.yaml -e cpu-bf16 -q -o twin.yaml > /dev/null
diff <(grep 'values:' twin.yaml) <(grep 'values:' host-results.yaml) > /dev/null ||
    fail "the Python executor's bfloat16 logits differ from parity-torch's"
# Review at home with the host's own fixture and --results: the host's
# environment comes from the file (-e host: nothing runs here).
cp "$dir/host-run/fixture.yaml" fixture.yaml
printf 'dump home\nq\n' > keys
PARITY_TORCH=/nonexistent PARITY_KEYS=keys PARITY_DUMP_DIR=. "$parity" review fixture.yaml --results host-results.yaml \
    -e host > review.log 2>&1 || { cat review.log; fail "review --results at home failed"; }
grep -q 'host' home || fail "the home review does not show the host's results"
# The TPU round trip with the README's own commands, as printed ("On a TPU
# VM", "After the machine is gone"): the fixture's `tpu` environment runs
# through the Python executor on the PrivateUse1 test device (the stand-in
# for torch_tpu: --backend-lib for --backend-module), its numerics broken
# (PARITY_TESTDEV_NUMERICS=scale:-0.2, logits off by far more than the
# tolerance, labels mostly kept); the results carried home are judged
# beside the reference and the twin run there.
testdev=${PARITY_TESTDEV:-$root/build/torch/libparity_testdev.so}
[ -f "$testdev" ] || fail "no test device library at $testdev (make builds it)"
# The README's commands of one section (from the line matching $1 to the
# next one matching $2), one a line, continuations joined, comments
# dropped, with this machine's stand-ins for what only a TPU host has.
readme_cmds() {
    awk -v from="$1" -v to="$2" '$0 ~ from {on=1; next} on && $0 ~ to {on=0} on' "$root/README.md" |
        awk '/^    build\/parity/ || cont { line = line $0; cont = /\\$/; if (cont) { sub(/\\$/, "", line); next }
                                             print line; line = "" }' |
        sed -e 's/^ *//' -e 's/  *# .*$//' -e 's/  */ /g' \
            -e 's|^build/parity|"$parity_bin"|' -e 's|path/to/fixture.yaml|fixture.yaml|' \
            -e 's|fixtures/campus-club/fixture.yaml|fixture.yaml|' \
            -e "s|\"\$(which python3)\"|$python|" -e "s|--backend-module torch_tpu|--backend-lib $testdev|"
}
mkdir "$dir/tpu-host" "$dir/tpu-home"
tpu_env='  tpu:\n    executor: python\n    device: privateuseone\n    dtype: float32\n    role: candidate\n    note: the test device of tests/backend on the Python executor, standing in for a TPU'
for d in tpu-host tpu-home; do
    cp "$root"/fixtures/campus-club/{fixture.yaml,model.pt,vocab.txt} "$dir/$d/"
    # Last, as the README's fixture has it: the review must open on it
    # because it was carried home, not because it comes first.
    sed -i "/^examples:\$/i\\$tpu_env" "$dir/$d/fixture.yaml"
done
readme_cmds '^### On a TPU VM' '^## ' > "$dir/tpu-cmds"
host_run=$(grep -m1 ' run fixture.yaml -e tpu ' "$dir/tpu-cmds") || { cat "$dir/tpu-cmds"; fail "the README's host run was not found"; }
host_review=$(grep -m1 ' review fixture.yaml -e tpu ' "$dir/tpu-cmds") || fail "the README's live review was not found"
cd "$dir/tpu-host"
export PARITY_TESTDEV_NUMERICS=scale:-0.2
PARITY_TORCH=/nonexistent parity_bin=$host eval "$host_run" > run.log 2>&1 || { cat run.log; fail "the README's host run: $host_run"; }
[ -f tpu-results.yaml ] || fail "the README's host run wrote no tpu-results.yaml"
grep -q '      device: "privateuseone"' tpu-results.yaml || fail "the tpu's results do not record its device"
# The live review there, -e tpu alone.
printf 'wait\ndump live\nq\n' > keys
PARITY_TORCH=/nonexistent PARITY_KEYS=keys PARITY_DUMP_DIR=. parity_bin=$host eval "$host_review" > review.log 2>&1 ||
    { cat review.log; fail "the README's live review: $host_review"; }
grep -q 'tpu' live || fail "the live review does not show the tpu"
# Without the reference there, the broken device is never "pass": the
# screen says nothing was compared, and never waits for the others.
grep -q 'not compared: no reference' live || { cat live; fail "the live review does not say it compared nothing"; }
! grep -q 'running…' live || { cat live; fail "the live review waits for environments that will not run"; }
unset PARITY_TESTDEV_NUMERICS

# Home: the same fixture, the file carried home beside it.
cd "$dir/tpu-home"
cp "$dir/tpu-host/tpu-results.yaml" .
status=0
PARITY_TORCH="$executor" "$parity" check fixture.yaml --results tpu-results.yaml --format json > check.json 2> check.err ||
    status=$?
[ "$status" -eq 1 ] || { cat check.err; fail "check --results at home: exit $status, want 1 (the broken device fails)"; }
"$python" - check.json <<'EOF' || fail "check at home did not catch the broken device beside the reference and the twin"
import json, sys
d = json.load(open(sys.argv[1]))
e = {x["name"]: x for x in d["environments"]}
assert e["tpu"]["origin"] == "file" and e["tpu"]["met"] is False, e["tpu"]
# The README's home command runs the reference and the twin here.
for n in ("reference", "cpu-bf16"):
    assert e[n]["origin"] == "run" and e[n]["met"] is True, e[n]
bad = {k: v for k, v in e["tpu"]["counts"].items() if v and k in ("numeric-drift", "wrong-label")}
assert bad, e["tpu"]["counts"]
EOF
# One environment down is one environment down: at home the tpu's
# interpreter is not there, so `run` puts the tpu down at its stage and
# still runs and writes the reference and the twin (exit 3).
status=0
PARITY_TORCH="$executor" "$parity" run fixture.yaml --python "$dir/no-such-python" -q -o all.yaml > all.log 2>&1 ||
    status=$?
[ "$status" -eq 3 ] || { cat all.log; fail "run with the tpu's interpreter missing: exit $status, want 3"; }
grep -q 'tpu.*DOWN at load' all.log || { cat all.log; fail "run does not say the tpu is down at load"; }
for n in reference cpu-bf16; do
    grep -q "^  \"$n\":" all.yaml || fail "run with the tpu down did not write $n's results"
done
# The same file checked alone (-e tpu): no reference, so nothing is
# compared; a broken device is never a pass, the contract is not met
# (exit 3) and no last good configuration is recorded.
rm -f .fixture.yaml.parity-history.yaml
status=0
"$parity" check fixture.yaml --results tpu-results.yaml -e tpu > alone.out 2>&1 || status=$?
[ "$status" -eq 3 ] || { cat alone.out; fail "check -e tpu alone: exit $status, want 3"; }
grep -q 'not compared: no reference' alone.out || { cat alone.out; fail "check -e tpu alone does not say it compared nothing"; }
! grep -q 'contract met' alone.out || { cat alone.out; fail "check -e tpu alone says the contract is met"; }
[ ! -e .fixture.yaml.parity-history.yaml ] || ! grep -q 'tpu' .fixture.yaml.parity-history.yaml ||
    fail "check -e tpu alone recorded a last good configuration"
# Each of the README's home commands, as printed.
readme_cmds '^### On a TPU VM' '^## ' | grep -e '--results tpu-results.yaml' > home-cmds || true
readme_cmds '^## After the machine is gone' '^A \*\*report' >> home-cmds || true
[ "$(wc -l < home-cmds)" -ge 5 ] || { cat home-cmds; fail "the README's home commands were not all found"; }
printf 'dump home\nq\n' > keys
while IFS= read -r cmd; do
    status=0
    PARITY_TORCH="$executor" PARITY_KEYS=keys PARITY_DUMP_DIR=. parity_bin=$parity eval "$cmd" \
        > cmd.log 2>&1 < /dev/null || status=$?
    case "$cmd" in
        *' check '*) want=1 ;; # the device is broken: the contract is not met
        *) want=0 ;;
    esac
    [ "$status" -eq "$want" ] || { cat cmd.log; fail "the README's '$cmd' at home: exit $status, want $want"; }
done < home-cmds
# The review opened on what was carried home, with the reference beside it.
grep -q 'tpu (privateuseone float32)' home || { cat home; fail "the home review does not open on the tpu"; }
grep -q 'reference (cpu float32)' home || { cat home; fail "the home review has no reference beside the tpu"; }
[ -f report.html ] && [ -f tpu-run.tar.gz ] && [ -f repro/README.md ] ||
    fail "the README's report, export and repro wrote nothing"
grep -q 'numeric-drift\|wrong-label' report.html || fail "the report does not show the device's failure"
# The bundles' own printed commands, as printed (4-space indented lines of
# their README.md), inside each bundle: the placeholders for what only the
# host has become this machine's stand-ins; nothing here needs the
# original fixture's directory.
run_printed() { # DIR: each command's exit status is checked against what its README says
    (cd "$1" && grep -E '^    (parity|sha256sum) ' README.md | sed 's/^    //') > "$1.cmds"
    [ -s "$1.cmds" ] || fail "$1/README.md prints no command"
    while IFS= read -r cmd; do
        cmd=${cmd//PYTHON/$python}; cmd=${cmd//LIB/$testdev}
        status=0
        (cd "$1" && PARITY_TORCH="$executor" PARITY_KEYS="$dir/tpu-home/keys" PARITY_DUMP_DIR=. \
            eval "${cmd/#parity /\"\$parity\" }") > "$1.log" 2>&1 < /dev/null || status=$?
        # The recorded tpu is the broken device: judged, it fails (1);
        # run again on a sound one, it passes; everything else exits 0.
        want=0
        case "$cmd" in *' check '*'observed.yaml'*|*' check '*'tpu-results.yaml'*) want=1 ;; esac
        [ "$status" -eq "$want" ] || { cat "$1.log"; fail "$1/README.md's '$cmd': exit $status, want $want"; }
    done < "$1.cmds"
}
mkdir export && tar -xzf tpu-run.tar.gz -C export
run_printed "$dir/tpu-home/repro"
run_printed "$dir/tpu-home/export/tpu-run"
grep -q ' run fixture.yaml -e tpu ' repro.cmds || fail "the repro does not say how to run the tpu again"
echo "host workflow: the repro's and the export's printed commands, as printed: passed"
echo "host workflow: the README's TPU round trip (host run on the test device, check, review, report, export, repro at home): passed"
echo "host workflow: make parity without libtorch, run with the Python executor, import, check, review: passed"
