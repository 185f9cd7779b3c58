import CachedImageCore
import Dispatch
import Foundation

/// `ratios`: each CachedImage operation timed against its documents-directory baseline in one
/// process, operation by operation, alternating which goes first, and their medians and
/// ratios printed side by side. Wall clock, so it moves with the machine's load; the guard
/// compares instruction counts instead.
struct DiskHitRatios {
    let loop: DiskHitLoop
    let rounds: Int

    /// Each CachedImage operation and the baseline it is compared with.
    static let pairs = [
        ("hit", "documents", "disk hit, `image(for:)` (memory cache off)"),
        ("task", "documents", "disk hit, `imageTask(with:).response`"),
        ("relaunch", "documents", "relaunch: new pipeline + first `image(for:)`"),
        ("firstframe", "documentsthumb", "relaunch: new pipeline + `firstFrameImage(for:)`"),
        ("screen", "documentsscreen", "relaunch: new pipeline + a screen of 12 loading together, until all shown"),
    ]

    func run() async throws {
        print("| operation | CachedImage p50 (µs) | documents dir p50 (µs) | ratio | CachedImage p99 | documents dir p99 |")
        print("|---|---:|---:|---:|---:|---:|")
        for (operation, baseline, name) in Self.pairs {
            // Only the steady hits read through one pipeline; none is alive for the others, so
            // each of their pipelines opens the disk cache anew, as a relaunch does.
            let pipeline = ["hit", "task"].contains(operation) ? loop.makePipeline(keepsImages: false) : nil
            var measured: [Double] = [], base: [Double] = []
            let count = rounds * DiskHitLoop.photoCount
            for index in 0..<(DiskHitLoop.photoCount + count) {
                let warm = index < DiskHitLoop.photoCount
                // Steady hits find their entry in the index (see `DiskHitLoop.loop`).
                if index == DiskHitLoop.photoCount, let pipeline { DiskHitLoop.loadIndex(of: pipeline) }
                func time(_ name: String, into samples: inout [Double]) async throws {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try await loop.perform(name, index, on: pipeline)
                    if !warm { samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000) }
                }
                if index % 2 == 0 {
                    try await time(operation, into: &measured)
                    try await time(baseline, into: &base)
                } else {
                    try await time(baseline, into: &base)
                    try await time(operation, into: &measured)
                }
            }
            let (p50, baseP50) = (Self.percentile(measured, 0.5), Self.percentile(base, 0.5))
            print("| \(name) | \(Self.format(p50)) | \(Self.format(baseP50)) | \(String(format: "%.2fx", p50 / baseP50)) "
                + "| \(Self.format(Self.percentile(measured, 0.99))) | \(Self.format(Self.percentile(base, 0.99))) |")
        }
        print("\n\(rounds) rounds of \(DiskHitLoop.photoCount) operations each, after one warm-up pass; the baseline reads the same file from the documents directory and decodes it the same way.")
    }

    static func percentile(_ samples: [Double], _ fraction: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
