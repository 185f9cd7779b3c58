#!/usr/bin/env bash
# Builds the DocC documentation for CachedImageCore and CachedImage with the toolchain's own
# `docc` (no documentation plugin in the manifest: that would make every app resolve it), and
# fails on any DocC warning.
#
# Symbol graphs come from the toolchain's `swift-symbolgraph-extract` over the package's debug
# build (.build, as `swift test` leaves it); outputs go to .build-docs. On Linux the CachedImage
# module is the re-export plus canImport-gated Apple code, so its catalog's articles name the
# SwiftUI/UIKit API in code voice, not as symbol links.
#
# Usage: scripts/build-docs.sh [OUTPUT_DIR]   (default: .build-docs/docs)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-$root/.build-docs/docs}
scratch=$root/.build-docs
graphs=$scratch/symbol-graphs
docc=$(command -v docc || echo "$(dirname "$(readlink -f "$(command -v swift)")")/docc")
[ -x "$docc" ] || { echo "build-docs: no docc in the toolchain" >&2; exit 2; }

rm -rf "$graphs" && mkdir -p "$graphs" "$out"
# The package's usual build folder: after `swift test` (CI) this build has nothing to do.
swift build --target CachedImage >"$scratch/build.log" 2>&1 || {
  cat "$scratch/build.log" >&2; echo "build-docs: FAILED to build the modules" >&2; exit 1; }
modules=$(swift build --show-bin-path)/Modules
cModules=$(for map in "$(swift build --show-bin-path)"/*.build/module.modulemap; do [ -f "$map" ] && printf -- '-I %s ' "$(dirname "$map")"; done)
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
for module in CachedImageCore CachedImage; do
  # C targets (the checksum) are found through their generated module maps.
  swift-symbolgraph-extract -module-name "$module" -I "$modules" $cModules -target "$triple" \
    -minimum-access-level public -skip-synthesized-members -output-dir "$graphs" >>"$scratch/build.log" 2>&1 || {
    cat "$scratch/build.log" >&2; echo "build-docs: FAILED to extract $module's symbol graph" >&2; exit 1; }
done

status=0
for module in CachedImageCore CachedImage; do
  moduleGraphs=$scratch/graphs-$module
  rm -rf "$moduleGraphs" && mkdir -p "$moduleGraphs"
  cp "$graphs/$module".symbols.json "$moduleGraphs/" 2>/dev/null || true
  cp "$graphs/$module"@*.symbols.json "$moduleGraphs/" 2>/dev/null || true
  log=$scratch/docc-$module.log
  "$docc" convert "Sources/$module/$module.docc" \
    --fallback-display-name "$module" --fallback-bundle-identifier "com.cachedimage.$module" \
    --additional-symbol-graph-dir "$moduleGraphs" \
    --output-path "$out/$module.doccarchive" >"$log" 2>&1 || { cat "$log" >&2; status=1; continue; }
  if grep -E "warning:|error:" "$log" >/dev/null; then
    grep -E -A3 "warning:|error:" "$log" >&2
    echo "build-docs: $module has DocC warnings" >&2
    status=1
  else
    echo "build-docs: $module ok ($out/$module.doccarchive)"
  fi
done
exit $status
