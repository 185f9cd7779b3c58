#!/usr/bin/env bash
# The public API of the library products (CachedImageCore, CachedImage), as checked-in text
# files that a change to the API shows up in, in review: one line per public symbol (its kind
# and its name, with argument labels) and per public conformance, sorted. Generated from the
# symbol graphs of the build (the toolchain's `swift-symbolgraph-extract`, public symbols
# only, no synthesized members), so it is what the compiler exports, not what a grep finds.
#
#   api/Linux.txt  what the Linux build exports: CachedImageCore (CachedImage is only the
#                  re-export there; its Apple layer is compiled out).
#   api/iOS.txt    what the iOS build exports (CachedImageCore and the Apple layer), from the
#                  modules scripts/ios-build.sh (../shared/ios-sdk/ios-build) compiles against the
#                  iPhoneOS 16.5 SDK.
#                  Written and checked only where that SDK is unpacked (IOS_SDK_CACHE,
#                  default ~/.cache/ios-sdk) and `.build-ios` holds modules at least as new as
#                  the Swift sources.
#
# It also fails when a public symbol has no `///` doc comment of its own.
#
# Usage: scripts/public-api.sh            check: fails with a diff when a file is stale
#        scripts/public-api.sh --update   regenerate the files
# Run scripts/ios-build.sh first for the iOS file. Overloads that differ only in their types
# share a line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mode=check
case "${1:-}" in
  --update) mode=update ;;
  "") ;;
  *) echo "usage: scripts/public-api.sh [--update]" >&2; exit 2 ;;
esac

scratch=$root/.build-api
rm -rf "$scratch" && mkdir -p "$scratch"
modules="CachedImageCore CachedImage"
status=0

