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
trap 'rm -rf "$dir"' EXIT
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
echo "host workflow: make parity without libtorch, run with the Python executor, import, check, review: passed"
