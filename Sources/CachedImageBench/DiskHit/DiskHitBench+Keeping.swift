import CachedImageCore
import Foundation
import ToolSupport

extension DiskHitBench {
    /// Table 7e: what keeping the bytes a read returns costs, for the documents directory and
    /// for `DiskCache` alike. A memory cache keeps what it reads (on this platform a decoded image
    /// is its original bytes), so each read fills memory that has not been touched yet, where a
    /// read whose result is dropped at once gets the buffer the previous read freed, still hot.
    ///
    /// Each round reads every image once through each of the four paths in turn (the order
    /// rotating from round to round); "kept" paths hold their last `kept` results, as a memory
    /// cache would.
    func keepingCost(
        urls: [URL],
        cache: DiskCache,
        documentsHit: @escaping @Sendable (URL) throws -> DecodedImage,
        kept: Int = 100
    ) throws {
        struct Path {
            let name: String
            let keeps: Bool
            let read: (URL) throws -> Data?
            var samples = Samples()
            var ring: [Data?]
            var next = 0

            init(_ name: String, keeps: Bool, kept: Int, read: @escaping (URL) throws -> Data?) {
                self.name = name
                self.keeps = keeps
                self.read = read
                ring = Array(repeating: nil, count: kept)
            }

            mutating func measure(_ url: URL) throws {
                let start = Stopwatch.nanos()
                let data = try read(url)
                samples.add(Double(Stopwatch.nanos() - start) / 1e3)
                precondition(data != nil, "expected \(url) to be readable")
                guard keeps else { return }
                ring[next] = data
                next = (next + 1) % ring.count
            }
        }
        let documents: (URL) throws -> Data? = { try documentsHit($0).data }
        let diskCache: (URL) throws -> Data? = { cache.entry(forKey: $0.absoluteString)?.data }
        var paths = [
            Path("documents dir: read + decode, dropped at once", keeps: false, kept: kept, read: documents),
            Path("documents dir: read + decode, the last \(kept) kept", keeps: true, kept: kept, read: documents),
            Path("`DiskCache.entry(forKey:)`, dropped at once", keeps: false, kept: kept, read: diskCache),
            Path("`DiskCache.entry(forKey:)`, the last \(kept) kept", keeps: true, kept: kept, read: diskCache),
        ]
        for round in 0..<rounds {
            // One pass per path over every image (as a scroll reads them: never the same file
            // twice in a row), the paths in a rotating order; a kept path starts each pass empty.
            for offset in paths.indices {
                let path = (round + offset) % paths.count
                paths[path].ring = Array(repeating: nil, count: kept)
                for url in urls { try paths[path].measure(url) }
            }
            paths.indices.forEach { paths[$0].ring = [] }
        }
        var table = Table(
            "7e. What keeping the bytes read costs (\(urls.count) JPEGs, \(rounds) rounds, µs)",
            columns: ["path", "p50", "p99", "p50 vs documents dir, dropped"]
        )
        let baseline = paths[0].samples.percentile(0.5)
        for path in paths {
            table.add([
                path.name, Format.number(path.samples.percentile(0.5), 1), Format.number(path.samples.percentile(0.99), 1),
                Format.number(path.samples.percentile(0.5) / baseline, 2) + "x",
            ])
        }
        table.print(note: "A memory cache keeps what it reads; the demo's documents client drops each image at once. Keeping costs either approach the same: the bytes land in memory not touched yet (page faults, cache misses) instead of the buffer just freed.")
    }
}
