#!/bin/sh
# The man pages' lists against the tables the code uses (issue 38): each
# marked section of a page must be what build/tests/man_tables prints for
# it, and parity-results(5) must name every key of the results schema.
#
#   tests/man_tables.sh BIN [MANDIR]        check (exit 1 on a drift, with the diff)
#   tests/man_tables.sh BIN [MANDIR] --fix  rewrite the marked sections
#   tests/man_tables.sh BIN --self-test     a drifted copy of the pages must fail
set -u
bin=$1
dir=${2:-man}
mode=${3:-check}
[ "$dir" = --fix ] && { dir=man; mode=--fix; }

# name page: the sections and where they are.
sections='verdicts parity.1
check-json parity.1'

if [ "$dir" = --self-test ]; then
    tmp=$(mktemp -d) || exit 2
    trap 'rm -rf "$tmp"' EXIT
    cp man/*.[1-9] "$tmp/"
    "$0" "$bin" "$tmp" >/dev/null 2>&1 || { echo "man-tables self-test: the pages as they are fail"; exit 1; }
    # a verdict's line dropped from the list
    awk '/^\.\\" BEGIN verdicts/{p=1} p && /^\.It Sy known-defect/{getline; next} {print}' man/parity.1 >"$tmp/parity.1"
    if "$0" "$bin" "$tmp" >/dev/null 2>&1; then
        echo "man-tables self-test: a page that lost a verdict passed"; exit 1
    fi
    # a key of the results file no longer named
    cp man/parity.1 "$tmp/"
    sed 's/Cm merged_from/Cm merged_frm/g' man/parity-results.5 >"$tmp/parity-results.5"
    if "$0" "$bin" "$tmp" >/dev/null 2>&1; then
        echo "man-tables self-test: a page without a results key passed"; exit 1
    fi
    echo "man-tables self-test: drifted pages fail"
    exit 0
fi

status=0
echo "$sections" | while read -r name page; do
    f=$dir/$page
    want=$(mktemp) && have=$(mktemp) || exit 2
    "$bin" "$name" >"$want" || exit 2
    if ! grep -q "^\.\\\\\" BEGIN $name\$" "$f" || ! grep -q "^\.\\\\\" END $name\$" "$f"; then
        echo "$f: no .\\\" BEGIN $name / .\\\" END $name markers"
        rm -f "$want" "$have"; exit 1
    fi
    awk -v n="$name" '$0 == ".\\\" END " n {p=0} p {print} $0 == ".\\\" BEGIN " n {p=1}' "$f" >"$have"
    if ! cmp -s "$want" "$have"; then
        if [ "$mode" = --fix ]; then
            awk -v n="$name" -v w="$want" '
                $0 == ".\\\" END " n {p=0}
                !p {print}
                $0 == ".\\\" BEGIN " n {p=1; while ((getline l < w) > 0) print l}' "$f" >"$f.new" && mv "$f.new" "$f"
            echo "$f: $name rewritten from the code's table"
        else
            echo "$f: the $name list differs from the code's table (tests/man_tables.sh $bin --fix rewrites it):"
            diff -u "$have" "$want" | sed 1,2d
            rm -f "$want" "$have"; exit 1
        fi
    fi
    rm -f "$want" "$have"
done || status=1

# Every key of the results file's schema is named in parity-results(5).
missing=$("$bin" results-keys | while IFS="	" read -r rec key; do
    grep -q "Cm $key\\b\|Cm [a-z0-9_ ,]*\\b$key\\b" "$dir/parity-results.5" || echo "  $key ($rec)"
done)
if [ -n "$missing" ]; then
    echo "$dir/parity-results.5 does not name these keys of the results file (src/results/results_schema.c):"
    echo "$missing"
    status=1
fi
exit $status
