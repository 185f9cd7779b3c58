@_spi(Benchmarks) import CachedImageCore
import Foundation

/// Table 4: write and read throughput of the shipped disk cache and three baselines over the
/// same entries (20-500 KB), interleaved per round; cold open and sweep of a 10,000-entry cache.
struct DiskCacheBench {
    let options: BenchOptions
    let root: URL

    var entryCount: Int { options.pick(quick: 1_000, full: 10_000) }
    var rounds: Int { options.pick(quick: 2, full: 3) }
    /// Foundation's URLCache on Linux takes about a quarter of a second per entry of this size
    /// (store plus read), so it gets the first entries only; its figures are per entry and per MB
    /// of what it stored.
    var urlCacheEntryCount: Int { min(entryCount, options.pick(quick: 20, full: 100)) }

    struct Result {
        var writeSeconds = Samples()
        var readSeconds = Samples()
        var readHits = 0
        var readMisses = 0
    }

    func run() throws {
        try throughput()
        try openAndSweep()
    }

    // MARK: Throughput

    private func throughput() throws {
        var rng = SplitMix(seed: 11)
        let pool = (0..<16).map { _ in Data((0..<500_000).map { _ in UInt8.random(in: 0...255, using: &rng) }) }
        let sizes = (0..<entryCount).map { _ in Int.random(in: 20_000...500_000, using: &rng) }
        let bodies = sizes.enumerated().map { index, size in pool[index % pool.count].prefix(size) }
        let urls = (0..<entryCount).map { URL(string: "https://cdn.example.com/photos/2026/11/img-\(100_000 + $0).jpg")! }
        let readOrder = Array(0..<entryCount).shuffled(using: &rng)
        let totalBytes = Double(sizes.reduce(0, +))
        let urlCacheCount = urlCacheEntryCount
        let urlCacheBytes = Double(sizes.prefix(urlCacheCount).reduce(0, +))
        let urlCacheReadOrder = readOrder.filter { $0 < urlCacheCount }

        let names = ["DiskCache (shipped)", "raw FileManager + Data(contentsOf:) (floor)",
                     "documents dir by lastPathComponent", "URLCache (disk)"]
        var results = Array(repeating: Result(), count: names.count)
        for round in 0..<rounds {
            for (position, name) in names.enumerated() {
                let directory = root.appendingPathComponent("throughput-\(round)-\(position)")
                let store: any DiskStore
                switch position {
                case 0: store = try ShippedDiskStore(directory: directory)
                case 1: store = try RawFileBaseline(.floor, directory: directory)
                case 2: store = try RawFileBaseline(.documentsDirectory, directory: directory)
                default: store = URLCacheStore(directory: directory)
                }
                assert(store.name == name)
                let count = position == 3 ? urlCacheCount : entryCount
                let order = position == 3 ? urlCacheReadOrder : readOrder
                let write = Stopwatch.time {
                    for index in 0..<count { store.write(bodies[index], url: urls[index], index: index) }
                    store.finish()
                }
                var hits = 0
                var misses = 0
                let read = Stopwatch.time {
                    for index in order {
                        if let data = store.read(url: urls[index], index: index), data.count == sizes[index] {
                            hits += 1
                        } else {
                            misses += 1
                        }
                    }
                }
                results[position].writeSeconds.add(write / 1e9)
                results[position].readSeconds.add(read / 1e9)
                results[position].readHits = hits
                results[position].readMisses = misses
                try? FileManager.default.removeItem(at: directory)
            }
        }
        let megabytes = totalBytes / 1_048_576
        var table = Table(
            "4a. Disk: \(Format.grouped(entryCount)) entries of 20-500 KB (\(Format.number(megabytes, 0)) MB), median (min-max) of \(rounds) interleaved rounds",
            columns: ["store", "write MB/s", "write µs/entry", "read MB/s", "read µs/entry", "read time/MB vs raw",
                      "read time/MB vs URLCache", "write time/MB vs URLCache", "hits / misses"]
        )
        let raw = results[1]
        let urlCache = results[3]
        let rawMegabytes = megabytes
        let urlCacheMegabytes = urlCacheBytes / 1_048_576
        func perMB(_ seconds: Double, _ megabytes: Double) -> Double { seconds / megabytes }
        for (position, name) in names.enumerated() {
            let result = results[position]
            let count = position == 3 ? urlCacheCount : entryCount
            let storeMegabytes = position == 3 ? urlCacheBytes / 1_048_576 : megabytes
            table.add([
                position == 3 ? name + " (first \(count) entries only)" : name,
                Format.number(storeMegabytes / result.writeSeconds.median, 0)
                    + " (\(Format.number(storeMegabytes / result.writeSeconds.max, 0))-\(Format.number(storeMegabytes / result.writeSeconds.min, 0)))",
                Format.number(result.writeSeconds.median * 1e6 / Double(count), 1),
                Format.number(storeMegabytes / result.readSeconds.median, 0)
                    + " (\(Format.number(storeMegabytes / result.readSeconds.max, 0))-\(Format.number(storeMegabytes / result.readSeconds.min, 0)))",
                Format.number(result.readSeconds.median * 1e6 / Double(count), 1),
                Format.ratio(perMB(result.readSeconds.median, storeMegabytes), to: perMB(raw.readSeconds.median, rawMegabytes)),
                Format.ratio(perMB(result.readSeconds.median, storeMegabytes), to: perMB(urlCache.readSeconds.median, urlCacheMegabytes)),
                Format.ratio(perMB(result.writeSeconds.median, storeMegabytes), to: perMB(urlCache.writeSeconds.median, urlCacheMegabytes)),
                "\(Format.grouped(result.readHits)) / \(Format.grouped(result.readMisses))",
            ])
        }
        table.print(note: """
        Write: store every entry, then wait until all are on disk (`flush()` for DiskCache). Read: every \
        entry once in shuffled order, warm page cache; DiskCache verifies the key and a checksum of \
        every byte, the others return bytes unchecked. URLCache stores only the first \(urlCacheEntryCount) entries (about a quarter of a second per entry on corelibs Foundation), so its ratios compare time per MB. Targets: DiskCache reads within 1.5x of raw; \
        never slower than URLCache.
        """)
    }

