@_spi(Benchmarks) import CachedImageCore
import Foundation

/// Table 6: how the memory-cache hit, the disk read and the disk index open grow with the
/// number of entries, from 1,000 to 100,000.
struct ScalingBench {
    let options: BenchOptions
    let root: URL

    func run() throws {
        let counts = options.pick(quick: [1_000, 10_000, 20_000], full: [1_000, 10_000, 100_000])
        var table = Table(
            "6. Scaling with the number of entries, median (min-max)",
            columns: ["entries", "memory hit ns (URL keys)", "Dictionary + lock hit ns (floor)", "disk read µs (4 KB entry, verified)", "raw read µs (floor)",
                      "open until index loaded, from snapshot ms", "the same from a listing ms (no snapshot)", "directory listing ms (floor)"]
        )
        for count in counts {
            let (memory, dictionary) = memoryHit(entries: count)
            let directory = root.appendingPathComponent("scaling-\(count)")
            try DiskCacheBench.fill(directory, count: count)
            let (diskRead, rawRead) = try diskRead(directory, entries: count)
            let (open, listingOpen, listing, _) = try DiskCacheBench.openTimes(directory, rounds: options.pick(quick: 3, full: 7))
            try? FileManager.default.removeItem(at: directory)
            table.add([Format.grouped(count), memory.summary(1), dictionary.summary(1), diskRead.summary(2), rawRead.summary(2),
                       open.summary(2), listingOpen.summary(2), listing.summary(2)])
        }
        table.print(note: """
        Memory: random hits on a `MemoryCache<String, Payload>` holding every entry, and on a locked \
        `Dictionary` holding the same entries. Disk: \
        10,000 random reads (warm page cache) from a DiskCache of that many 4 KB entries, and the \
        same number of `Data(contentsOf:)` reads of its entry files as the floor. Open: the same \
        directory opened from its index snapshot and, interleaved, with the snapshot deleted (the \
        listing every open used before the snapshot). Targets: 2 ms at 1,000 entries, 20 ms at 100,000.
        """)
    }

    /// Hit times of the shipped cache and of the locked Dictionary, interleaved per round.
    private func memoryHit(entries: Int) -> (Samples, Samples) {
        let keys = (0..<entries).map { "https://img.example.com/p/\(100_000 + $0).jpg" }
        let cache = MemoryCache<String, Payload>(costLimit: entries)
        let dictionary = LockedDictionary<String>(costLimit: entries)
        for (index, key) in keys.enumerated() {
            let payload = Payload(id: index)
            cache.setValue(payload, forKey: key, cost: 1)
            dictionary.set(payload, for: key)
        }
        var rng = SplitMix(seed: 3)
        let operations = options.pick(quick: 200_000, full: 1_000_000)
        let order = (0..<operations).map { _ in Int.random(in: 0..<entries, using: &rng) }
        var samples = Samples()
        var floor = Samples()
        for _ in 0..<options.pick(quick: 3, full: 5) {
            var sink = 0
            samples.add(Stopwatch.time {
                for index in order { sink &+= cache.value(forKey: keys[index])?.id ?? 0 }
            } / Double(operations))
            floor.add(Stopwatch.time {
                for index in order { sink &+= dictionary.get(keys[index])?.id ?? 0 }
            } / Double(operations))
            blackHole(sink)
        }
        return (samples, floor)
    }

    private func diskRead(_ directory: URL, entries: Int) throws -> (Samples, Samples) {
        let cache = try DiskCache(directory: directory, sizeLimit: .max)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasPrefix(".") && $0 != "tmp" }
            .map { URL(fileURLWithPath: directory.path + "/" + $0) }
        var rng = SplitMix(seed: 5)
        let reads = 10_000
        let order = (0..<reads).map { _ in Int.random(in: 0..<entries, using: &rng) }
        var disk = Samples()
        var raw = Samples()
        for _ in 0..<options.pick(quick: 3, full: 5) {
            var sink = 0
            disk.add(Stopwatch.time {
                for index in order {
                    sink &+= cache.entry(forKey: "https://cdn.example.com/photos/2026/11/img-\(100_000 + index).jpg")?.data.count ?? 0
                }
            } / Double(reads) / 1_000)
            raw.add(Stopwatch.time {
                for index in order { sink &+= (try? Data(contentsOf: files[index % files.count]))?.count ?? 0 }
            } / Double(reads) / 1_000)
            blackHole(sink)
        }
        cache.flush()
        return (disk, raw)
    }
}
