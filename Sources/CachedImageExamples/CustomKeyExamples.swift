#if canImport(SwiftUI)
import CachedImage
import Foundation

/// Your own images under your own keys, and Low Data Mode: engine-level examples (they compile
/// on every platform).
public enum CustomKeyExamples {
    /// Keeps a photo the user picked under the user's own key: readable at once, on disk across
    /// launches, validated like a download.
    public static func saveAvatar(_ jpegData: Data, userID: String, pipeline: ImagePipeline = .shared) throws {
        try pipeline.storeImageData(jpegData, forKey: "avatar-\(userID)")
    }

    /// Reads it back (memory, else disk; never the network), decoded for a 40x40 point slot
    /// (120x120 pixels on a 3x screen).
    public static func avatar(userID: String, pipeline: ImagePipeline = .shared) async throws -> DecodedImage {
        try await pipeline.image(forKey: "avatar-\(userID)", targetSize: CGSize(width: 40, height: 40))
    }

    /// A pipeline that also saves cellular data: requests with a constrained-network policy use
    /// it on expensive networks too (Low Data Mode is followed by default).
    public static func cellularSavingPipeline() -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.useNetworkMonitor(.shared, treatingExpensiveAsConstrained: true)
        return ImagePipeline(configuration: configuration)
    }
}
#endif
