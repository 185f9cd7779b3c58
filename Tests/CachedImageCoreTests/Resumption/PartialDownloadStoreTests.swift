import Foundation
import Testing
@testable import CachedImageCore

/// The kept bytes of interrupted downloads: within the byte budget, least recently used first
/// out, only for the URL they came from.
@Suite("Partial download store: byte budget, LRU eviction")
struct PartialDownloadStoreTests {
    static let url = URL(string: "https://example.com/a.png")!

    static func partial(_ count: Int, url: URL = url, total: Int? = nil) -> PartialDownload {
        PartialDownload(url: url, validator: "\"v\"", data: Data(repeating: 7, count: count), totalLength: total)
    }

    @Test("keeps within the budget, dropping the least recently used first")
    func leastRecentlyUsed() {
        let store = PartialDownloadStore(budget: 300)
        store.keep(Self.partial(100), forKey: "a")
        store.keep(Self.partial(100), forKey: "b")
        store.keep(Self.partial(100), forKey: "c")
        #expect(store.totalBytes == 300)
        // Using "a" makes "b" the least recently used.
        #expect(store.partial(forKey: "a", url: Self.url) != nil)
        store.keep(Self.partial(50), forKey: "d")
        #expect(store.partial(forKey: "b", url: Self.url) == nil)
        #expect(store.partial(forKey: "a", url: Self.url) != nil)
        #expect(store.partial(forKey: "c", url: Self.url) != nil)
        #expect(store.partial(forKey: "d", url: Self.url) != nil)
        #expect(store.totalBytes == 250)
    }

    @Test("a newer partial replaces the older one for the same key")
    func replaces() {
        let store = PartialDownloadStore(budget: 300)
        store.keep(Self.partial(100), forKey: "a")
        store.keep(Self.partial(250), forKey: "a")
        #expect(store.totalBytes == 250)
        #expect(store.count == 1)
        #expect(store.partial(forKey: "a", url: Self.url)?.data.count == 250)
    }

    @Test("nothing larger than the budget, empty or complete is kept, and it removes the older bytes")
    func refuses() {
        let store = PartialDownloadStore(budget: 300)
        store.keep(Self.partial(100), forKey: "a")
        store.keep(Self.partial(301), forKey: "a")
        #expect(store.count == 0)
        store.keep(Self.partial(0), forKey: "b")
        store.keep(Self.partial(200, total: 200), forKey: "c")
        #expect(store.count == 0)
        #expect(store.totalBytes == 0)
        let disabled = PartialDownloadStore(budget: 0)
        disabled.keep(Self.partial(1), forKey: "a")
        #expect(disabled.count == 0)
    }

    @Test("bytes are only resumed for the URL they came from")
    func sameURL() {
        let store = PartialDownloadStore(budget: 300)
        store.keep(Self.partial(100), forKey: "a")
        #expect(store.partial(forKey: "a", url: URL(string: "https://example.com/b.png")!) == nil)
        #expect(store.partial(forKey: "a", url: Self.url) != nil)
        store.remove(forKey: "a")
        #expect(store.partial(forKey: "a", url: Self.url) == nil)
        store.keep(Self.partial(100), forKey: "b")
        store.removeAll()
        #expect(store.count == 0 && store.totalBytes == 0)
    }
}
