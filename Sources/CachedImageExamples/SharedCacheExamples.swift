#if canImport(SwiftUI)
import CachedImage
import Foundation

/// A disk cache in an App Group container, so an app and its extensions (a widget, a share
/// extension) find each other's downloads.
public enum SharedCacheExamples {
    /// The App Group that the app and its extensions all list under Signing & Capabilities.
    public static let appGroup = "group.com.example.photos"

    /// One pipeline per process, on `Library/Caches/CachedImage` inside the group's container.
    /// Without the App Group entitlement the container is `nil`: the pipeline then keeps its
    /// default directory, private to the process's own container.
    public static let appGroupPipeline: ImagePipeline = {
        var configuration = ImagePipeline.Configuration()
        if let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) {
            configuration.diskCacheDirectory = container
                .appendingPathComponent("Library/Caches/CachedImage", isDirectory: true)
        }
        return ImagePipeline(configuration: configuration)
    }()
}
#endif
