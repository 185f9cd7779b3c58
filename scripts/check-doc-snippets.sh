#!/usr/bin/env bash
# Compiles every Swift snippet of the README and of the DocC articles as an app would: from a
# client package of its own (.build-snippets/App, generated anew on each run, depending on this
# package by path), so `package` symbols are invisible, as they are to an app. Fails naming the
# article and the line.
#
# What is compiled (a ```swift block is classified by the line just before it):
#   <!-- example: Sources/CachedImageExamples/X.swift -->
#       The block is verbatim that file (ReadmeExampleTests enforces it). Every file of
#       Sources/CachedImageExamples is compiled, as one client target (AppExamples).
#   <!-- install: ... -->
#       The README's manifest block: scripts/check-client-resolution.sh resolves and builds it.
#   no marker, and the block has its own top-level `import`
#       A whole file, compiled as it is.
#   <!-- snippet: func(NAME: TYPE, ...) [-> RESULT] [if CONDITION] -->
#       Statements: the body of `@MainActor func snippet(NAME: TYPE, ...) async throws -> RESULT`.
#   <!-- snippet: view(NAME: TYPE, ...) [if CONDITION] -->
#       SwiftUI content: the `body` of a `@MainActor` view whose properties are `let NAME: TYPE`;
#       the block's top-level property-wrapper lines (`@State private var x = ...`) are its
#       properties. Compiled where SwiftUI is.
#   <!-- snippet: file [if CONDITION] -->
#       Declarations only (types, extensions): a file, with the catalog's imports.
#   <!-- snippet: skip: REASON -->
#       Not Swift an app compiles (pseudo-code with `...`). Keep these rare; the reason is printed.
#   A marked block's placeholders are what the block uses but does not declare: `NAME: TYPE` is a
#   parameter (func) or a property (view); `NAME = TYPE` is a type (`typealias NAME = TYPE`, e.g.
#   `ContentView = EmptyView`). Its top-level `import`s, `extension`s and type declarations
#   become file-level declarations (a later block of the same catalog may use the types).
#   `if CONDITION` (e.g. `if canImport(UIKit)`) compiles it only where CONDITION holds; without
#   it a `func` block compiles everywhere, Linux included. A ```swift block with neither a marker
#   nor an `import` fails the check.
#
# The snippets of the CachedImageCore catalog import CachedImageCore only (target AppCoreSnippets);
# the README's and the CachedImage catalog's import CachedImage (and SwiftUI/UIKit where they
# exist; target AppSnippets). Compiler errors point at the article's own lines (#sourceLocation).
#
# Two builds of the same client package:
#   Linux (or the host): `swift build`, everything platform-independent (Apple-only code is
#     behind `#if canImport`, as in the examples).
#   iOS: ../shared/ios-sdk/ios-build (the real iPhoneOS 16.5 SDK; IOS_BUILD overrides its path)
#     compiles all three targets, SwiftUI and UIKit included. Without ios-build or its SDK (a CI
#     machine without them) this part is skipped, and says so; the host part still runs.
# The client and its build folders stay in .build-snippets/App (its .build and .build-ios), so a
# later run rebuilds only the client's targets and what changed: about 10 s, host and iOS. From a
# clean clone: about 30 s on the host, 2 min more for iOS. Needs no network: the client resolves
# this package alone (a path dependency; its tools' dependencies are never fetched).
#
# Usage: scripts/check-doc-snippets.sh [--host-only]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
hostOnly=false
case "${1:-}" in
  --host-only) hostOnly=true ;;
  "") ;;
  *) echo "usage: scripts/check-doc-snippets.sh [--host-only]" >&2; exit 2 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/cachedimage-snippets.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A fixed place, so that the build folders are reused (their module caches record their paths).
client=$root/.build-snippets/App
rm -rf "$client/Sources" "$client/Package.swift" "$client/Package.resolved"
mkdir -p "$client"
start=$SECONDS

