/// The ways of loading feed images the demo compares.
public enum DemoApproach: String, Sendable, Hashable, Codable, CaseIterable {
    /// `ImagePipeline`: memory cache of decoded images, disk cache of original bytes, HTTP
    /// freshness, coalescing.
    case cachedImage
    /// What SwiftUI's `AsyncImage` does: every appearance asks `URLSession` (default configuration,
    /// `URLCache` with the platform's default shared capacities); no cache of decoded images.
    case asyncImage
    /// Downloads with `URLSession` (no `URLCache`) and saves each file to a directory under its
    /// URL's `lastPathComponent`; reads the file back when it exists. No memory cache.
    case documentsDirectory
    /// Downloads with `URLSession` (no `URLCache`) into an `NSCache` of decoded images with the same
    /// memory budget as CachedImage's memory cache. Nothing on disk.
    case nsCache

    /// The column title in the table.
    public var title: String {
        switch self {
        case .cachedImage: "CachedImage"
        case .asyncImage: "AsyncImage-like"
        case .documentsDirectory: "Documents dir"
        case .nsCache: "NSCache only"
        }
    }

    /// The second line of the column title.
    public var subtitle: String {
        switch self {
        case .cachedImage: "ImagePipeline"
        case .asyncImage: "URLCache"
        case .documentsDirectory: "lastPathComponent"
        case .nsCache: "in memory"
        }
    }
}
