#!/usr/bin/env bash
# Builds the fuzz targets (Fuzz/Targets/NAME.swift) against the real CachedImageCore sources with
# libFuzzer and AddressSanitizer, and runs each for a while; fails on any crash, timeout or
# out-of-memory. RELIABILITY.md ("Fuzzing") has the figures and what each target covers.
#
#   scripts/fuzz.sh                          # every target, 60 s each
#   scripts/fuzz.sh --seconds 1800 image-headers http-fields
#   scripts/fuzz.sh --list                   # the target names
#
# How it builds. SwiftPM links a test or executable target with its own `main`, which fights
# libFuzzer's, and -sanitize=fuzzer on a whole `swift build` would instrument the tools and
# Hummingbird too. So this script calls swiftc itself: CachedImageCore's sources become one
# static library compiled with -sanitize=fuzzer,address (and -enable-testing, so a target reaches
# the internal parsers the pipeline calls), ImageFixtures (seeds only) one without sanitizers,
# and each target is FuzzMain.swift (the libFuzzer entry points) plus its own file, linked with
# -sanitize=fuzzer,address, which brings libFuzzer's main. Everything goes to .build-fuzz/,
# rebuilt when a source is newer than what was built.
#
# How it runs. Each target starts from its seeds (written by the target itself from the
# project's fixtures), its kept corpus in .build-fuzz/corpus/NAME, and Fuzz/Regressions/NAME
# (inputs that once crashed a parser, replayed first), with Fuzz/Dictionaries/NAME.dict, a 5 s
# timeout per input and a 2 GB memory limit. A failing input is written to
# .build-fuzz/crashes/; copy it to Fuzz/Regressions/NAME/ once fixed, so it is replayed forever.
set -euo pipefail
cd "$(dirname "$0")/.."
# Leaks are not what these targets look for (the Swift runtime's caches read as leaks at exit).
export ASAN_OPTIONS=detect_leaks=0
# A Swift trap then shows as libFuzzer's "deadly signal" with its stack, instead of the Swift
# runtime's backtracer reading memory that AddressSanitizer reports as a crash of its own.
export SWIFT_BACKTRACE=enable=no

# Fuzz/Targets/http-fields.swift is the target "http-fields".
target_name() { basename "$1" .swift; }

seconds=60
max_len=65536
selected=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --max-len) max_len="$2"; shift 2 ;;
    --list) for f in Fuzz/Targets/*.swift; do target_name "$f"; done; exit 0 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) selected+=("$1"); shift ;;
  esac
done

build=.build-fuzz
mkdir -p "$build"/{lib,modules,include/CCachedImageChecksum,bin,corpus,crashes,logs}
swift_flags=(-swift-version 6 -O -parse-as-library -package-name cachedimage)
sanitizers=(-sanitize=fuzzer,address)
newer() { [ ! -e "$1" ] || [ -n "$(find "${@:2}" -newer "$1" -print -quit)" ]; }

# The checksum's C target, instrumented like the rest.
if newer "$build/lib/checksum.o" Sources/CCachedImageChecksum; then
  clang -O2 -fsanitize=fuzzer-no-link,address -I Sources/CCachedImageChecksum/include \
    -c Sources/CCachedImageChecksum/checksum.c -o "$build/lib/checksum.o"
fi
cat > "$build/include/CCachedImageChecksum/module.modulemap" <<EOF
module CCachedImageChecksum {
    header "$PWD/Sources/CCachedImageChecksum/include/CCachedImageChecksum.h"
    export *
}
EOF

if newer "$build/lib/libCachedImageCore.a" Sources/CachedImageCore; then
  echo "fuzz: building CachedImageCore with -sanitize=fuzzer,address (a few minutes)" >&2
  find Sources/CachedImageCore -name '*.swift' -print0 | xargs -0 swiftc "${swift_flags[@]}" "${sanitizers[@]}" \
    -enable-testing -module-name CachedImageCore -I "$build/include/CCachedImageChecksum" \
    -emit-library -static -emit-module -emit-module-path "$build/modules/CachedImageCore.swiftmodule" \
    -o "$build/lib/libCachedImageCore.a"
fi
if newer "$build/lib/libImageFixtures.a" Sources/ImageFixtures; then
  find Sources/ImageFixtures -name '*.swift' -print0 | xargs -0 swiftc "${swift_flags[@]}" \
    -module-name ImageFixtures -emit-library -static -emit-module \
    -emit-module-path "$build/modules/ImageFixtures.swiftmodule" -o "$build/lib/libImageFixtures.a"
fi

names=()
for file in Fuzz/Targets/*.swift; do
  name=$(target_name "$file")
  if [ ${#selected[@]} -gt 0 ] && [[ ! " ${selected[*]} " == *" $name "* ]]; then continue; fi
  names+=("$name")
  if newer "$build/bin/$name" "$file" Fuzz/FuzzMain.swift "$build/lib"; then
    swiftc "${swift_flags[@]}" "${sanitizers[@]}" -use-ld=lld -module-name FuzzTarget \
      -I "$build/modules" -I "$build/include/CCachedImageChecksum" \
      Fuzz/FuzzMain.swift "$file" -L "$build/lib" -lCachedImageCore -lImageFixtures "$build/lib/checksum.o" \
      -o "$build/bin/$name"
  fi
done
[ ${#names[@]} -gt 0 ] || { echo "fuzz: no target named ${selected[*]} (see --list)" >&2; exit 2; }

failed=0
printf '%-18s %8s %12s %9s %7s %7s %7s  %s\n' target seconds executions "exec/s" cov corpus rss_mb result
for name in "${names[@]}"; do
  corpus="$build/corpus/$name"
  regressions="Fuzz/Regressions/$name"
  mkdir -p "$corpus"
  CACHEDIMAGE_FUZZ_WRITE_SEEDS="$corpus" "$build/bin/$name" >/dev/null
  inputs=("$corpus")
  [ -d "$regressions" ] && inputs+=("$regressions")
  log="$build/logs/$name.log"
  result=passed
  if ! "$build/bin/$name" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
      -max_len="$max_len" -dict="Fuzz/Dictionaries/$name.dict" -artifact_prefix="$build/crashes/$name-" \
      -print_final_stats=1 "${inputs[@]}" >"$log" 2>&1; then
    result="FAILED ($(grep -m1 -oE 'ERROR: libFuzzer: [a-z-]+|ERROR: AddressSanitizer: [a-z-]+|Fatal error|timeout|out-of-memory' "$log" || echo 'see log'); input in $build/crashes/, log $log)"
    failed=1
  fi
  stat() { grep -m1 "stat::$1" "$log" | awk '{print $2}' || true; }
  runs=$(stat number_of_executed_units); runs=${runs:-0}
  coverage=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
  units=$(find "$corpus" -type f | wc -l)
  printf '%-18s %8s %12s %9s %7s %7s %7s  %s\n' "$name" "$seconds" "$runs" "$(( runs / (seconds > 0 ? seconds : 1) ))" \
    "${coverage:-?}" "$units" "$(stat peak_rss_mb)" "$result"
  [ "$result" = passed ] || tail -n 30 "$log" >&2
done
exit $failed
