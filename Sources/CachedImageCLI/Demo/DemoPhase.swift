/// The parts of the replayed session, in order.
public enum DemoPhase: String, Sendable, Hashable, Codable, CaseIterable {
    /// First launch, empty caches: scroll down the feed.
    case scroll
    /// Same launch: scroll back to the top.
    case backToTop
    /// A new process on the same disk: the same scroll again.
    case relaunch
    /// Day 2: a new process after the max-age has passed; the server has replaced about a tenth
    /// of the images (new bytes, new ETag). The same scroll again.
    case dayTwo
    /// A new process with the server gone: the same scroll again.
    case offline
    /// The week after day 2 (one ``PhaseReport`` per day, ``PhaseReport/day``): the server is back
    /// and publishes a batch of new images at the top of the feed each day; a new process a day
    /// scrolls the newest images (the day's batch, then a few older ones).
    case week
    /// After the week, with the server gone: a new process tries to show each of the latest day's
    /// images.
    case weekOffline

    /// The row label in the table.
    public var title: String {
        switch self {
        case .scroll: "launch 1: scroll down"
        case .backToTop: "launch 1: back to top"
        case .relaunch: "relaunch: same scroll"
        case .dayTwo: "day 2: max-age passed, 10% changed"
        case .offline: "offline launch: same scroll"
        case .week: "week: each day's new images"
        case .weekOffline: "week offline: latest day's images"
        }
    }

    /// Whether the phase starts a new launch (a new client over the same directory).
    var startsLaunch: Bool {
        self != .backToTop
    }

    /// Whether the server is down during the phase.
    public var isOffline: Bool {
        self == .offline || self == .weekOffline
    }
}
