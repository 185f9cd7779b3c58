#!/bin/sh
# Instructions per disk-entry header parse (DiskCacheEntryFormat.parseHeader), for two commits,
# measured with callgrind: builds a tiny -O harness from the format sources of each commit and
# reports (instructions at 2N parses - instructions at N parses) / N, which cancels start-up.
# Usage (from the repository root): scripts/header-parse-callgrind.sh BASE_COMMIT [NEW_COMMIT]
set -eu
base=$1
new=${2:-HEAD}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/main.swift" <<'SWIFT'
import Foundation
let metadata = CachedResponseMetadata(contentType: "image/jpeg", etag: "\"abcdef0123\"", lastModified: "Tue, 14 Nov 2023 22:00:00 GMT", storedAt: Date(timeIntervalSinceReferenceDate: 7e8), initialAge: 1, freshnessLifetime: 86_400)
let key = "https://images.example.com/photos/1234567/large.jpg"
let header = DiskCacheEntryFormat.encodeHeader(key: key, metadata: metadata, bodyLength: 100_000, bodyChecksum: 1)
let iterations = Int(CommandLine.arguments.dropFirst().first ?? "10000")!
var sink = 0
header.withUnsafeBytes { raw in
    for _ in 0..<iterations {
        if let parsed = DiskCacheEntryFormat.parseHeader(raw, fileSize: header.count + 100_000) { sink &+= parsed.headerLength }
    }
}
print("header bytes:", header.count, sink > 0 ? "" : "(parse failed)")
SWIFT
for commit in "$base" "$new"; do
    dir="$work/$commit"
    mkdir -p "$dir"
    for file in DiskCache/DiskCacheEntryFormat.swift DiskCache/FastChecksum.swift HTTP/CachedResponseMetadata.swift HTTP/VaryField.swift; do
        git show "$commit:Sources/CachedImageCore/$file" > "$dir/$(basename "$file")" 2>/dev/null || rm -f "$dir/$(basename "$file")"
    done
    # Since the checksum moved to C, FastChecksum imports its module: build it when the commit
    # has it.
    cflags=""
    if git show "$commit:Sources/CCachedImageChecksum/checksum.c" > "$dir/checksum.c" 2>/dev/null; then
        mkdir -p "$dir/include"
        git show "$commit:Sources/CCachedImageChecksum/include/CCachedImageChecksum.h" > "$dir/include/CCachedImageChecksum.h"
        printf 'module CCachedImageChecksum {\n    header "CCachedImageChecksum.h"\n    export *\n}\n' > "$dir/include/module.modulemap"
        clang -O2 -c "$dir/checksum.c" -I "$dir/include" -o "$dir/checksum.o"
        cflags="-I $dir/include $dir/checksum.o"
    else
        rm -f "$dir/checksum.c"
    fi
    # shellcheck disable=SC2086 # cflags is a list of arguments
    swiftc -O -swift-version 6 -module-name HeaderBench "$work/main.swift" "$dir"/*.swift $cflags -o "$dir/bench"
    count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$dir/bench" "$1" 2>&1 | sed -n 's/.*Collected : //p'; }
    one=$(count 10000)
    two=$(count 20000)
    echo "$commit: $("$dir/bench" 1) $(( (two - one) / 10000 )) instructions per parse"
done
