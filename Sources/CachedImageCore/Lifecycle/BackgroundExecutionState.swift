/// Whether the process may start an operation that holds the disk cache's directory lock: the
/// decision behind ``BackgroundExecutionGate``, as a value with no threads and no platform in it.
///
/// iOS suspends an app seconds after it enters the background, and an app extension whenever
/// the system likes; a process suspended holding a file lock in a shared container is killed
/// (`0xdead10cc`). So a locked operation starts only while the process is known to run: in the
/// foreground, or inside a background assertion (`beginBackgroundTask` in an app,
/// `ProcessInfo.performExpiringActivity` in an extension). When no assertion can be had, or the
/// one held is expiring, new locked operations are refused (the disk cache keeps them queued
/// in memory) until the process is active again or an assertion can be had again.
///
/// The phases:
/// - ``Phase/active``: the app is in the foreground; locked operations start freely.
/// - ``Phase/backgroundWithAssertion``: an assertion is held; locked operations start under it,
///   and it is ended as soon as none is in flight.
/// - ``Phase/expiring``: the system said the assertion expires; nothing new starts, operations
///   in flight finish (or give up waiting for the lock), and the assertion ends with the last.
/// - ``Phase/suspended``: in the background (or an extension, whose state is never told) with
///   no assertion: the next locked operation asks for one, and is refused if it cannot be had.
package struct BackgroundExecutionState: Sendable, Equatable {
    /// What the platform says about the process.
    package enum Lifecycle: Sendable, Equatable {
        /// In the foreground: not suspended while it stays so.
        case active
        /// In the background: suspended soon unless an assertion is held.
        case background
        /// Never told (an app extension): may be suspended whenever no assertion is held.
        case unknown
    }

    /// See the type's description.
    package enum Phase: Sendable, Equatable {
        case active, backgroundWithAssertion, expiring, suspended
    }

    /// What the caller must do after an event, outside any lock.
    package enum Action: Sendable, Equatable {
        /// End the platform assertion with this identifier.
        case endAssertion(UInt64)
        /// Start again the locked operations that were refused.
        case resumeDeferred
    }

    package private(set) var lifecycle: Lifecycle
    /// The assertion held, by identifier.
    package private(set) var assertion: UInt64?
    /// Whether the held assertion was told it expires.
    package private(set) var isExpiring = false
    /// Locked operations started and not yet ended.
    package private(set) var lockedOperations = 0
    /// Whether an operation was refused since the last resume.
    package private(set) var hasDeferred = false
    /// Locked operations that were running without an assertion when the process went to the
    /// background and none could be had, or when an expiry could not wait for them any longer:
    /// never expected (they last milliseconds), counted so tests and diagnostics can see it.
    package private(set) var operationsOutlivingExpiry = 0

    package init(lifecycle: Lifecycle = .active) {
        self.lifecycle = lifecycle
    }

    package var phase: Phase {
        if isExpiring { return .expiring }
        if lifecycle == .active { return .active }
        return assertion == nil ? .suspended : .backgroundWithAssertion
    }

    /// Whether an operation in flight should give up what it has not started (waiting for the
    /// lock): the assertion it runs under is expiring.
    package var shouldAbandon: Bool { isExpiring }

    /// Asks to start a locked operation. In the background without an assertion, `obtain` asks
    /// the platform for one (its identifier, `nil` when it cannot be had). `true`: start it, and
    /// call ``endLockedOperation()`` when it is done; `false`: defer it.
    package mutating func beginLockedOperation(obtain: () -> UInt64?) -> (started: Bool, actions: [Action]) {
        if isExpiring {
            hasDeferred = true
            return (false, [])
        }
        if lifecycle != .active, assertion == nil {
            guard let id = obtain() else {
                hasDeferred = true
                return (false, [])
            }
            assertion = id
        }
        lockedOperations += 1
        // Running again (an assertion could be had after a refusal): the refused ones follow.
        return (true, takeResume())
    }

    /// A locked operation finished, or gave up (`deferred`: it waits for the resume, like one
    /// refused). The last one ends the assertion.
    package mutating func endLockedOperation(deferred: Bool = false) -> [Action] {
        precondition(lockedOperations > 0, "endLockedOperation without beginLockedOperation")
        lockedOperations -= 1
        if deferred { hasDeferred = true }
        guard lockedOperations == 0, let id = assertion else { return [] }
        assertion = nil
        isExpiring = false
        // Back in the foreground while it expired: the refused operations start again.
        return [.endAssertion(id)] + takeResume()
    }

    /// The app entered the background (or, `.unknown`, the process is an extension, which is
    /// never told): operations in flight (started in the foreground) need an assertion to finish.
    package mutating func didEnterBackground(as lifecycle: Lifecycle = .background, obtain: () -> UInt64?) -> [Action] {
        self.lifecycle = lifecycle == .active ? .background : lifecycle
        guard lockedOperations > 0, assertion == nil else { return [] }
        if let id = obtain() {
            assertion = id
        } else {
            operationsOutlivingExpiry += lockedOperations
        }
        return []
    }

    /// The app is in the foreground again: refused operations start again.
    package mutating func didBecomeActive() -> [Action] {
        lifecycle = .active
        return takeResume()
    }

    /// The platform says assertion `id` expires. With nothing in flight it ends now; otherwise
    /// nothing new starts, and it ends with the last operation in flight (the caller waits for
    /// that, up to a limit: ``expiryDeadlinePassed(_:)``).
    package mutating func assertionExpired(_ id: UInt64) -> [Action] {
        guard assertion == id else { return [] } // ended already
        guard lockedOperations > 0 else {
            assertion = nil
            return [.endAssertion(id)]
        }
        isExpiring = true
        return []
    }

    /// The caller could wait no longer for the operations in flight at expiry: the assertion
    /// ends now (the platform would otherwise kill the process for overrunning it).
    package mutating func expiryDeadlinePassed(_ id: UInt64) -> [Action] {
        guard assertion == id else { return [] }
        assertion = nil
        isExpiring = false
        operationsOutlivingExpiry += lockedOperations
        return [.endAssertion(id)] + takeResume()
    }

    private mutating func takeResume() -> [Action] {
        guard hasDeferred, phase == .active || phase == .backgroundWithAssertion else { return [] }
        hasDeferred = false
        return [.resumeDeferred]
    }
}