# The client package: the snippets and the examples, generated from the working tree.
SNIPPETS_WORK=$work python3 - "$root" "$client" <<'PY'
import json, os, re, shutil, sys

root, client = sys.argv[1], sys.argv[2]
catalogs = ["Sources/CachedImage/CachedImage.docc", "Sources/CachedImageCore/CachedImageCore.docc"]
documents = ["README.md"] + [f"{c}/{n}" for c in catalogs for n in sorted(os.listdir(os.path.join(root, c))) if n.endswith(".md")]
examples = "Sources/CachedImageExamples"
failures = []

def fail(where, message):
    failures.append(f"{where}: {message}")

def swift_blocks(document):
    """Each ```swift block: (line of its fence, the line before it, its lines less the fence's indentation)."""
    lines = open(os.path.join(root, document), encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        match = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        if not match:
            i += 1
            continue
        indent, language = match.group(1), match.group(2)
        end = i + 1
        while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        if language == "swift":
            body = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:end]]
            yield i + 1, (lines[i - 1].strip() if i > 0 else ""), body
        i = end + 1

def split_top_level(text, separator=","):
    """`text` split at `separator`s outside brackets (a closure type's `->` is not a bracket)."""
    parts, depth, current = [], 0, ""
    for k, ch in enumerate(text):
        if ch in "([<":
            depth += 1
        elif ch in ")]" or (ch == ">" and text[k - 1] != "-"):
            depth -= 1
        if ch == separator and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current)
    return [p.strip() for p in parts]

