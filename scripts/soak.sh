#!/usr/bin/env bash
# Runs the load/soak test (Tests/CachedImageCoreTests/Reliability/SoakTests.swift) under Thread
# Sanitizer: 16 tasks of mixed requests (memory and disk hits, misses, revalidations,
# cancellations, priority changes) against the loopback server.
#
# Usage: scripts/soak.sh [seconds] [max-requests]     (defaults: 30 s, 50,000 requests)
# Exit status is non-zero on any failed expectation or ThreadSanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
export CACHEDIMAGE_SOAK=1
export CACHEDIMAGE_SOAK_SECONDS="${1:-30}"
export CACHEDIMAGE_SOAK_REQUESTS="${2:-50000}"
# Any data race fails the run instead of only being printed.
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
# A separate build folder, so the sanitized build does not replace the normal one.
exec swift test --sanitize=thread --scratch-path .build-tsan --filter 'SoakTests'
