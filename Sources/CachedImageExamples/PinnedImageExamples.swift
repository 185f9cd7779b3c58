#if canImport(SwiftUI)
import CachedImage
import Foundation

/// Pinned images: disk entries that eviction by size never removes (engine-level examples).
public enum PinnedImageExamples {
    /// A pipeline with 20 MB for pinned images, on top of the 150 MB the others share.
    public static func pipeline() -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.pinnedDiskCacheSizeLimit = 20 * 1024 * 1024
        return ImagePipeline(configuration: configuration)
    }

    /// Keeps the user's avatar for offline use, pinned; when the pinned budget is full (nothing
    /// was stored), evictable like a download.
    public static func saveOfflineAvatar(_ jpegData: Data, userID: String, pipeline: ImagePipeline) throws {
        do {
            try pipeline.storeImageData(jpegData, forKey: "avatar-\(userID)", pinned: true)
        } catch ImagePipeline.Error.pinnedSizeLimitExceeded {
            try pipeline.storeImageData(jpegData, forKey: "avatar-\(userID)")
        }
    }

    /// Onboarding art: pinned once downloaded, so the first screens show it offline.
    public static func onboardingRequest(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, options: [.pinOnDisk])
    }

    /// Onboarding is over: its art goes back to the least-recently-used sweep.
    public static func finishOnboarding(artURLs: [URL], pipeline: ImagePipeline) {
        for url in artURLs {
            pipeline.unpinImage(for: ImageRequest(url: url))
        }
    }
}
#endif
