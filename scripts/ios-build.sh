#!/usr/bin/env bash
# Compiles for iOS, against the real iPhoneOS 16.5 SDK, every target of the library products and
# the examples target (CachedImageExamples: the README's and the DocC articles' code, which is
# not a product, so a bare `../shared/ios-sdk/ios-build` no longer builds it).
#
# Usage: scripts/ios-build.sh   (needs ../shared/ios-sdk/ios-build; see its README)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
iosBuild=${IOS_BUILD:-$root/../shared/ios-sdk/ios-build}
[ -x "$iosBuild" ] || { echo "ios-build.sh: no $iosBuild (set IOS_BUILD)" >&2; exit 3; }
# The library products' targets, then the examples.
mapfile -t targets < <(swift package dump-package | python3 -c '
import json, sys
seen = []
for product in json.load(sys.stdin)["products"]:
    if "library" in product["type"]:
        seen += [t for t in product["targets"] if t not in seen]
print("\n".join(seen))')
exec "$iosBuild" "${targets[@]}" CachedImageExamples
