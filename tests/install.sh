#!/bin/bash
# make install into a DESTDIR, then the installed parity on a copy of the
# demo, from another directory: it finds parity-torch and the Python executor
# in ../libexec/parity and the themes in ../share/parity/themes, relative to
# itself (nothing of the source tree is on its path). Then make uninstall:
# nothing left. Run from the repository root after `make`.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "install: $*"; exit 1; }
prefix=/opt/parity-test
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE make -s "$@" SANITIZE= DESTDIR="$dir/root" PREFIX=$prefix; }
mk install > "$dir/install.log" 2>&1 || { cat "$dir/install.log"; fail "make install failed"; }
root="$dir/root$prefix"
for f in bin/parity libexec/parity/parity-torch libexec/parity/parity_torch.py libexec/parity/parity_train.py share/parity/themes/light.theme \
         share/man/man1/parity.1 share/man/man5/parity-results.5 share/man/man5/parity-fixture.5 \
         share/bash-completion/completions/parity; do
    [ -f "$root/$f" ] || fail "$f not installed"
done
[ -x "$root/bin/parity" ] && [ -x "$root/libexec/parity/parity-torch" ] || fail "programs not executable"
mkdir "$dir/work"
cp fixtures/campus-club/{fixture.yaml,model.pt,vocab.txt} "$dir/work/"
cd "$dir/work"
env -u PARITY_TORCH -u PARITY_BIN "$root/bin/parity" run fixture.yaml -q -o results.yaml > run.log 2>&1 ||
    { cat run.log; fail "the installed parity could not run the demo"; }
grep -q 'executor: "libtorch"' results.yaml || fail "no libtorch executor in the results"
# The Python executor, from libexec.
sed 's/^    device: cpu$/    device: cpu\n    executor: python/' fixture.yaml > py.yaml
env -u PARITY_TORCH "$root/bin/parity" run py.yaml -e reference -q -o py-results.yaml --python /usr/bin/python3 \
    > py.log 2>&1 || { cat py.log; fail "the installed parity could not run the Python executor"; }
grep -q 'executor: "python"' py-results.yaml || fail "no python executor in the results"
# An installed theme, by name, in the review screen (off-screen).
printf 'dump screen\nq\n' > keys
PARITY_KEYS=keys PARITY_DUMP_DIR=. "$root/bin/parity" review fixture.yaml --results results.yaml --theme light \
    > review.log 2>&1 || { cat review.log; fail "the installed parity could not load its theme"; }
cd - > /dev/null
mk uninstall > "$dir/uninstall.log" 2>&1 || { cat "$dir/uninstall.log"; fail "make uninstall failed"; }
left=$(find "$dir/root" -type f -o -type l | head -5)
[ -z "$left" ] || fail "left after uninstall: $left"
left=$(find "$dir/root$prefix" -mindepth 1 -type d | grep -v -e '/bin$' -e '/share$' -e '/share/man' -e '/libexec$' \
    -e '/share/bash-completion' || true)
[ -z "$left" ] || fail "directories of parity's own left after uninstall: $left"
echo "install: make install, the installed parity (run, Python executor, theme), make uninstall: passed"
