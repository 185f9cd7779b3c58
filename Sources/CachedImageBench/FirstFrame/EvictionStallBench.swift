import CachedImageCore
import Foundation
import ToolSupport

/// Table 2b: first-frame lookups on one thread while another thread stores large decoded images
/// into a full cache, so that every store evicts one. Freeing an evicted image returns its
/// pixels to the system (here 4 MB unmapped); a cache that frees inside its lock makes every
/// lookup that arrives meanwhile wait.
struct EvictionStallBench {
    let options: BenchOptions

    var stores: Int { options.pick(quick: 100, full: 200) }
    var rounds: Int { options.pick(quick: 3, full: 5) }
    let imageBytes = 4 * 1024 * 1024
    let residentImages = 8

    /// A decoded image's pixels: mapped and written outside any cache, unmapped on deinit, as a
    /// large allocation can be when it is freed (glibc's `free` would keep these in its heap once
    /// its threshold has grown past their size, and hide the cost).
    final class Bitmap: @unchecked Sendable {
        // @unchecked: the pages are written once, before the bitmap is shared.
        let pixels: UnsafeMutableRawPointer
        let bytes: Int

        init(bytes: Int) {
            let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard let mapped, mapped != MAP_FAILED else { fatalError("mmap of \(bytes) bytes failed") }
            pixels = mapped
            self.bytes = bytes
            memset(pixels, 0x5A, bytes)
        }

        deinit { munmap(pixels, bytes) }
    }

    /// The three caches under test, as the two threads call them.
    private enum Subject: CaseIterable {
        case memoryCache, lockedFIFO, nsCache

        var title: String {
            switch self {
            case .memoryCache: "`MemoryCache` (releases evicted values after unlocking)"
            case .lockedFIFO: "locked `Dictionary`, FIFO eviction (releases inside the lock)"
            case .nsCache: "`NSCache` with a total cost limit"
            }
        }
    }

    /// One round's lookup latencies, in nanoseconds.
    private struct Round {
        var p50: Double
        var p9999: Double
        /// Lookups that took over 10 µs, and the time they took together.
        var stalls: Int
        var stalledNanoseconds: Double
        var lookups: Int
    }

    func run() {
        var results: [Subject: [Round]] = [:]
        for round in 0..<rounds {
            // Rotate the order so no cache always runs first or last on a noisy machine.
            let subjects = Subject.allCases
            for offset in 0..<subjects.count {
                let subject = subjects[(offset + round) % subjects.count]
                results[subject, default: []].append(measure(subject))
            }
        }
        var table = Table(
            "2b. First-frame lookups while another thread stores large images into a full cache: "
                + "ns per lookup, median of \(rounds) rounds",
            columns: ["cache", "p50", "p99.99", "lookups over 10 µs", "time in them (µs)", "lookups per round"]
        )
        for subject in Subject.allCases {
            let rounds = results[subject] ?? []
            func median(_ value: (Round) -> Double) -> Double { Samples(rounds.map(value)).median }
            table.add([
                subject.title,
                Format.number(median(\.p50), 0),
                Format.grouped(Int(median(\.p9999))),
                Format.grouped(Int(median { Double($0.stalls) })),
                Format.grouped(Int(median(\.stalledNanoseconds) / 1_000)),
                Format.grouped(Int(median { Double($0.lookups) })),
            ])
        }
        table.print(note: """
        One thread stores \(stores) images of \(imageBytes / 1_048_576) MB into a cache that holds \(residentImages) \
        (each store evicts one, whose pixels are freed and unmapped); another thread looks up an image \
        that is not cached (a new cell's first frame) as fast as it can, timing each call. \
        The pixels are allocated and written before the store, outside every cache.
        """)
    }

    private func measure(_ subject: Subject) -> Round {
        let imageBytes = self.imageBytes
        let costLimit = residentImages * imageBytes
        let store: @Sendable (Bitmap, Int) -> Void
        let lookUp: @Sendable (Int) -> Bool
        switch subject {
        case .memoryCache:
            let cache = MemoryCache<Int, Bitmap>(costLimit: costLimit)
            store = { cache.setValue($0, forKey: $1, cost: imageBytes) }
            lookUp = { cache.value(forKey: $0) != nil }
        case .lockedFIFO:
            let cache = LockedFIFOImageCache<Bitmap>(costLimit: costLimit)
            store = { cache.setValue($0, forKey: $1, cost: imageBytes) }
            lookUp = { cache.value(forKey: $0) != nil }
        case .nsCache:
            let cache = FoundationImageCache(costLimit: costLimit)
            store = { cache.setValue($0, forKey: $1, cost: imageBytes) }
            lookUp = { cache.value(forKey: $0) }
        }
        for key in 0..<residentImages { store(Bitmap(bytes: imageBytes), key) }

        let capacity = 16_000_000
        let done = Protected(false)
        let recorded = Protected<[UInt32]>([])
        let readerFinished = DispatchSemaphore(value: 0)
        Thread {
            var latencies: [UInt32] = []
            latencies.reserveCapacity(capacity)
            var hits = 0
            while latencies.count < capacity {
                if latencies.count & 1_023 == 0, done.withLock({ $0 }) { break }
                let start = Stopwatch.nanos()
                if lookUp(-1) { hits += 1 }
                latencies.append(UInt32(clamping: Stopwatch.nanos() - start))
            }
            precondition(hits == 0)
            recorded.withLock { $0 = latencies }
            readerFinished.signal()
        }.start()
        for key in residentImages..<(residentImages + stores) {
            store(Bitmap(bytes: imageBytes), key)
        }
        done.withLock { $0 = true }
        readerFinished.wait()

        let sorted = recorded.withLock { $0 }.sorted()
        let count = sorted.count
        func at(_ fraction: Double) -> Double {
            Double(sorted[Swift.min(count - 1, Int(fraction * Double(count)))])
        }
        let stalled = sorted.drop { $0 <= 10_000 }
        return Round(
            p50: at(0.5), p9999: at(0.9999),
            stalls: stalled.count, stalledNanoseconds: stalled.reduce(0) { $0 + Double($1) },
            lookups: count
        )
    }
}

/// Foundation's `NSCache` keyed by `NSNumber`, with a total cost limit.
private final class FoundationImageCache: @unchecked Sendable {
    // @unchecked: NSCache is documented as thread-safe.
    private let cache = NSCache<NSNumber, EvictionStallBench.Bitmap>()

    init(costLimit: Int) {
        cache.totalCostLimit = costLimit
    }

    func value(forKey key: Int) -> Bool {
        cache.object(forKey: NSNumber(value: key)) != nil
    }

    func setValue(_ value: EvictionStallBench.Bitmap, forKey key: Int, cost: Int) {
        cache.setObject(value, forKey: NSNumber(value: key), cost: cost)
    }
}