def parse_marker(text):
    """`func(...) [-> R] [if C]`, `view(...) [if C]` or `file [if C]`: (kind, [params], [typealiases], result, condition)."""
    declarations = re.match(r"^file(?:\s+if\s+(.+))?$", text)
    if declarations:
        return "file", [], [], None, declarations.group(1)
    match = re.match(r"^(func|view)\(", text)
    if not match:
        return None
    depth, k = 0, len(match.group(1))
    for k in range(len(match.group(1)), len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                break
    if depth != 0:
        return None
    inside, rest = text[len(match.group(1)) + 1:k], text[k + 1:]
    tail = re.match(r"^\s*(?:->\s*(.*?))?\s*(?:\bif\s+(.+))?$", rest)
    if not tail:
        return None
    params, aliases = [], []
    for part in split_top_level(inside):
        alias = re.match(r"^([A-Za-z_]\w*)\s*=\s*(.+)$", part)
        if alias:
            aliases.append((alias.group(1), alias.group(2)))
        elif re.match(r"^[A-Za-z_]\w*\s*:", part):
            params.append(part)
        else:
            return None
    return match.group(1), params, aliases, tail.group(1), tail.group(2)

TYPE_KEYWORDS = {"import", "extension", "struct", "class", "actor", "enum", "protocol", "typealias"}
MODIFIERS = {"public", "private", "fileprivate", "internal", "package", "final", "open", "nonisolated", "indirect"}

def top_level_items(body):
    """The block's top-level items, as [first line, head line, last line] indices: an item starts
    at a line with no indentation; comments and lone attributes right above it are its own."""
    items, lead = [], None
    for index, line in enumerate(body):
        if not line.strip():
            lead = None
            continue
        top = line[0] not in " \t})]."
        if top and (line.startswith("//") or re.fullmatch(r"@\w+(\(.*\))?", line.strip())):
            lead = index if lead is None else lead
            continue
        if top:
            items.append([index if lead is None else lead, index, index])
            lead = None
        elif items:
            items[-1][2] = index
    return items

def declaration_keyword(line):
    words = re.sub(r"@\w+(\([^)]*\))?", " ", line).split()
    for word in words:
        if word not in MODIFIERS:
            return word
    return ""

def classify(body, kind):
    """Splits a marked block into imports, file-level items, view properties and body lines."""
    imports, file_items, members = [], [], []
    taken = set()
    for first, head, last in top_level_items(body):
        keyword = declaration_keyword(body[head])
        if keyword == "import":
            imports.append(body[head].strip())
        elif keyword in TYPE_KEYWORDS:
            file_items.append((first, last))
        elif kind == "view" and body[head].startswith("@") and keyword in ("var", "let"):
            members.append((first, last))
        else:
            continue
        taken.update(range(first, last + 1))
    rest = [i for i in range(len(body)) if i not in taken]
    return imports, file_items, members, rest

def located(document, fence, body, indices):
    """`indices` of the block, with #sourceLocation lines so errors name the article's lines."""
    out, previous = [], None
    path = os.path.join(root, document)
    for i in indices:
        if previous is None or i != previous + 1:
            out.append(f'#sourceLocation(file: "{path}", line: {fence + 1 + i})')
        out.append(body[i])
        previous = i
    if out:
        out.append("#sourceLocation()")
    return out

APPLE_FREE = {"Foundation", "FoundationNetworking", "Dispatch", "CachedImage", "CachedImageCore"}

def whole_file(document, fence, body):
    depth, apple = 0, []
    for line in body:
        if line.startswith("#if"):
            depth += 1
        elif line.startswith("#endif"):
            depth -= 1
        match = re.match(r"^(?:@\w+\s+)*import\s+(?:\w+\s+)?([\w.]+)", line)
        if match and depth == 0 and match.group(1).split(".")[0] not in APPLE_FREE:
            apple.append(match.group(1).split(".")[0])
    out = [f"// {document}:{fence}: a whole file"]
    if apple:
        out.append("#if " + " && ".join(f"canImport({m})" for m in apple))
    out += located(document, fence, body, range(len(body)))
    if apple:
        out.append("#endif")
    return out

def wrapped(document, fence, body, marker, core):
    kind, params, aliases, result, condition = marker
    if kind == "view":
        condition = f"canImport(SwiftUI) && ({condition})" if condition else "canImport(SwiftUI)"
    imports, file_items, members, rest = classify(body, kind)
    name = re.sub(r"\W", "_", os.path.splitext(os.path.basename(document))[0]) + f"_{fence}"
    out = [f"// {document}:{fence}: a `{kind}` snippet", "import Foundation",
           "#if canImport(FoundationNetworking)", "import FoundationNetworking", "#endif",
           "import CachedImageCore" if core else "import CachedImage"]
    if not core:
        out += ["#if canImport(SwiftUI)", "import SwiftUI", "#endif", "#if canImport(UIKit)", "import UIKit", "#endif"]
    out += [i for i in imports if i not in out]
    if condition:
        out.append(f"#if {condition}")
    out += [f"fileprivate typealias {a} = {t}" for a, t in aliases]
    for first, last in file_items:
        out += located(document, fence, body, range(first, last + 1))
    if kind == "file":
        out += located(document, fence, body, rest)
    elif kind == "func":
        signature = f"func snippet_{name}({', '.join(params)}) async throws"
        out += ["@MainActor", signature + (f" -> {result} {{" if result else " {")]
        out += located(document, fence, body, rest)
        out.append("}")
    else:
        out += ["@MainActor", f"struct Snippet_{name}: View {{"]
        out += ["    let " + p for p in params]
        for first, last in members:
            out += located(document, fence, body, range(first, last + 1))
        out.append("    var body: some View {")
        out += located(document, fence, body, rest)
        out += ["    }", "}"]
    if condition:
        out.append("#endif")
    return out

targets = {"AppSnippets": [], "AppCoreSnippets": []}
skipped, shown = [], {}
for document in documents:
    core = document.startswith("Sources/CachedImageCore/")
    for fence, before, body in swift_blocks(document):
        where = f"{document}:{fence}"
        marker = re.match(r"^<!--\s*(example|install|snippet):\s*(.*?)\s*-->$", before)
        if marker and marker.group(1) == "install":
            continue
        if marker and marker.group(1) == "example":
            shown.setdefault(marker.group(2), []).append((document, fence))
            continue
        target = "AppCoreSnippets" if core else "AppSnippets"
        stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(document))[0])
        if marker:
            text = marker.group(2)
            if text.startswith("skip:"):
                reason = text[len("skip:"):].strip()
                if not reason:
                    fail(where, "`<!-- snippet: skip: REASON -->` needs a reason")
                skipped.append(f"{where}: {reason}")
                continue
            parsed = parse_marker(text)
            if not parsed:
                fail(where, f"unreadable marker `{before}` (see scripts/check-doc-snippets.sh)")
                continue
            targets[target].append((f"{stem}_{fence}.swift", wrapped(document, fence, body, parsed, core), where))
        elif any(re.match(r"^(?:@\w+\s+)*import\s", l) for l in body):
            targets[target].append((f"{stem}_{fence}.swift", whole_file(document, fence, body), where))
        else:
            fail(where, "a ```swift block without `<!-- snippet: ... -->` on the line before it and without an "
                        "`import` of its own (see scripts/check-doc-snippets.sh for the markers)")

