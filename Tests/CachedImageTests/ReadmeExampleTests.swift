import Foundation
import Testing
import CachedImage

/// The README's copy-pasteable example must be the code the iOS build compiles.
@Suite("README example")
struct ReadmeExampleTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `(path, code)` for every ```swift block preceded by `<!-- example: PATH -->`.
    private func readmeExamples() throws -> [(path: String, code: String)] {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        var examples: [(String, String)] = []
        let marker = "<!-- example: "
        var rest = readme[...]
        while let start = rest.range(of: marker) {
            rest = rest[start.upperBound...]
            guard let close = rest.range(of: " -->\n```swift\n") else { break }
            let path = String(rest[..<close.lowerBound])
            rest = rest[close.upperBound...]
            guard let end = rest.range(of: "```\n") else { break }
            examples.append((path, String(rest[..<end.lowerBound])))
            rest = rest[end.upperBound...]
        }
        return examples
    }

    @Test("every README example is verbatim the code in Sources/CachedImageExamples")
    func readmeMatchesExamplesTarget() throws {
        let examples = try readmeExamples()
        #expect(examples.map(\.path).sorted() == [
            "Sources/CachedImageExamples/CallSiteExamples.swift",
            "Sources/CachedImageExamples/CustomKeyExamples.swift",
            "Sources/CachedImageExamples/Photo.swift",
            "Sources/CachedImageExamples/PhotoCell.swift",
            "Sources/CachedImageExamples/PhotoDetailView.swift",
            "Sources/CachedImageExamples/PhotoListView.swift",
            "Sources/CachedImageExamples/ProcessingExamples.swift",
        ])
        for (path, code) in examples {
            let source = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            let prefix = source.hasPrefix("#if canImport(UIKit)\n") ? "#if canImport(UIKit)\n" : "#if canImport(SwiftUI)\n"
            let suffix = "#endif\n"
            #expect(source.hasPrefix(prefix) && source.hasSuffix(suffix), "\(path) is wrapped in one #if canImport(SwiftUI)")
            let body = String(source.dropFirst(prefix.count).dropLast(suffix.count))
            #expect(body == code, "README's \(path) differs from the file")
        }
    }

    @Test("importing CachedImage alone gives the engine (it re-exports CachedImageCore)")
    func reexportsCore() {
        let request = ImageRequest(url: URL(string: "https://example.com/a.png"), targetSize: PixelSize(width: 10, height: 10))
        #expect(request.cacheKey == "https://example.com/a.png")
        #expect(ImagePipeline.Configuration().maxConcurrentDownloads == 6)
    }
}
