#!/usr/bin/env bash
# Checks what an app resolves when it adds this package: exactly this package, nothing else.
#
# It clones this repository (file://) into a temporary folder, tags the checked-out commit,
# writes a throwaway app package that depends on that clone by URL and tag and uses the
# CachedImage and CachedImageCore products, resolves it, and fails if Package.resolved pins
# anything but this package (an executable product needing Hummingbird or ArgumentParser, or a
# plugin dependency, would add ~26 packages to every app).
#
# Usage: scripts/check-client-resolution.sh [REF]   (default: HEAD, the committed state)
# Needs no network: the only package it should resolve is the local clone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-HEAD}
work=$(mktemp -d "${TMPDIR:-/tmp}/cachedimage-client.XXXXXX")
trap 'rm -rf "$work"' EXIT

tag=999.0.0
git clone --quiet --no-checkout "file://$root" "$work/CachedImage"
git -C "$work/CachedImage" -c advice.detachedHead=false checkout --quiet "$(git -C "$root" rev-parse "$ref")"
git -C "$work/CachedImage" tag "$tag"

mkdir -p "$work/App/Sources/App"
cat > "$work/App/Package.swift" <<EOF
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.iOS(.v15), .macOS(.v12)],
    dependencies: [
        .package(url: "file://$work/CachedImage", exact: "$tag"),
    ],
    targets: [
        .target(name: "App", dependencies: [
            .product(name: "CachedImage", package: "CachedImage"),
            .product(name: "CachedImageCore", package: "CachedImage"),
        ]),
    ]
)
EOF
echo 'import CachedImage' > "$work/App/Sources/App/App.swift"

(cd "$work/App" && swift package resolve --scratch-path "$work/App/.build" >"$work/resolve.log" 2>&1) || {
  cat "$work/resolve.log" >&2
  echo "check-client-resolution: FAILED: the throwaway app did not resolve" >&2
  exit 1
}

pins=$(python3 - "$work/App/Package.resolved" <<'PY'
import json, sys
try:
    data = json.load(open(sys.argv[1]))
except FileNotFoundError:
    data = {"pins": []}
for pin in data.get("pins", []):
    print(pin["identity"], pin.get("location", ""), pin.get("state", {}).get("version") or pin.get("state", {}).get("revision", ""))
PY
)
count=$(printf '%s\n' "$pins" | grep -c . || true)
echo "check-client-resolution: the app resolved $count package(s):"
printf '%s\n' "$pins" | sed 's/^/  /'
if [ "$count" -ne 1 ] || [ "$(printf '%s\n' "$pins" | awk '{print $1}')" != "cachedimage" ]; then
  echo "check-client-resolution: FAILED: an app adding CachedImage must resolve this package alone" >&2
  exit 1
fi
echo "check-client-resolution: ok"
