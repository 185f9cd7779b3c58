#!/usr/bin/env bash
# The disk-hit guard: instructions per disk hit, per relaunch's first image and per relaunch's
# first screen (12 cells loading together, as the demo's relaunch), counted with
# callgrind (they repeat exactly, unlike wall-clock figures on a shared machine), against the
# figures recorded in scripts/diskhit-guard.baseline. Fails when an operation costs more than
# 10% above its recorded figure. Prints each CachedImage operation beside the documents
# directory's bare read of the same file (and their ratio), and the change against the record.
#
# Usage (from anywhere in the repository):
#   scripts/diskhit-guard.sh                  build release, count, compare
#   scripts/diskhit-guard.sh --update         ... and write the counts as the new baseline
#   scripts/diskhit-guard.sh --binary PATH    count an already built cachedimage-diskhit-loop
# Each operation runs at two counts in a fresh process; (instructions at 2N - at N) / N cancels
# start-up and the warm-up pass. Linux only (callgrind); installs valgrind when it is missing
# and apt-get is available as root.
set -euo pipefail
cd "$(dirname "$0")/.."

update=0
binary=""
while [ $# -gt 0 ]; do
    case "$1" in
        --update) update=1 ;;
        --binary) binary=$2; shift ;;
        *) echo "usage: $0 [--update] [--binary PATH]" >&2; exit 2 ;;
    esac
    shift
done

baseline=scripts/diskhit-guard.baseline
margin_percent=10
count=${DISKHIT_GUARD_COUNT:-40}

if ! command -v valgrind >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq && apt-get install -y -qq valgrind >/dev/null
    else
        echo "diskhit-guard: valgrind is not installed (apt-get install valgrind)" >&2
        exit 1
    fi
fi

if [ -z "$binary" ]; then
    swift build -c release --product cachedimage-diskhit-loop >&2
    binary="$(swift build -c release --show-bin-path)/cachedimage-diskhit-loop"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the DWARF 5 that Swift emits: count a copy without debug information.
cp "$binary" "$work/loop"
strip --strip-debug "$work/loop"
prepared=$("$work/loop" prepare "$work/data")
echo "$prepared" >&2
# What the counts depend on besides the code: the toolchain and the checksum loop the processor runs.
toolchain=$(swift --version 2>/dev/null | head -n 1 | sed 's/^.*Swift version \([^ ]*\).*$/\1/')
checksum=$(echo "$prepared" | sed -n 's/^checksum: //p')
environment="swift $toolchain, checksum ${checksum:-unknown}"

export SWIFT_DETERMINISTIC_HASHING=1
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/loop" loop "$work/data" "$1" "$2" 2>&1 \
        | sed -n 's/.*Collected : //p'
}
per_operation() {
    local one two n=$count
    # A screen is twelve reads: a quarter of the count keeps its runs within a few times the others'.
    case "$1" in *screen) n=$(((count + 3) / 4)) ;; esac
    one=$(instructions "$1" "$n")
    two=$(instructions "$1" $((n * 2)))
    echo $(((two - one) / n))
}

declare -A measured
operations=(hit task relaunch firstframe screen documents documentsthumb documentsscreen)
for operation in "${operations[@]}"; do
    measured[$operation]=$(per_operation "$operation")
done

recorded() { [ -f "$baseline" ] && awk -v op="$1" '$1 == op { print $2 }' "$baseline" || true; }
recorded_environment=$([ -f "$baseline" ] && sed -n 's/^# environment: //p' "$baseline" || true)
if [ "$update" = 0 ] && [ -n "$recorded_environment" ] && [ "$recorded_environment" != "$environment" ]; then
    echo "diskhit-guard: $baseline was recorded with $recorded_environment, this is $environment:" >&2
    echo "  the counts are not comparable; record them here with --update (on the base commit) first" >&2
    exit 2
fi

failed=0
echo "instructions per operation ($environment; user space only: the kernel's copy of the file, the same"
echo "for both sides, is not counted, so wall-clock ratios are lower than these)"
printf '%-15s %12s %12s %8s   %s\n' operation "instr/op" recorded change "vs documents dir"
for operation in "${operations[@]}"; do
    value=${measured[$operation]}
    case "$operation" in
        firstframe) base=${measured[documentsthumb]} ;;
        screen) base=${measured[documentsscreen]} ;;
        documents*) base="" ;;
        *) base=${measured[documents]} ;;
    esac
    ratio=""
    [ -n "$base" ] && ratio=$(awk -v a="$value" -v b="$base" 'BEGIN { printf "%.2fx", a / b }')
    old=$(recorded "$operation")
    change="-"
    if [ -n "$old" ]; then
        change=$(awk -v a="$value" -v b="$old" 'BEGIN { printf "%+.1f%%", (a - b) * 100 / b }')
        # The documents-directory reads are not CachedImage's code: shown, not guarded (when
        # they move, the toolchain or Foundation did, and the baseline needs recording again).
        if [ -n "$base" ] && awk -v a="$value" -v b="$old" -v m="$margin_percent" 'BEGIN { exit !(a > b * (1 + m / 100)) }'; then
            change="$change FAIL"
            failed=1
        fi
    fi
    printf '%-15s %12s %12s %8s   %s\n' "$operation" "$value" "${old:--}" "$change" "$ratio"
done

if [ "$update" = 1 ]; then
    {
        echo "# Instructions per operation, counted by scripts/diskhit-guard.sh --update; compared within ${margin_percent}%."
        echo "# environment: $environment"
        for operation in "${operations[@]}"; do
            echo "$operation ${measured[$operation]}"
        done
    } > "$baseline"
    echo "diskhit-guard: baseline written to $baseline"
elif [ "$failed" = 1 ]; then
    echo "diskhit-guard: FAILED: an operation costs more than ${margin_percent}% above $baseline" >&2
    exit 1
else
    echo "diskhit-guard: every operation within ${margin_percent}% of $baseline"
fi
