#if canImport(SwiftUI)
import CachedImage
import Foundation

/// One photo of the examples' feed: a large original on a public image service.
public struct Photo: Identifiable, Hashable, Sendable {
    public let id: Int
    public let url: URL?

    public init(id: Int, url: URL?) {
        self.id = id
        self.url = url
    }

    /// 1,000 photos, each a 4000x3000 original.
    public static let feed: [Photo] = (0..<1_000).map { index in
        Photo(id: index, url: URL(string: "https://picsum.photos/id/\(index)/4000/3000"))
    }
}
#endif
