/// How much of the memory cache to let go of when the system reports memory pressure: the
/// rule behind the Apple layer's `MemoryPressureTrimmer`, which listens to
/// `DispatchSource.makeMemoryPressureSource` on every Apple platform (macOS, watchOS and
/// visionOS included, where there is no UIKit memory warning).
///
/// - `.warning`: trim to ``warningFraction`` of the cost limit (the images on screen usually fit).
/// - `.critical`: empty the cache (what a UIKit memory warning does).
/// - `.normal`: nothing.
///
/// Under either pressure level the bytes kept to resume interrupted downloads are let go of too.
package enum MemoryPressureResponse {
    /// A memory-pressure level, as the system reports it.
    package enum Level: Sendable, Hashable {
        case normal, warning, critical
    }

    /// The share of the cost limit kept on a warning (25%).
    package static let warningFraction = 0.25

    /// Whether the bytes kept to resume interrupted downloads stay at `level`: only without
    /// pressure (they are the cheapest memory to give back: at worst a download starts over).
    package static func keepsResumableDownloads(at level: Level) -> Bool {
        level == .normal
    }

    /// The cost to trim the memory cache to at `level`, for a cache of `costLimit` bytes;
    /// `nil`: leave it.
    package static func trimTarget(for level: Level, costLimit: Int) -> Int? {
        switch level {
        case .normal: nil
        case .warning: Int(Double(max(0, costLimit)) * warningFraction)
        case .critical: 0
        }
    }
}
