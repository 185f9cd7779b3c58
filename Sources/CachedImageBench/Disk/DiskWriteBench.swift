import CachedImageCore
import Foundation

/// `--only diskwrite` (table 4c): the shipped `DiskCache` alone, time per entry to write
/// thumbnails (5-20 KB) and table 4a's mix (20-500 KB) until they are on disk, and to read every
/// entry back from disk (a disk hit: the index knows it, the file is read and verified).
/// Workloads alternate within each round; each round uses a new directory.
///
/// `--only diskwriteloop`: the same small-entry writes (then reads) without timing, for exact
/// counts. The quick run stores 1,000 entries and the full run 2,000, so the difference of two
/// runs is the cost of 1,000 writes and 1,000 reads, setup excluded:
///
///     strace -c -f .build/release/cachedimage-bench [--quick] --only diskwriteloop
struct DiskWriteBench {
    let options: BenchOptions
    let root: URL

    struct Workload {
        let name: String
        let bodies: [Data]
        let keys: [String]
        let readOrder: [Int]
        var write = Samples()
        var read = Samples()
        var hits = 0
    }

    static let metadata = CachedResponseMetadata(
        contentType: "image/jpeg", etag: "\"5f3a-1b2c3d\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT",
        storedAt: Date(), initialAge: 0, freshnessLifetime: 86_400
    )

    static func workload(_ name: String, count: Int, sizes: ClosedRange<Int>, seed: UInt64) -> Workload {
        var rng = SplitMix(seed: seed)
        let pool = Data((0..<sizes.upperBound * 2).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let bodies = (0..<count).map { index in
            let size = Int.random(in: sizes, using: &rng)
            let start = Int.random(in: 0...(pool.count - size), using: &rng)
            return Data(pool[start..<(start + size)])
        }
        let keys = (0..<count).map { "https://cdn.example.com/\(name)/2026/11/img-\(100_000 + $0).jpg" }
        return Workload(name: name, bodies: bodies, keys: keys, readOrder: Array(0..<count).shuffled(using: &rng))
    }

    func run() throws {
        let rounds = options.pick(quick: 5, full: 9)
        var workloads = [
            Self.workload("thumbnails", count: options.pick(quick: 1_000, full: 3_000), sizes: 5_000...20_000, seed: 31),
            Self.workload("mixed", count: options.pick(quick: 200, full: 600), sizes: 20_000...500_000, seed: 32),
        ]
        for round in 0..<rounds {
            for position in workloads.indices {
                let directory = root.appendingPathComponent("diskwrite-\(round)-\(position)")
                let (write, read, hits) = try Self.writeAndRead(workloads[position], directory: directory)
                workloads[position].write.add(write / 1e3 / Double(workloads[position].bodies.count))
                workloads[position].read.add(read / 1e3 / Double(workloads[position].bodies.count))
                workloads[position].hits = hits
                try? FileManager.default.removeItem(at: directory)
            }
        }
        var table = Table(
            "4c. Disk: DiskCache write and disk-hit read, µs per entry, median (min-max) of \(rounds) interleaved rounds",
            columns: ["entries", "write µs/entry", "read µs/entry", "hits"]
        )
        for workload in workloads {
            let bytes = workload.bodies.reduce(0) { $0 + $1.count }
            let sizes = workload.bodies.map(\.count)
            table.add([
                "\(Format.grouped(workload.bodies.count)) \(workload.name) of \(sizes.min()! / 1_000)-\(sizes.max()! / 1_000) KB "
                    + "(\(Format.number(Double(bytes) / 1_048_576, 0)) MB)",
                workload.write.summary(1), workload.read.summary(1),
                "\(Format.grouped(workload.hits)) / \(Format.grouped(workload.bodies.count))",
            ])
        }
        table.print(note: """
        Write: `store` every entry into a new cache, then `flush()` (returns once every file is on \
        disk). Read: `entry(forKey:)` of every entry once, shuffled, after the flush (so from the \
        file, warm page cache, key and checksum verified).
        """)
    }

    /// Stores every entry of `workload` into a new cache in `directory` and flushes, then reads
    /// every entry back: nanoseconds of each phase and the number of verified hits.
    static func writeAndRead(_ workload: Workload, directory: URL) throws -> (write: Double, read: Double, hits: Int) {
        let cache = try DiskCache(directory: directory, sizeLimit: .max)
        _ = cache.entryCount // the (empty) index is loaded before timing
        let write = Stopwatch.time {
            for (key, body) in zip(workload.keys, workload.bodies) {
                cache.store(body, metadata: metadata, forKey: key)
            }
            cache.flush()
        }
        var hits = 0
        let read = Stopwatch.time {
            for index in workload.readOrder {
                if let entry = cache.entry(forKey: workload.keys[index]), entry.data.count == workload.bodies[index].count {
                    hits += 1
                }
            }
        }
        return (write, read, hits)
    }

    /// `--only diskwriteloop`: small-entry writes and reads, untimed, for `strace -c` or callgrind.
    /// A line on standard error (one `write(2, …)`) marks the start and end of each phase in a
    /// full `strace -f` log.
    func loop() throws {
        let workload = Self.workload("thumbnails", count: options.pick(quick: 1_000, full: 2_000), sizes: 5_000...20_000, seed: 31)
        let cache = try DiskCache(directory: root.appendingPathComponent("diskwriteloop"), sizeLimit: .max)
        _ = cache.entryCount
        func mark(_ text: String) { FileHandle.standardError.write(Data("diskwriteloop: \(text)\n".utf8)) }
        mark("writes begin")
        for (key, body) in zip(workload.keys, workload.bodies) {
            cache.store(body, metadata: Self.metadata, forKey: key)
        }
        cache.flush()
        mark("writes end")
        var hits = 0
        mark("reads begin")
        for index in workload.readOrder where cache.entry(forKey: workload.keys[index]) != nil { hits += 1 }
        mark("reads end")
        print("\ndiskwriteloop: \(workload.bodies.count) entries written, \(hits) read back")
    }
}
