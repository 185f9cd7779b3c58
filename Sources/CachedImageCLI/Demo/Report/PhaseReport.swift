/// What one approach did during one phase, as measured (server counters and client timings).
public struct PhaseReport: Sendable, Hashable, Codable {
    public var phase: DemoPhase
    /// The simulated day of a ``DemoPhase/week`` phase (3, 4, …), or the latest day for
    /// ``DemoPhase/weekOffline``; `nil` for the other phases.
    public var day: Int?
    /// Cell appearances replayed.
    public var views: Int
    /// Views answered by each source.
    public var memoryHits: Int
    public var diskHits: Int
    public var networkLoads: Int
    public var failures: Int
    /// Requests the server received during the phase (full and conditional).
    public var networkRequests: Int
    /// Response body bytes the server sent during the phase.
    public var bytesDownloaded: Int
    /// From the start of the launch (creating the client) to the first image shown, in seconds;
    /// `nil` for phases that do not start a launch or showed nothing.
    public var timeToFirstImage: Double?
    /// Wall time of the phase, in seconds.
    public var duration: Double
    /// Views that showed an older version of their URL's image than the server holds.
    public var outdatedShown: Int
    /// Views that showed the bytes of another URL (file-name collisions).
    public var wrongShown: Int
    /// Views that showed a stored image at once, marked stale, during its revalidation (the
    /// view's display rule), instead of waiting for the server.
    public var staleShown = 0
    /// Conditional requests (`If-None-Match`/`If-Modified-Since`) the server received.
    public var conditionalRequests: Int
    /// `304 Not Modified` answers the server sent.
    public var notModified: Int
    /// Images decoded, and the decoded bytes (bitmap memory) they produced.
    public var decodes: Int
    public var decodedBytes: Int
    /// Bytes the approach had on disk once the launch ended; measured for the week's days only.
    public var diskUsageAfterLaunch: Int?

    /// Views that showed an image.
    public var shown: Int { views - failures }
}
