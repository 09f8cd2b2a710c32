#!/bin/sh
# The kind gate (issue 37): outside the kind modules, the fixture loader and
# emitter and src/results/, no code tests the model's kind. A kind module is
# named for what it is: its file name says kind (kind.c, judge_kind.c, ...)
# or its kind (_classifier.c, _generator.c, _embed.c, rk_*.c, pane_*.c).
# The list of places a new kind touches is in include/parity/kind.h.
#
#   tests/kind_gate.sh [--self-test] [ROOT]
#
# Prints FILE:LINE: text for each finding and exits 1; 0 and a summary
# otherwise.
set -u

allowed() {
    case "$1" in
    include/parity/fixture.h | include/parity/kind.h) return 0 ;;
    src/contract/fixture.c | src/contract/fixture_emit.c) return 0 ;;
    src/results/*) return 0 ;;
    src/executor/*) return 0 ;; # its own program: --kind NAME is its input
    *kind.c | *kind.h | *_classifier.c | *_generator.c | *_embed.c) return 0 ;;
    */rk_*.c | */pane_*.c) return 0 ;;
    src/tui/pane.c) return 0 ;; # the review screen's table of kind panes
    esac
    return 1
}

scan() {
    root=$1
    found=0
    n=0
    for f in $(cd "$root" && find src include -name '*.[ch]' | sort); do
        n=$((n + 1))
        allowed "$f" && continue
        if out=$(grep -n 'PX_MODEL_' "$root/$f"); then
            printf '%s\n' "$out" | sed "s|^|$f:|;s|\$|  (the kind is tested outside a kind module: ask kind.h's interface)|"
            found=1
        fi
    done
    [ $found = 0 ] && echo "kind gate: $n files, the kind is tested only in its modules"
    return $found
}

if [ "${1:-}" = --self-test ]; then
    shift
    t=$(mktemp -d) || exit 1
    trap 'rm -rf "$t"' EXIT
    mkdir -p "$t/src/report" "$t/src/judge" "$t/include/parity"
    echo 'int a = PX_MODEL_GENERATOR;' > "$t/src/judge/judge_generator.c"
    echo 'int a = 0;' > "$t/src/report/story.c"
    scan "$t" > /dev/null || { echo "kind gate self-test: a clean tree was refused"; exit 1; }
    echo 'if (f->kind == PX_MODEL_EMBEDDING) x();' >> "$t/src/report/story.c"
    if scan "$t" > /dev/null; then
        echo "kind gate self-test: a kind test in story.c was not found"
        exit 1
    fi
fi
scan "${1:-.}"
