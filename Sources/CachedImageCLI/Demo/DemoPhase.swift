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

    /// The row label in the table.
    public var title: String {
        switch self {
        case .scroll: "launch 1: scroll down"
        case .backToTop: "launch 1: back to top"
        case .relaunch: "relaunch: same scroll"
        case .dayTwo: "day 2: max-age passed, 10% changed"
        case .offline: "offline launch: same scroll"
        }
    }

    /// Whether the phase starts a new launch (a new client over the same directory).
    var startsLaunch: Bool {
        self != .backToTop
    }
}
