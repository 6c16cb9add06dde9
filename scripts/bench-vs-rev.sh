#!/usr/bin/env bash
# bench-vs-rev.sh - the simulator's speed against an earlier revision's,
# both measured in this run: REV's ddiosim is built from the repository's
# history in a temporary directory, then for each configuration the two
# binaries run in turn (current, REV, current, ...; 3 runs each at n and at
# 2n packets) and the marginal CPU time of a packet of each is printed,
# (t(2n) - t(n)) / n from the best (least CPU) run of each length, which
# leaves out the set-up and the warm-up, with their ratio.  CPU time (user
# + system), not wall time: on a shared machine a run that waits for a CPU
# is not slower.
#   scripts/bench-vs-rev.sh [--if-history] [--bin BIN] [REV [N]]
# --if-history: a checkout without REV in its history (an exported tree)
# prints one line and exits 0 instead of failing (`make bench`).
# REV: default 21d9d8e, the code the speed targets of docs/performance.md
# are measured against (the speed issue was filed on it).  BIN: this
# build's binary, default build/ddiosim.  N: default 400000 packets.  Both binaries simulate the
# same packets (their outputs are identical but for timing fields and
# formatting; scripts/sim-equiv.sh checks that between revisions).
# Errors (no such revision, a failed build or run) are one line and exit 2.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "bench-vs-rev: $*" >&2; exit 2; }
if_history=0
bin=$root/build/ddiosim
while [ $# -gt 0 ]; do
  case $1 in
    --if-history) if_history=1; shift ;;
    --bin) [ $# -ge 2 ] || die "--bin needs a path"; bin=$2; shift 2 ;;
    -*) die "unknown option '$1' (usage: bench-vs-rev.sh [--if-history] [--bin BIN] [REV [N]])" ;;
    *) break ;;
  esac
done
[ $# -le 2 ] || die "too many arguments (usage: bench-vs-rev.sh [--if-history] [--bin BIN] [REV [N]])"
rev=${1:-21d9d8e}
n=${2:-400000}

[[ $n =~ ^[1-9][0-9]*$ ]] || die "N '$n' is not a positive packet count"
[ -x "$bin" ] || die "BIN '$bin' is not an executable (make build first)"
if ! git -C "$root" rev-parse -q --verify "$rev^{commit}" >/dev/null 2>&1; then
  [ "$if_history" = 1 ] && { echo "bench-vs-rev: revision '$rev' is not in this checkout's history: skipped"; exit 0; }
  die "revision '$rev' is not in this checkout's history (a clone with history is needed)"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ddiosim-rev.XXXXXX") || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive --format=tar "$rev" | tar -x -C "$tmp/" || die "cannot extract revision '$rev'"
echo "building $rev in $tmp ..." >&2
{ cmake -S "$tmp" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DDDIOSIM_TESTS=OFF &&
  cmake --build "$tmp/build" -j "$(nproc 2>/dev/null || echo 2)" --target ddiosim; } >"$tmp/build.log" 2>&1 ||
  die "revision '$rev' did not build (its log: $(tail -n 1 "$tmp/build.log"))"
old=$tmp/build/ddiosim

# CPU seconds of one run of binary $1 with $2 packets and the options $3
# (unquoted on purpose: a word list); the run's output is discarded, its
# error kept for the message.  Called in a command substitution: a failed
# run's line goes to stderr and the caller exits.
cpu_of() {
  local t
  # shellcheck disable=SC2086  # $3 is a word list
  t=$( { TIMEFORMAT='%3U %3S'; time "$1" simulate $3 --rate max --packets "$2" --no-model >/dev/null 2>"$tmp/run.err"; } 2>&1 ) ||
    die "'$1 simulate $3 --packets $2' failed: $(tail -n 1 "$tmp/run.err")"
  awk '{ printf "%.3f", $1 + $2 }' <<<"$t"
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 < b + 0) ? a : b }'; }

configs=(
  "1500 B, 1 core|--profile fixed:1500 --cores 1"
  "sample trace, 1 core|--cores 1"
  "1500 B, 4 cores|--profile fixed:1500 --cores 4"
  "sample trace, 4 cores|--cores 4"
  "1500 B, 18 cores|--profile fixed:1500 --cores 18"
  "sample trace, 18 cores|--cores 18"
)
printf 'marginal CPU ns per packet (%d -> %d packets, best of 3, runs alternated), this build against %s\n' \
  "$n" $((2 * n)) "$rev"
printf '%-24s %12s %12s %10s\n' "configuration" "this build" "$rev" "speed-up"
for c in "${configs[@]}"; do
  name=${c%%|*}
  args=${c#*|}
  a1=1e9 a2=1e9 b1=1e9 b2=1e9
  for _ in 1 2 3; do
    t=$(cpu_of "$bin" "$n" "$args") || exit 2
    a1=$(min "$a1" "$t")
    t=$(cpu_of "$old" "$n" "$args") || exit 2
    b1=$(min "$b1" "$t")
    t=$(cpu_of "$bin" $((2 * n)) "$args") || exit 2
    a2=$(min "$a2" "$t")
    t=$(cpu_of "$old" $((2 * n)) "$args") || exit 2
    b2=$(min "$b2" "$t")
  done
  awk -v name="$name" -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" -v n="$n" 'BEGIN {
    a = (a2 - a1) / n * 1e9; b = (b2 - b1) / n * 1e9
    if (a > 0 && b > 0) printf "%-24s %12.1f %12.1f %9.2fx\n", name, a, b, b / a
    else printf "%-24s %12.1f %12.1f %10s\n", name, a, b, "(noise)"
  }'
done
