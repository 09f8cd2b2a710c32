#!/bin/bash
# make check's runner: the suites (one per line on stdin: a name, a tab, a
# shell command) run JOBS at a time, so that a two-core machine is busy
# while one suite waits on an executor's start-up or a sleep. Each suite's
# output goes to LOGDIR/NAME.log and is printed whole when it ends, under
# "== NAME", so outputs never interleave. Every suite runs even when one
# fails; the failed ones are named at the end and the exit status is 1.
# The suites that took longest last time (LOGDIR/times) start first, so
# that no long one is left alone at the end.
#
#   tests/run_suites.sh JOBS LOGDIR < list
set -uo pipefail
jobs=${1:?JOBS} logdir=${2:?LOGDIR}
mkdir -p "$logdir"
list=$(mktemp) order=$(mktemp)
trap 'rm -f "$list" "$order" "$logdir/.lock" "$logdir/.times.new"' EXIT
cat > "$list"

# The last run's seconds per name (0 for a new one), longest first; ties
# keep the list's order.
awk -F'\t' -v times="$logdir/times" '
    BEGIN { while ((getline l < times) > 0) { split(l, f, " "); t[f[1]] = f[2] } }
    NF >= 2 { printf "%s\t%d\t%s\n", (($1 in t) ? t[$1] : 0), NR, $0 }' "$list" |
    sort -t$'\t' -k1,1nr -k2,2n | cut -f3- > "$order"

: > "$logdir/.times.new"
: > "$logdir/failed"
# One suite: its log, then its output printed under the lock.
run_one() {
    local name=$1 cmd=$2 log="$logdir/$1.log" rc secs cpu TIMEFORMAT='%R %U %S'
    # bash's time: wall, and the CPU of the suite and all it waited for.
    read -r secs cpu < <({ time { bash -c "$cmd" > "$log" 2>&1 < /dev/null; echo $? > "$log.rc"; }; } 2>&1 |
                          awk '{printf "%s %.1f\n", $1, $2 + $3}')
    rc=$(cat "$log.rc"); rm -f "$log.rc"
    {
        flock 9
        echo "== $name ($(printf '%.1f' "$secs") s, CPU $cpu s)"
        cat "$log"
        [ $rc -eq 0 ] || { echo "== $name FAILED (exit $rc)"; echo "$name" >> "$logdir/failed"; }
        printf '%s %.0f\n' "$name" "$secs" >> "$logdir/.times.new"
    } 9> "$logdir/.lock"
}
export -f run_one
export logdir

# xargs hands each line's name and command to run_one.
tr '\t' '\n' < "$order" | xargs -d '\n' -n 2 -P "$jobs" bash -c 'run_one "$1" "$2"' _
# This run's seconds, and the last run's for suites not run this time.
{ cat "$logdir/.times.new"; [ -f "$logdir/times" ] && cat "$logdir/times"; } | awk '!seen[$1]++' | sort > "$logdir/.times.all"
mv "$logdir/.times.all" "$logdir/times"
if [ -s "$logdir/failed" ]; then
    echo "make check: failed: $(tr '\n' ' ' < "$logdir/failed")"
    exit 1
fi