# Symbol graphs of `modules` from the build in $1 (bin path) for triple $2, extra flags after.
extract() {
  local bin=$1 triple=$2 out=$3; shift 3
  mkdir -p "$out"
  local cModules
  cModules=$(for map in "$bin"/*.build/module.modulemap; do [ -f "$map" ] && printf -- '-I %s ' "$(dirname "$map")"; done)
  for module in $modules; do
    # shellcheck disable=SC2086
    swift-symbolgraph-extract -module-name "$module" -I "$bin/Modules" $cModules -target "$triple" "$@" \
      -minimum-access-level public -skip-synthesized-members -output-dir "$out" >>"$scratch/extract.log" 2>&1 || {
      cat "$scratch/extract.log" >&2; echo "public-api: FAILED to extract $module's symbol graph ($triple)" >&2; return 1; }
  done
}

# The listing of the symbol graphs in $1, with a header naming the build ($2).
render() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
graphs, build = sys.argv[1], sys.argv[2].replace("\\n", "\n")
lines = set()
# Conformances every Sendable (or every) type has, which some toolchains list and others do not.
implied = {"SendableMetatype", "Copyable", "Escapable", "BitwiseCopyable"}
for name in sorted(os.listdir(graphs)):
    if not name.endswith(".symbols.json"):
        continue
    data = json.load(open(os.path.join(graphs, name)))
    module = data["module"]["name"]
    # CachedImageCore@Swift.symbols.json: what CachedImageCore adds to Swift's types.
    extended = name[len(module) + 1:-len(".symbols.json")] if "@" in name else ""
    prefix = module + (" (extends " + extended + ")" if extended else "")
    names = {}
    for symbol in data["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        kind = symbol["kind"]["identifier"].removeprefix("swift.")
        path = ".".join(symbol["pathComponents"])
        names[symbol["identifier"]["precise"]] = path
        lines.add(f"{prefix}  {kind} {path}")
    for rel in data.get("relationships", []):
        if rel["kind"] != "conformsTo" or rel["source"] not in names:
            continue
        target = names.get(rel["target"]) or rel.get("targetFallback") or rel["target"]
        target = target.split(".")[-1] if target.startswith("Swift.") else target
        if target in implied:
            continue
        lines.add(f"{prefix}  conformance {names[rel['source']]}: {target}")
print("# The public API of the CachedImage package's library products (CachedImageCore, CachedImage),")
print(f"# as the {build} exports it.")
print("# Kind and name of every public symbol, and every public conformance, sorted; overloads that")
print("# differ only in their types share a line. Written by scripts/public-api.sh --update from the")
print("# compiler's symbol graphs; .ci/run fails when it is stale.")
for line in sorted(lines):
    print(line)
PY
}

# Fails (status 1) for every public symbol of the graphs in $1 without a doc comment of its own.
documented() {
  python3 - "$1" <<'PY' || status=1
import json, os, sys
missing = set()
for name in sorted(os.listdir(sys.argv[1])):
    if name.endswith(".symbols.json"):
        for symbol in json.load(open(os.path.join(sys.argv[1], name)))["symbols"]:
            if "docComment" not in symbol:
                where = symbol.get("location", {}).get("uri", "").split("/Sources/")[-1]
                missing.add(f"  {'.'.join(symbol['pathComponents'])} ({where})")
if missing:
    print("public-api: public symbols without a /// doc comment:", *sorted(missing), sep="\n", file=sys.stderr)
    sys.exit(1)
PY
}

compare() {
  local file=$1 fresh=$2
  if [ "$mode" = update ]; then
    mkdir -p "$(dirname "$file")"; cp "$fresh" "$file"; echo "public-api: wrote $file ($(grep -vc '^#' "$file") lines)"
  elif ! diff -u "$file" "$fresh" >"$scratch/diff" 2>&1; then
    cat "$scratch/diff" >&2
    echo "public-api: $file is stale: the public API changed (above: - the file, + the build)." >&2
    echo "            If the change is deliberate, run scripts/public-api.sh --update and commit the file." >&2
    status=1
  else
    echo "public-api: $file ok"
  fi
}

# Linux (or whatever this machine is): the package's usual debug build, as `swift test` leaves it.
swift build --target CachedImage >"$scratch/build.log" 2>&1 || {
  cat "$scratch/build.log" >&2; echo "public-api: FAILED to build the modules" >&2; exit 1; }
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
host=$(uname -s)
if [ "$host" = Linux ]; then
  extract "$(swift build --show-bin-path)" "$triple" "$scratch/linux"
  render "$scratch/linux" "Linux build, where CachedImage is only the re-export of\n# CachedImageCore (its Apple layer is compiled out: see api/iOS.txt)," >"$scratch/Linux.txt"
  compare api/Linux.txt "$scratch/Linux.txt"
  documented "$scratch/linux"
else
  echo "public-api: api/Linux.txt not checked on $host" >&2
fi

# iOS: the modules ios-build compiled, against the SDK it unpacked.
cache=${IOS_SDK_CACHE:-$HOME/.cache/ios-sdk}
sdk=$cache/iPhoneOS16.5.sdk
# No .build-ios (a clean clone, CI): find fails, which is no error here.
iosBin=$({ find "$root/.build-ios" -maxdepth 3 -type d -path '*apple-ios*/debug' 2>/dev/null || true; } | head -n 1)
iosModule=${iosBin:+$iosBin/Modules/CachedImage.swiftmodule}
# The newest thing ios-build wrote for the two modules, against the newest Swift source.
newest() { { find "$@" -type f -printf '%T@\n' 2>/dev/null || true; } | sort -n | tail -n 1; }
if [ -n "$iosModule" ] && [ -f "$iosModule" ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]))' \
   "$(newest Sources/CachedImageCore Sources/CachedImage -name '*.swift')" \
   "$(newest "$iosBin/CachedImageCore.build" "$iosBin/CachedImage.build" "$iosBin/Modules")"; then
  echo "public-api: api/iOS.txt not checked: the iOS build is older than the sources (run scripts/ios-build.sh first)" >&2
elif [ -f "$sdk/.ready" ] && [ -n "$iosModule" ] && [ -f "$iosModule" ]; then
  iosTriple=$(basename "$(dirname "$iosBin")")
  deployment=$(swift package dump-package | python3 -c '
import json, sys
v = [p["version"] for p in json.load(sys.stdin).get("platforms", []) if p["platformName"] == "ios"]
print(v[0] if v else "16.0")')
  case "$deployment" in *.*) ;; *) deployment="$deployment.0" ;; esac
  iosTriple=${iosTriple%-ios*}-ios$deployment
  extract "$iosBin" "$iosTriple" "$scratch/ios" -sdk "$sdk" -resource-dir "$cache/resource-dir"
  render "$scratch/ios" "iOS build ($iosTriple against the iPhoneOS 16.5 SDK, by ios-build)," >"$scratch/iOS.txt"
  compare api/iOS.txt "$scratch/iOS.txt"
  documented "$scratch/ios"
else
  echo "public-api: api/iOS.txt not checked (no iOS SDK or no ios-build output here; run scripts/ios-build.sh first)" >&2
fi
exit $status
