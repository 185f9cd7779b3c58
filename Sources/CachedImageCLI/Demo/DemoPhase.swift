/// The parts of the replayed session, in order.
public enum DemoPhase: String, Sendable, Hashable, Codable, CaseIterable {
    /// First launch, empty caches: scroll down the feed.
    case scroll
    /// Same launch: scroll back to the top.
    case backToTop
    /// A new process on the same disk: the same scroll again.
    case relaunch
    /// A new process with the server gone: the same scroll again.
    case offline

    /// The row label in the table.
    public var title: String {
        switch self {
        case .scroll: "launch 1: scroll down"
        case .backToTop: "launch 1: back to top"
        case .relaunch: "relaunch: same scroll"
        case .offline: "offline launch: same scroll"
        }
    }

    /// Whether the phase starts a new launch (a new client over the same directory).
    var startsLaunch: Bool {
        self != .backToTop
    }
}
