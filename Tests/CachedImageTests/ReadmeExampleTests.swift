import Foundation
import Testing
import CachedImage

/// The README's and the DocC articles' copy-pasteable examples must be the code the iOS build
/// compiles (the `CachedImageExamples` target).
@Suite("README and DocC examples")
struct ReadmeExampleTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static let examplesFolder = "Sources/CachedImageExamples"

    /// One ```swift block preceded by `<!-- example: PATH -->` in a document.
    private struct Example {
        let document: String
        let path: String
        let code: String
    }

    /// The README and every article of the two DocC catalogs, as paths from the root.
    private func documents() throws -> [String] {
        var documents = ["README.md"]
        for catalog in ["Sources/CachedImage/CachedImage.docc", "Sources/CachedImageCore/CachedImageCore.docc"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(catalog).path)
            documents += names.filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
        }
        return documents
    }

    private func examples(in document: String) throws -> [Example] {
        let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
        var examples: [Example] = []
        let marker = "<!-- example: "
        var rest = text[...]
        while let start = rest.range(of: marker) {
            rest = rest[start.upperBound...]
            guard let close = rest.range(of: " -->\n```swift\n") else {
                Issue.record("\(document): an example marker is not followed by a ```swift block")
                break
            }
            let path = String(rest[..<close.lowerBound])
            rest = rest[close.upperBound...]
            guard let end = rest.range(of: "```\n") else { break }
            examples.append(Example(document: document, path: path, code: String(rest[..<end.lowerBound])))
            rest = rest[end.upperBound...]
        }
        return examples
    }

    private func allExamples() throws -> [Example] {
        try documents().flatMap { try examples(in: $0) }
    }

    @Test("every README and DocC example is verbatim the code in Sources/CachedImageExamples")
    func examplesMatchTheExamplesTarget() throws {
        let examples = try allExamples()
        #expect(!examples.isEmpty)
        for example in examples {
            #expect(example.path.hasPrefix(Self.examplesFolder + "/"), "\(example.document): \(example.path) is not an example file")
            let source = try String(contentsOf: Self.root.appendingPathComponent(example.path), encoding: .utf8)
            // The file is the example wrapped in one platform check: `#if canImport(...)` ... `#endif`.
            let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
            let opening = lines.first.map(String.init) ?? ""
            #expect(opening.hasPrefix("#if canImport(") && source.hasSuffix("\n#endif\n"), "\(example.path) is wrapped in one #if canImport(...)")
            let body = String(source.dropFirst(opening.count + 1).dropLast("#endif\n".count))
            #expect(body == example.code, "\(example.document)'s \(example.path) differs from the file")
        }
    }

    @Test("every file of the examples target is shown in the README or a DocC article")
    func everyExampleIsDocumented() throws {
        let shown = Set(try allExamples().map(\.path))
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(Self.examplesFolder).path)
            .filter { $0.hasSuffix(".swift") }
            .map { "\(Self.examplesFolder)/\($0)" }
        #expect(Set(files).subtracting(shown).isEmpty, "not shown in any document: \(Set(files).subtracting(shown).sorted())")
    }

    @Test("the README shows the three AsyncImage call sites, then UIKit")
    func readmeExamples() throws {
        #expect(try examples(in: "README.md").map(\.path) == [
            "Sources/CachedImageExamples/AsyncImageStyleExamples.swift",
            "Sources/CachedImageExamples/OneLinerCell.swift",
        ])
    }

    @Test("the README's first screen is an app's first hour: install, the first image, sizing, launch, extensions, UIKit, then the contributors' two commands")
    func readmeOrder() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let headings = readme.split(separator: "\n").filter { $0.hasPrefix("## ") }.map(String.init)
        #expect(Array(headings.prefix(6)) == [
            "## Install", "## The first image", "## Sizing: automatic, or in points", "## At launch: one pipeline",
            "## Widgets and extensions", "## UIKit",
        ])
        let contributors = try #require(headings.firstIndex(of: "## For contributors"))
        #expect(contributors > 5)
        // Exactly two commands for a newcomer: the demo and the tests.
        let shell = readme.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(shell == ["swift run cachedimage demo   # CachedImage against the usual ways of loading images, side by side\nswift test                   # the tests: unit, and integration against a loopback HTTP server\n"])
    }

    @Test("the README stays a five-minute read: at most 250 lines, and every DocC article it names exists")
    func readmeIsShortAndItsLinksResolve() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 251)
        // Links to files in the repository: `](path)` without a scheme or an anchor.
        var rest = readme[...]
        var linked: [String] = []
        while let open = rest.range(of: "](") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: ")") else { break }
            let target = String(rest[..<close])
            if !target.contains("://"), !target.hasPrefix("#") { linked.append(target) }
        }
        #expect(linked.contains { $0.hasSuffix(".docc/TheDemo.md") })
        for target in linked {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(target).path), "README links to \(target), which does not exist")
        }
    }

    @Test("importing CachedImage alone gives the engine (it re-exports CachedImageCore)")
    func reexportsCore() {
        let request = ImageRequest(url: URL(string: "https://example.com/a.png"), targetPixelSize: PixelSize(width: 10, height: 10))
        #expect(request.cacheKey == "https://example.com/a.png")
        #expect(ImagePipeline.Configuration().maximumConcurrentDownloads == 12)
    }
}
