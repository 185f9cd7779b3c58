import CachedImageCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ImageFixtures

/// Table 14 (`--only parsers [--corpus DIR]`): the time the header and completeness checks take
/// on one body, for the inputs most likely to be slow: crafted ones (long chunk chains, icon
/// entries sharing an image, thousands of boxes, strips or sub-blocks) grown to 64 KB, the
/// fixtures, and every file of a fuzz corpus (`scripts/fuzz.sh` keeps them in
/// `.build-fuzz/corpus/image-headers`). Per input: `ImageInfo(data:)` and every format's
/// `ImageInfo.isComplete`, the work the validator runs on a download before any decoder. The
/// ceiling it checks: 5 ms for any input of at most 64 KB.
struct ParserWorstCaseBench {
    let options: BenchOptions

    static let ceiling = 0.005
    static let maximumLength = 65_536

    func run() throws {
        var inputs = Self.craftedInputs()
        if let corpus = options.corpus {
            let folder = URL(fileURLWithPath: corpus, isDirectory: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: corpus).sorted() {
                let data = try Data(contentsOf: folder.appendingPathComponent(name))
                if data.count <= Self.maximumLength { inputs.append(("corpus/" + name, data)) }
            }
        }
        var timed: [(name: String, bytes: Int, seconds: Double)] = []
        for input in inputs {
            // A fuzz corpus holds thousands of small inputs: a shorter budget each.
            let budget = input.name.hasPrefix("corpus/") ? 0.002 : options.pick(quick: 0.002, full: 0.02)
            timed.append((input.name, input.data.count, Self.secondsPerCheck(input.data, budget: budget)))
        }
        timed.sort { $0.seconds > $1.seconds }
        var table = Table(
            "14. The slowest bodies of at most 64 KB for the header and completeness checks (\(Format.grouped(timed.count)) inputs)",
            columns: ["input", "bytes", "time per check", "per 64 KB"]
        )
        for entry in timed.prefix(12) {
            table.add([
                entry.name, Format.grouped(entry.bytes), Self.describe(entry.seconds),
                Self.describe(entry.seconds * Double(Self.maximumLength) / Double(max(entry.bytes, 1))),
            ])
        }
        let worst = timed.first
        table.print(note: "Release build; per input, the median of 5 batches of repeated checks, in the thread's CPU time. Ceiling: "
            + "\(Self.describe(Self.ceiling)) for any input of at most 64 KB. Slowest: \(worst.map { "\($0.name), \(Self.describe($0.seconds))" } ?? "none")"
            + ((worst?.seconds ?? 0) <= Self.ceiling ? " (within the ceiling)." : " (OVER THE CEILING)."))
    }

    /// The checks the validator runs on a body: the sniff (size, extent) and every container's check.
    static func check(_ data: Data) -> Int {
        var complete = ImageInfo(data: data)?.pixelSize?.width ?? 0
        for format in ImageFormat.allCases where ImageInfo.isComplete(data, format: format) {
            complete += 1
        }
        return complete
    }

    /// Seconds per `check(data)`: the median of 5 batches, each repeating it for about `budget` seconds.
    static func secondsPerCheck(_ data: Data, budget: Double) -> Double {
        var sink = 0
        let once = cpuSeconds { sink &+= check(data) }
        let repeats = max(1, min(10_000, Int(budget / max(once, 1e-7))))
        var batches: [Double] = []
        for _ in 0..<5 {
            batches.append(cpuSeconds { for _ in 0..<repeats { sink &+= check(data) } } / Double(repeats))
        }
        if sink == .min { print(sink) }
        return batches.sorted()[2]
    }

    /// The CPU time this thread spends in `body`: on a shared machine, wall-clock time also
    /// counts the time other processes had the core.
    static func cpuSeconds(_ body: () -> Void) -> Double {
        func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let start = now()
        body()
        return now() - start
    }

    static func describe(_ seconds: Double) -> String {
        seconds >= 1e-3 ? "\(Format.number(seconds * 1e3, 2)) ms" : "\(Format.number(seconds * 1e6, 1)) µs"
    }

    /// Inputs built to make each parser walk as much as 64 KB allows.
    static func craftedInputs() -> [(name: String, data: Data)] {
        func u32be(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - $0 * 8)) } }
        let png = ImageFixtures.png(width: 8, height: 8, seed: 1)
        let emptyChunk = u32be(0) + Array("tEXt".utf8) + u32be(0)
        let pngChunks = Data(png.prefix(33) + (0..<5_400).flatMap { _ in emptyChunk })
        let emptyBox = u32be(8) + Array("free".utf8)
        let heifBoxes = Data(u32be(16) + Array("ftypheic".utf8) + u32be(0) + (0..<8_000).flatMap { _ in emptyBox })
        let gifBlocks = Data(Array("GIF89a".utf8) + [8, 0, 8, 0, 0, 0, 0] + (0..<21_000).flatMap { _ in [0x21, 0xFE, 0x00] })
        let jpegMarkers = Data([0xFF, 0xD8] + (0..<16_000).flatMap { _ in [0xFF, 0xFE, 0x00, 0x02] })
        return [
            ("icon: 2,600 entries sharing a PNG of 2,000 chunks", HostileImages.icoSharingOnePNG(entries: 2_600, emptyChunks: 2_000)),
            ("icon: 3,300 entries sharing a PNG of 1,000 chunks", HostileImages.icoSharingOnePNG(entries: 3_300, emptyChunks: 1_000)),
            ("icon: bitmap rows that overflow", HostileImages.icoWithOverflowingBitmap),
            ("BigTIFF: directory count that overflows", HostileImages.bigTIFFWithOverflowingDirectory),
            ("TIFF: 6,400 strips", ImageFixtures.tiffWithStripTablesLast(width: 2, height: 6_400, rowsPerStrip: 1)),
            ("PNG: 5,400 empty chunks", pngChunks),
            ("HEIF: 8,000 empty boxes", heifBoxes),
            ("GIF: 21,000 empty comment blocks", gifBlocks),
            ("JPEG: 16,000 empty comment segments", jpegMarkers),
            ("PNG fixture 128x128", ImageFixtures.png(width: 128, height: 128, seed: 2)),
            ("JPEG fixture 256x256", ImageFixtures.jpeg(width: 256, height: 256, seed: 2, detail: 4)),
        ]
    }
}