sources = os.path.join(client, "Sources")
os.makedirs(os.path.join(sources, "AppExamples"))
for name in sorted(os.listdir(os.path.join(root, examples))):
    if name.endswith(".swift"):
        shutil.copy(os.path.join(root, examples, name), os.path.join(sources, "AppExamples", name))
        if f"{examples}/{name}" not in shown:
            fail(f"{examples}/{name}", "shown in no document")
for path in shown:
    if not os.path.exists(os.path.join(root, path)):
        fail(", ".join(f"{d}:{l}" for d, l in shown[path]), f"the example {path} does not exist")
locations = {}
for target, files in targets.items():
    os.makedirs(os.path.join(sources, target))
    # A target needs one file even when no document has a snippet for it.
    files = files or [("Empty.swift", ["// No snippets."], "")]
    for name, lines, where in files:
        path = os.path.join(sources, target, name)
        open(path, "w").write("\n".join(lines) + "\n")
        locations[path] = where
json.dump({"locations": locations, "examples": {os.path.join(sources, "AppExamples", os.path.basename(p)): [p, v] for p, v in shown.items()}},
          open(os.path.join(os.environ["SNIPPETS_WORK"], "locations.json"), "w"))

# The client's manifest: this package by path, its two library products, nothing else.
identity = os.path.basename(root.rstrip("/"))
open(os.path.join(client, "Package.swift"), "w").write(f'''// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.iOS(.v15), .macOS(.v12)],
    dependencies: [.package(path: {json.dumps(root)})],
    targets: [
        .target(name: "AppExamples", dependencies: [.product(name: "CachedImage", package: {json.dumps(identity)})]),
        .target(name: "AppSnippets", dependencies: [.product(name: "CachedImage", package: {json.dumps(identity)})]),
        .target(name: "AppCoreSnippets", dependencies: [.product(name: "CachedImageCore", package: {json.dumps(identity)})]),
    ],
    swiftLanguageModes: [.v6]
)
''')
count = sum(len(f) for f in targets.values())
print(f"check-doc-snippets: {count} snippets ({len(targets['AppCoreSnippets'])} of CachedImageCore's catalog), "
      f"{len(shown)} example files, {len(skipped)} skipped")
for line in skipped:
    print(f"  skipped: {line}")
if failures:
    for line in failures:
        print(f"check-doc-snippets: {line}", file=sys.stderr)
    sys.exit(1)
PY

