import Foundation

/// The checked-in JPEGs of Tests/Fixtures/Progressive (see the README there).
enum ProgressiveFixtures {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Progressive")

    /// A 480x320 progressive JPEG of 10 scans.
    static func progressive() throws -> Data { try Data(contentsOf: folder.appendingPathComponent("progressive.jpg")) }
    /// The same picture as a baseline JPEG.
    static func baseline() throws -> Data { try Data(contentsOf: folder.appendingPathComponent("baseline.jpg")) }

    /// Where each scan of `progressive.jpg` ends, read by an independent marker walk.
    static let progressiveScanEnds = [2244, 3552, 4530, 5518, 5998, 8001, 8467, 9295, 10198, 17973]
}
