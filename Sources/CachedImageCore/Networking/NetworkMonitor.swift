import Foundation
#if canImport(Network)
@preconcurrency import Network
#endif

/// Whether the current network is constrained (Low Data Mode) or expensive (cellular, a
/// personal hotspot), kept up to date by the system on Apple platforms.
///
/// ``shared`` is what ``ImagePipeline/Configuration`` consults by default: on Apple platforms it
/// follows an `NWPathMonitor` (Network framework), so a request's
/// ``ImageRequest/ConstrainedNetworkPolicy`` (a smaller fallback URL, or cache only) applies in
/// Low Data Mode without app code. Elsewhere (Linux) nothing reports conditions and the network
/// counts as neither constrained nor expensive.
///
/// Inject your own for tests or another source of truth:
///
/// ```swift
/// let monitor = NetworkMonitor(conditions: .init(isConstrained: true))
/// var configuration = ImagePipeline.Configuration()
/// configuration.useNetworkMonitor(monitor)
/// monitor.update(.init(isConstrained: false))   // e.g. from your own reachability code
/// ```
public final class NetworkMonitor: Sendable {
    /// What the current network path costs.
    public struct Conditions: Sendable, Hashable, CustomStringConvertible {
        /// Low Data Mode is on for this path (`NWPath.isConstrained`).
        public var isConstrained: Bool
        /// The path is expensive: cellular or a personal hotspot (`NWPath.isExpensive`).
        public var isExpensive: Bool
        /// The network is reachable (`NWPath.status == .satisfied`). Default `true`.
        public var isReachable: Bool

        /// Conditions with the given values (by default: unconstrained, not expensive, reachable).
        public init(isConstrained: Bool = false, isExpensive: Bool = false, isReachable: Bool = true) {
            self.isConstrained = isConstrained
            self.isExpensive = isExpensive
            self.isReachable = isReachable
        }

        public var description: String {
            "Conditions(constrained: \(isConstrained), expensive: \(isExpensive), reachable: \(isReachable))"
        }
    }

    /// The process-wide monitor the default configuration reads. On Apple platforms it starts an
    /// `NWPathMonitor` the first time it is used; until the system's first report, the network
    /// counts as unconstrained.
    public static let shared: NetworkMonitor = {
        let monitor = NetworkMonitor()
        #if canImport(Network)
        monitor.startSystemMonitoring()
        #endif
        return monitor
    }()

    private let state: Locked<Conditions>
    private let reachabilityObservers = Locked<[@Sendable () -> Void]>([])
    #if canImport(Network)
    private let pathMonitor = Locked<NWPathMonitor?>(nil)
    #endif

    /// A monitor with fixed `conditions` until ``update(_:)`` changes them; it follows nothing by
    /// itself (on Apple platforms, call `startSystemMonitoring()` for the system's reports).
    public init(conditions: Conditions = Conditions()) {
        state = Locked(conditions)
    }

    /// The conditions now. Cheap: one lock, no system call.
    public var conditions: Conditions {
        state.withLock { $0 }
    }

    /// Low Data Mode is on.
    public var isConstrained: Bool { conditions.isConstrained }

    /// The network is expensive (cellular, hotspot).
    public var isExpensive: Bool { conditions.isExpensive }

    /// Replaces the conditions (what the system monitor does on every path change). When the
    /// network becomes reachable again, the observers of ``onReachabilityRestored(_:)`` are called.
    public func update(_ conditions: Conditions) {
        let restored = state.withLock { state in
            defer { state = conditions }
            return !state.isReachable && conditions.isReachable
        }
        guard restored else { return }
        for observer in reachabilityObservers.withLock({ $0 }) { observer() }
    }

    /// Calls `observer` (on the thread that reports it) every time the network becomes
    /// reachable after it was not (`FailureRecovery` asks failed images again then).
    public func onReachabilityRestored(_ observer: @escaping @Sendable () -> Void) {
        reachabilityObservers.withLock { $0.append(observer) }
    }

    #if canImport(Network)
    /// Follows the system's network path with an `NWPathMonitor`: Low Data Mode and expensive
    /// paths update ``conditions`` as they change. Calling it again does nothing.
    public func startSystemMonitoring() {
        pathMonitor.withLock { existing in
            guard existing == nil else { return }
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { [weak self] path in
                self?.update(Conditions(
                    isConstrained: path.isConstrained, isExpensive: path.isExpensive, isReachable: path.status == .satisfied
                ))
            }
            monitor.start(queue: DispatchQueue(label: "CachedImage.NetworkMonitor", qos: .utility))
            existing = monitor
        }
    }

    /// Stops following the system (the conditions keep their last value).
    public func stopSystemMonitoring() {
        pathMonitor.withLock { existing in
            existing?.cancel()
            existing = nil
        }
    }
    #endif
}

extension ImagePipeline.Configuration {
    /// Reads Low Data Mode (and, if asked, expensive networks) from `monitor`:
    /// ``isNetworkConstrained`` becomes `monitor.isConstrained`, or
    /// `isConstrained || isExpensive` with `treatingExpensiveAsConstrained`, so requests'
    /// ``ImageRequest/ConstrainedNetworkPolicy`` also saves cellular data.
    /// The default configuration already uses ``NetworkMonitor/shared`` without the expensive flag.
    public mutating func useNetworkMonitor(_ monitor: NetworkMonitor, treatingExpensiveAsConstrained: Bool = false) {
        if treatingExpensiveAsConstrained {
            isNetworkConstrained = { let conditions = monitor.conditions; return conditions.isConstrained || conditions.isExpensive }
        } else {
            isNetworkConstrained = { monitor.isConstrained }
        }
    }
}