# report LOG: the build's errors (each once, with the compiler's excerpt), then each error's
# place: the article line, or the example file and the article lines that show it.
report() {
  python3 - "$work/locations.json" "$root" "$1" <<'PY'
import json, re, sys
data = json.load(open(sys.argv[1]))
root, log = sys.argv[2].rstrip("/") + "/", open(sys.argv[3], errors="replace").read().split("\n")
locations, examples = data["locations"], data["examples"]
diagnostic = re.compile(r"^(/[^:]+):(\d+):(\d+): (error|warning|note): (.*)$")
seen, summary, block = set(), [], None
for line in log + [""]:
    match = diagnostic.match(line)
    if block is not None:
        if not (match or not line.strip() or line.startswith("[")):
            block.append(line)
            continue
        print("\n".join(block) + "\n", file=sys.stderr)
        block = None
    if not match or match.group(4) != "error" or line in seen:
        continue
    seen.add(line)
    block = [line]
    path, number, column, _, message = match.groups()
    if path in examples:
        repo_path, shown = examples[path]
        at = ", ".join(f"{d}:{int(l) + int(number) - 1}" for d, l in shown)
        where = f"{repo_path}:{number}:{column}" + (f" (shown at {at})" if at else "")
    elif path in locations:
        where = f"the code generated around {locations[path]} (line {number}: check its marker)"
    else:
        where = f"{path.replace(root, '', 1)}:{number}:{column}"
    summary.append(f"  {where}: {message}")
print("check-doc-snippets: the errors, by place:", file=sys.stderr)
print("\n".join(summary) if summary else "  none the compiler located (see the build's output above)", file=sys.stderr)
PY
}

status=0
# The host: everything platform-independent (on Linux, Apple-only code is compiled out).
echo "check-doc-snippets: host build ($(uname -s))"
if ! (cd "$client" && swift build >"$work/host.log" 2>&1); then
  echo "check-doc-snippets: FAILED on $(uname -s):" >&2
  report "$work/host.log"
  grep -q ": error: " "$work/host.log" || tail -n 30 "$work/host.log" >&2
  status=1
fi

# iOS: everything, against the real SDK, when ios-build and its SDK are here.
iosBuild=${IOS_BUILD:-$root/../shared/ios-sdk/ios-build}
if $hostOnly; then
  echo "check-doc-snippets: iOS build SKIPPED (--host-only)"
elif [ ! -x "$iosBuild" ]; then
  echo "check-doc-snippets: iOS build SKIPPED: no ios-build at $iosBuild (set IOS_BUILD); only the $(uname -s) part was checked"
else
  # ios-build finds the SDK snapshot next to the project it builds; the client is elsewhere.
  if [ -z "${IOS_SDK_MIRROR:-}" ]; then
    for d in "$root/../.mirror/theos+sdks" "$root/../../.mirror/theos+sdks"; do
      [ -d "$d" ] && { IOS_SDK_MIRROR=$(find "$d" -maxdepth 3 -name HEAD -printf '%h\n' 2>/dev/null | head -n 1); export IOS_SDK_MIRROR; break; }
    done
  fi
  echo "check-doc-snippets: iOS build (ios-build)"
  iosStatus=0
  # ios-build builds the package at the top of the git work tree it is run in: the client is
  # in this repository's folder, but no part of it.
  (cd "$client" && GIT_CEILING_DIRECTORIES=$root/.build-snippets "$iosBuild" AppExamples AppSnippets AppCoreSnippets >"$work/ios.log" 2>&1) || iosStatus=$?
  if [ "$iosStatus" = 3 ]; then
    tail -n 3 "$work/ios.log"
    echo "check-doc-snippets: iOS build SKIPPED: ios-build has no iPhoneOS SDK here; only the $(uname -s) part was checked"
  elif [ "$iosStatus" != 0 ]; then
    echo "check-doc-snippets: FAILED on iOS:" >&2
    report "$work/ios.log"
    grep -q ": error: " "$work/ios.log" || tail -n 30 "$work/ios.log" >&2
    status=1
  fi
fi

if [ $status = 0 ]; then
  echo "check-doc-snippets: ok ($((SECONDS - start)) s)"
fi
exit $status
