import LoopbackServer

/// What one approach cost in the fling (``FlingSession``): a fast scroll through the feed, each
/// row on screen a few frames, then a short scroll back, from empty caches.
public struct FlingReport: Sendable, Hashable, Codable {
    /// Requests the server received, fling and scroll back, until every load had ended.
    public var requests: Int
    /// Body bytes the server sent meanwhile.
    public var bytesDownloaded: Int
    /// Loads that delivered an image after their view had left the screen (shown later or dropped).
    public var completedAfterLeaving: Int
    /// The most decoded bytes alive at once, sampled every frame: the approach's memory cache of
    /// decoded images, decodes in flight, and images held by live views (not counted twice when
    /// the memory cache holds them too).
    public var peakDecodedBytes: Int
    /// Cell appearances.
    public var appearances: Int
    /// Requests for the images that came back on screen during the scroll back, from its start.
    public var scrollBackRequests: Int
    /// Cells of the screen the user stopped on that showed an image at the end, and that screen's cells.
    public var finalScreenShown: Int
    public var finalScreen: Int
    /// The link the fling ran on (``LinkProfile/name``): `loopback` is the demo's own server.
    public var link = LinkProfile.loopback.name
    /// Body bytes of the stop screen's images.
    public var stopScreenBytes = 0
    /// Seconds from the stop (the last frame) until the stop screen showed its first image
    /// (0 when one was shown already); `nil` when none was.
    public var stopToFirstImage: Double?
    /// Seconds from the stop until half the stop screen's cells (rounded up) showed their
    /// image; `nil` when fewer did.
    public var stopToHalf: Double?
    /// Seconds from the stop until every cell of the stop screen showed its image; `nil` when
    /// some never did.
    public var stopToComplete: Double?
    /// The physical limit of ``stopToComplete``: a round trip of the link, then the stop
    /// screen's bytes at its bandwidth (all requested at the stop, nothing else on the link).
    public var physicalLimit = 0.0

    /// ``stopToComplete`` as a multiple of ``physicalLimit``.
    public var completeOverLimit: Double? {
        guard let stopToComplete, physicalLimit > 0 else { return nil }
        return stopToComplete / physicalLimit
    }
}
