import Foundation
import Testing
@testable import CachedImageCore

/// A cache directory spelled in different ways (`.` and `..`, extra slashes, a symbolic link):
/// one cache per directory.
@Suite("DiskCache directory spelling")
struct DiskCacheDirectorySpellingTests {
    @Test("Paths with `.` or `..` components or double slashes are standardized; others are kept as given")
    func standardization() {
        #expect(DiskCache.standardizedLocation(URL(fileURLWithPath: "/tmp/a/../b")).path == "/tmp/b")
        #expect(DiskCache.standardizedLocation(URL(fileURLWithPath: "/tmp/./b")).path == "/tmp/b")
        #expect(DiskCache.standardizedLocation(URL(fileURLWithPath: "/home/me/.cache/CachedImage")).path == "/home/me/.cache/CachedImage")
        for standard in ["/", "/a", "/a/b/", "/.cache", "/a/..b", "/a/b..", "/a/...", "/a/.../b"] {
            #expect(DiskCache.isStandard(standard), "\(standard)")
        }
        for other in ["", "a/b", "//a", "/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..", "/./a", "/../a", "/a/b//"] {
            #expect(!DiskCache.isStandard(other), "\(other)")
        }
    }

    @Test("The directory's path is `URL.path` for every spelling of a file URL")
    func filePathMatchesURLPath() {
        let root = URL(fileURLWithPath: "/tmp/spelling")
        let urls = [
            root, root.appendingPathComponent("Images"), root.appendingPathComponent("Images", isDirectory: true),
            root.appendingPathComponent("My Images"), root.appendingPathComponent("Bilder-ü-%20"),
            URL(fileURLWithPath: "/"), URL(fileURLWithPath: "/tmp/a/../b/"), URL(fileURLWithPath: "relative/dir"),
            URL(fileURLWithPath: "relative dir", relativeTo: root), URL(string: "file:///tmp/encoded%20name/")!,
            URL(string: "file:///tmp/a%2Fb")!, URL(string: "file:///tmp/a%00b")!, URL(fileURLWithPath: "/tmp/x//"),
            URL(string: "file:///tmp/x///")!,
        ]
        for url in urls {
            #expect(DiskCache.filePath(of: url) == url.path, "\(url)")
        }
    }

    @Test("Two spellings of one directory share one cache")
    func aliasesShareOneCache() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try DiskCache.shared(directory: dir.cache)
        let second = try DiskCache.shared(directory: dir.root.appendingPathComponent("x/../Images"))
        #expect(first === second)
        let link = dir.root.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: dir.cache)
        #expect(try DiskCache.shared(directory: link) === first)
    }
}
