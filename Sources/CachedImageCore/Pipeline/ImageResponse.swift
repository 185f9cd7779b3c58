import Foundation

/// A loaded image, where it came from, and how long it took.
public struct ImageResponse: Sendable {
    /// The decoded image.
    public var image: DecodedImage
    /// The request that was served (after any Low Data Mode fallback).
    public var request: ImageRequest
    /// Where the image came from.
    public var source: Source
    /// Timings and counts for this request.
    package var metrics: TaskMetrics
    /// The HTTP response the image came from, as a cache presents it: the status and header
    /// fields received (``Source/network``), the stored ones with their current `Age`
    /// (``Source/disk``, ``Source/memory``), or the stored ones updated by the `304`
    /// (``Source/revalidated``; RFC 9111 4.3.4). `nil` for file URLs, loaders that return no
    /// `HTTPURLResponse`, entries stored by versions that did not keep the response, and memory
    /// hits whose response record was dropped (the memory cache keeps a bounded number).
    package var httpResponse: CachedHTTPResponse? = nil
    /// When a view showing this image keeps it available for display whatever its freshness
    /// (the memory cache will not serve it once stale; `no-store` responses never are).
    var displayRetention = DisplayRetention.never
    /// `true` for a preview of a progressive JPEG still downloading (on a slow link, or any link
    /// with ``ImageRequest/Options/showProgressivePreviews``): shown until the final image, never cached.
    /// `false` for the final image.
    public var isPreview = false
    /// `true` for a stored image shown although its HTTP headers ask for it to be revalidated
    /// first (`no-cache`, `max-age=0`, expired): a view shows it at once (after a relaunch,
    /// offline) and revalidates it behind it; the image is replaced only if the server sends
    /// other bytes, and the view's next phase says `false` once the server confirmed it.
    /// ``ImagePipeline/image(for:)-(ImageRequest)`` answers a stale entry this way only where
    /// RFC 9111 lets a cache serve it without the server (`stale-if-error`, disconnected).
    public var isStale = false
    /// Why the stale image (``isStale``) could not be revalidated: the network is unreachable,
    /// the connection dropped, the server failed (`5xx`). The image stays on screen; the view
    /// asks again when the network comes back (`FailureRecovery`). `nil` otherwise.
    public var revalidationError: ImagePipeline.Error?

    /// Where a response's bytes came from.
    public enum Source: String, Sendable, Hashable, Codable, CaseIterable {
        /// The memory cache of decoded images: no I/O, no decoding.
        case memory
        /// The disk cache, fresh (or allowed stale, offline): no network.
        case disk
        /// A full download.
        case network
        /// The disk cache after the server confirmed it with `304 Not Modified`: no body downloaded.
        case revalidated
    }
}

/// Stored bytes served although their headers ask for a revalidation first, and why the server
/// could not be asked (``ImageResponse/isStale``, ``ImageResponse/revalidationError``).
struct Staleness: Sendable {
    /// The revalidation's failure; `nil` while it has not ended (a view shows the image meanwhile).
    var error: ImagePipeline.Error?
}

extension ImageResponse {
    /// Marks the response as `staleness` says (no change for `nil`).
    mutating func mark(_ staleness: Staleness?) {
        guard let staleness else { return }
        isStale = true
        revalidationError = staleness.error
    }
}

/// Per-request measurements.
package struct TaskMetrics: Sendable, Hashable {
    /// When the request started (pipeline clock).
    package var startDate: Date
    /// Wall time from start to result, in seconds (monotonic).
    package var duration: TimeInterval
    /// `true` when the request joined a download or decode another request had already started.
    package var isCoalesced: Bool
    /// Body bytes received from the network for this image (shared with coalesced requests).
    package var bytesDownloaded: Int

    /// Metrics with the given values.
    package init(startDate: Date, duration: TimeInterval, isCoalesced: Bool, bytesDownloaded: Int) {
        self.startDate = startDate
        self.duration = duration
        self.isCoalesced = isCoalesced
        self.bytesDownloaded = bytesDownloaded
    }
}

/// Original bytes loaded through the pipeline's disk cache and network, without decoding.
package struct ImageDataResponse: Sendable {
    /// The image's encoded bytes.
    package var data: Data
    /// The format and size read from the bytes' header.
    package var info: ImageInfo
    /// Where the bytes came from (never `.memory`).
    package var source: ImageResponse.Source
    /// Body bytes received from the network to produce this response.
    package var bytesDownloaded: Int
    /// The HTTP response the bytes came with, as a cache presents it (see
    /// ``ImageResponse/httpResponse``).
    package var httpResponse: CachedHTTPResponse?
    /// How long an image decoded from these bytes may stay in the memory cache.
    var memoryLifetime: MemoryCacheLifetime = .unlimited
    /// What is (or would be) stored about the response: its `Vary` keys the memory entry.
    var metadata: CachedResponseMetadata?
    /// Stored bytes served although stale (see ``ImageResponse/isStale``), and why the server
    /// could not confirm them.
    var staleness: Staleness?

    init(
        data: Data, info: ImageInfo, source: ImageResponse.Source, bytesDownloaded: Int,
        memoryLifetime: MemoryCacheLifetime = .unlimited, metadata: CachedResponseMetadata? = nil,
        httpResponse: CachedHTTPResponse? = nil
    ) {
        self.data = data
        self.info = info
        self.source = source
        self.bytesDownloaded = bytesDownloaded
        self.memoryLifetime = memoryLifetime
        self.metadata = metadata
        self.httpResponse = httpResponse
    }
}
