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
}
