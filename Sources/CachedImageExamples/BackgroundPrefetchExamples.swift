#if canImport(UIKit) && !os(watchOS)
import CachedImage
import SwiftUI
import UIKit

/// Prefetching that outlives the app: tomorrow's feed downloads on a background `URLSession`
/// while the app is suspended or after the system ended it, and shows from disk at the next launch. The
/// pipeline is configured at launch with the session's identifier; the app delegate, adopted by
/// SwiftUI with `@UIApplicationDelegateAdaptor`, hands the system's completion handler to the
/// pipeline when the system relaunches the app for the session's events. (Mark your app's type
/// `@main`.)
@MainActor
public struct MagazineApp: App {
    @UIApplicationDelegateAdaptor(MagazineAppDelegate.self) private var appDelegate

    public init() {
        var configuration = ImagePipeline.Configuration()
        // Creating the pipeline recreates the session, which then delivers its finished downloads.
        configuration.backgroundSessionIdentifier = MagazineAppDelegate.imageSession
        ImagePipeline.shared = ImagePipeline(configuration: configuration)
    }

    public var body: some Scene {
        WindowGroup {
            PhotoListView(photos: Photo.feed)
        }
    }
}

public final class MagazineAppDelegate: NSObject, UIApplicationDelegate {
    static let imageSession = "com.example.magazine.images"

    private let prefetcher = ImagePrefetcher()

    public func application(
        _ application: UIApplication,
        handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {
        // Called on the main thread once the finished downloads are in the disk cache.
        let handled = ImagePipeline.shared.handleBackgroundEvents(forSessionIdentifier: identifier) {
            completionHandler()
        }
        if !handled { completionHandler() }
    }

    /// Tomorrow's issue: downloaded while the app is away, validated and stored in the disk
    /// cache like any download. Images already fresh on disk are not downloaded again.
    public func prefetchNextIssue(_ photos: [Photo]) {
        let requests = photos.compactMap { $0.url }.map { ImageRequest(url: $0) }
        prefetcher.startPrefetching(with: requests, inBackground: true)
    }
}

/// The same without an app delegate (iOS 16 and later): SwiftUI runs the scene's
/// `.backgroundTask(.urlSession(_:))` action when the system relaunches the app for the session's
/// events, and suspends the app when the action returns, after the adoption.
@available(iOS 16.0, tvOS 16.0, *)
@MainActor
public struct GalleryApp: App {
    static let imageSession = "com.example.gallery.images"

    public init() {
        var configuration = ImagePipeline.Configuration()
        configuration.backgroundSessionIdentifier = Self.imageSession
        ImagePipeline.shared = ImagePipeline(configuration: configuration)
    }

    public var body: some Scene {
        WindowGroup {
            PhotoListView(photos: Photo.feed)
        }
        .backgroundTask(.urlSession(Self.imageSession)) {
            await ImagePipeline.shared.handleBackgroundEvents(forSessionIdentifier: Self.imageSession)
        }
    }
}
#endif
