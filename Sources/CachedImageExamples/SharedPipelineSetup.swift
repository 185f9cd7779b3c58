#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// An app's start-up, in one place: the shared pipeline configured once, at launch, before any
/// image loads (every `CachedAsyncImage`, `UIImageView.cachedImage` call, `CachedImageViewLoader`
/// and `ImagePrefetcher` given no pipeline of its own uses it). Its disk cache sits in the App
/// Group's container, so the app's widget and extensions read what the app downloaded; the
/// memory cache has a budget of its own; a bearer token, refreshed as it expires, is added to
/// each network request. (Mark your app's type `@main`.)
@MainActor
public struct PhotosApp: App {
    public init() {
        var configuration = ImagePipeline.Configuration()
        // Shared with the app's extensions (the same App Group under Signing & Capabilities).
        if let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.photos") {
            configuration.diskCacheDirectory = container.appendingPathComponent("Library/Caches/CachedImage", isDirectory: true)
        }
        configuration.diskCacheSizeLimit = 500 * 1024 * 1024       // bytes on disk
        configuration.memoryCacheCostLimit = 150 * 1024 * 1024     // bytes of decoded bitmaps
        // Asked just before each network request, never for memory or disk hits.
        configuration.requestModifier = { request in
            var request = request
            request.setValue("Bearer \(try await AccessToken.current())", forHTTPHeaderField: "Authorization")
            return request
        }
        ImagePipeline.shared = ImagePipeline(configuration: configuration)
    }

    public var body: some Scene {
        WindowGroup {
            PhotoListView(photos: Photo.feed)
        }
    }
}

/// Your app's token store: a valid token, refreshed when it has expired.
public enum AccessToken {
    public static func current() async throws -> String {
        "token"
    }
}
#endif