    // MARK: Open and sweep

    /// Fills `directory` with `count` small entries through DiskCache.
    static func fill(_ directory: URL, count: Int, bytes: Int = 4_096) throws {
        let cache = try DiskCache(directory: directory, sizeLimit: .max)
        let body = Data(repeating: 7, count: bytes)
        let metadata = CachedResponseMetadata(contentType: "image/jpeg", storedAt: Date(), freshnessLifetime: 86_400)
        for index in 0..<count {
            cache.store(body, metadata: metadata, forKey: "https://cdn.example.com/photos/2026/11/img-\(100_000 + index).jpg")
        }
        cache.flush()
    }

    /// Times to open an existing cache of `count` entries from its index snapshot and, with the
    /// snapshot deleted, from a directory listing (what every open did before the snapshot),
    /// interleaved per round; and the bare listing as the floor of the second.
    static func openTimes(_ directory: URL, rounds: Int) throws -> (snapshot: Samples, listing: Samples, floor: Samples, entries: Int) {
        var snapshot = Samples()
        var listing = Samples()
        var floor = Samples()
        var entries = 0
        let snapshotFile = directory.appendingPathComponent("index/snapshot")
        for _ in 0..<rounds {
            var files = 0
            floor.add(Stopwatch.time {
                files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path).count) ?? 0
            } / 1e6)
            blackHole(files)
            var cache: DiskCache?
            // Until the index is loaded (`entryCount` waits for it): opening itself returns at once.
            snapshot.add(try Stopwatch.time {
                cache = try DiskCache(directory: directory, sizeLimit: .max)
                entries = cache?.entryCount ?? 0
            } / 1e6)
            precondition(cache?.indexSource == .snapshot, "expected to open from the snapshot")
            cache = nil
            try FileManager.default.removeItem(at: snapshotFile)
            listing.add(try Stopwatch.time {
                cache = try DiskCache(directory: directory, sizeLimit: .max)
                _ = cache?.entryCount
            } / 1e6)
            precondition(cache?.indexSource == .listing && cache?.entryCount == entries)
            cache?.flush() // writes the snapshot again for the next round
        }
        return (snapshot, listing, floor, entries)
    }

    private func openAndSweep() throws {
        let count = 10_000
        let directory = root.appendingPathComponent("open")
        try Self.fill(directory, count: count)
        let (open, listingOpen, listing, entries) = try Self.openTimes(directory, rounds: options.pick(quick: 5, full: 11))

        var sweep = Samples()
        var remaining = 0
        for round in 0..<options.pick(quick: 2, full: 3) {
            let sweepDirectory = root.appendingPathComponent("sweep-\(round)")
            try Self.fill(sweepDirectory, count: count)
            let full = try DiskCache(directory: sweepDirectory, sizeLimit: .max).totalSize
            sweep.add(try Stopwatch.time {
                let cache = try DiskCache(directory: sweepDirectory, sizeLimit: full / 2)
                cache.flush()
                remaining = cache.entryCount
            } / 1e6)
            try? FileManager.default.removeItem(at: sweepDirectory)
        }
        try? FileManager.default.removeItem(at: directory)

        var table = Table("4b. Disk: open and sweep of a 10,000-entry cache, ms, median (min-max)",
                          columns: ["operation", "ms", "target"])
        table.add(["open DiskCache with \(Format.grouped(entries)) entries from its index snapshot, until the index is loaded",
                   open.summary(2), "< 20 ms at 100,000 entries (table 6)"])
        table.add(["the same with the snapshot deleted (index from the directory listing, as before the snapshot)",
                   listingOpen.summary(2), ""])
        table.add(["floor: `FileManager.contentsOfDirectory` of the same directory", listing.summary(2), ""])
        table.add(["sweep: open with half the size limit, evict and delete LRU half, flush (\(Format.grouped(count - remaining)) files)",
                   sweep.summary(1), ""])
        table.print(note: "Entries of 4 KB; the directory's metadata is in the page cache (warm), as after an app relaunch.")
    }
}
