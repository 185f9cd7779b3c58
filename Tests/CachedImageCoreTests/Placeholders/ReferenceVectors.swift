import Foundation

/// The checked-in outputs of the hash formats' reference decoders (Tests/Fixtures/Placeholders;
/// how they were made is in the README there).
enum ReferenceVectors {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Placeholders")

    struct ThumbHashVector: Decodable {
        let hash: String
        let width: Int
        let height: Int
        let aspectRatio: Double
        let average: [Double]
        let rgba: String
    }

    struct BlurHashVector: Decodable {
        let hash: String
        let width: Int
        let height: Int
        let rgba: String
    }

    static func load<Vector: Decodable>(_ name: String, as type: [Vector].Type) throws -> [Vector] {
        try JSONDecoder().decode(type, from: Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// The largest difference, per channel, between two RGBA buffers of one size.
    static func maximumDifference(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        zip(lhs, rhs).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }
}
