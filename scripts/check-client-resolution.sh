#!/usr/bin/env bash
# Checks the README's install block verbatim, and what an app resolves when it adds this package:
# exactly this package, nothing else.
#
# It clones this repository (file://) into a temporary folder, with `main` at the commit under
# test, checks that it exports the CachedImage and CachedImageCore products only (no examples,
# no executables), and writes a throwaway app package whose dependencies and targets are the README's install
# block (the ```swift block after `<!-- install`), with only the URL replaced by the clone's. Then:
#   1. the block as written (the branch form, `branch: "main"`): resolves, builds the
#      CachedImage product, and pins this package alone;
#   2. the block with its commented-out version line in place of the branch line, against the
#      clone tagged 0.1.0 (what the first release will be): resolves, pins this package alone.
# A pin of anything but this package fails the check (an executable product needing Hummingbird
# or ArgumentParser, or a plugin dependency, would add ~26 packages to every app).
#
# Usage: scripts/check-client-resolution.sh [REF]   (default: HEAD, the committed state)
# Needs no network: the only package it should resolve is the local clone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-HEAD}
work=$(mktemp -d "${TMPDIR:-/tmp}/cachedimage-client.XXXXXX")
trap 'rm -rf "$work"' EXIT

commit=$(git -C "$root" rev-parse "$ref^{commit}")
git clone --quiet --no-checkout "file://$root" "$work/CachedImage"
git -C "$work/CachedImage" -c advice.detachedHead=false checkout --quiet "$commit"
git -C "$work/CachedImage" branch --force main "$commit"
git -C "$work/CachedImage" tag 0.1.0 "$commit"

# The products an app can pick (Xcode's "Add Package" list): the two libraries, nothing else.
products=$(cd "$work/CachedImage" && swift package dump-package 2>/dev/null | python3 -c '
import json, sys
print(" ".join(sorted(p["name"] for p in json.load(sys.stdin)["products"])))')
echo "check-client-resolution: products: $products"
if [ "$products" != "CachedImage CachedImageCore" ]; then
  echo "check-client-resolution: FAILED: the package must export the CachedImage and CachedImageCore products only" >&2
  exit 1
fi

# The README's install block at the commit under test, as two app manifests.
git -C "$root" show "$commit:README.md" >"$work/README.md"
python3 - "$work" "file://$work/CachedImage" <<'PY'
import re, sys
work, url = sys.argv[1], sys.argv[2]
readme = open(f"{work}/README.md").read()
match = re.search(r"<!-- install[^\n]*\n```swift\n(.*?)```", readme, re.S)
if not match:
    sys.exit("check-client-resolution: FAILED: no ```swift block after <!-- install in the README")
lines = match.group(1).rstrip("\n").splitlines()
branch = [i for i, l in enumerate(lines) if l.lstrip().startswith(".package(url:")]
version = [i for i, l in enumerate(lines) if l.lstrip().startswith("// .package(url:")]
if len(branch) != 1 or len(version) != 1:
    sys.exit("check-client-resolution: FAILED: the install block needs one .package line and one commented-out version line")
package = re.compile(r'\.package\(url: "[^"]*"')
def manifest(chosen):
    body = "\n".join("    " + package.sub(f'.package(url: "{url}"', l) for l in chosen)
    return ("// swift-tools-version: 6.0\nimport PackageDescription\n\nlet package = Package(\n"
            '    name: "MyApp",\n    platforms: [.iOS(.v15), .macOS(.v12)],\n' + body + "\n)\n")
swapped = list(lines)
b, v = branch[0], version[0]
swapped[b] = lines[b].replace(".package(url:", "// .package(url:", 1)
swapped[v] = lines[v].replace("// .package(url:", ".package(url:", 1)
open(f"{work}/Package-branch.swift", "w").write(manifest(lines))
open(f"{work}/Package-version.swift", "w").write(manifest(swapped))
PY

# check FORM [--build]: resolves (and builds) the app with the FORM manifest, prints its pins,
# and fails unless this package alone is pinned.
check() {
  local form=$1 app=$work/App-$1 pins count
  mkdir -p "$app/Sources/MyApp"
  cp "$work/Package-$form.swift" "$app/Package.swift"
  cat >"$app/Sources/MyApp/MyApp.swift" <<'SWIFT'
import CachedImage
import Foundation

/// Uses the product, so that building the app compiles and links it.
public func avatarRequest() -> ImageRequest {
    ImageRequest(url: URL(string: "https://example.com/avatar.png"))
}
SWIFT
  (cd "$app" && swift package resolve --scratch-path "$app/.build" >"$work/resolve-$form.log" 2>&1) || {
    cat "$app/Package.swift" "$work/resolve-$form.log" >&2
    echo "check-client-resolution: FAILED: the README's $form line did not resolve" >&2
    exit 1
  }
  if [ "${2:-}" = --build ]; then
    (cd "$app" && swift build --scratch-path "$app/.build" >"$work/build-$form.log" 2>&1) || {
      cat "$work/build-$form.log" >&2
      echo "check-client-resolution: FAILED: the app did not build the CachedImage product ($form line)" >&2
      exit 1
    }
  fi
  pins=$(python3 - "$app/Package.resolved" <<'PY'
import json, sys
try:
    data = json.load(open(sys.argv[1]))
except FileNotFoundError:
    data = {"pins": []}
for pin in data.get("pins", []):
    state = pin.get("state", {})
    print(pin["identity"], pin.get("location", ""), state.get("version") or state.get("branch") or "", state.get("revision", "")[:12])
PY
)
  count=$(printf '%s\n' "$pins" | grep -c . || true)
  echo "check-client-resolution: the README's $form line resolved $count package(s):"
  printf '%s\n' "$pins" | sed 's/^/  /'
  if [ "$count" -ne 1 ] || [ "$(printf '%s\n' "$pins" | awk '{print $1}')" != "cachedimage" ]; then
    echo "check-client-resolution: FAILED: an app adding CachedImage must resolve this package alone" >&2
    exit 1
  fi
}

check branch --build
check version
echo "check-client-resolution: ok"
