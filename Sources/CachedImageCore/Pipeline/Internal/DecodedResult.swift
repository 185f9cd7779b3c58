import Foundation

/// What an image job hands its subscribers.
struct DecodedResult: Sendable {
    var image: DecodedImage
    var source: ImageResponse.Source
    var bytesDownloaded: Int
    var isCoalesced: Bool
    var httpResponse: CachedHTTPResponse?
    /// See ``ImageResponse/displayRetention``.
    var displayRetention = DisplayRetention.never
    /// See ``ImageResponse/isStale``.
    var staleness: Staleness?
}
