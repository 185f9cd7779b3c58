/// Whether the process may start an operation that holds the disk cache's directory lock: the
/// decision behind ``BackgroundExecutionGate``, as a value with no threads and no platform in it.
///
/// iOS suspends an app seconds after it enters the background, and an app extension whenever
/// the system likes; a process suspended holding a file lock in a shared container is killed
/// (`0xdead10cc`). So a locked operation starts only while the process is known to run: in the
/// foreground, or inside a background assertion (`ProcessInfo.performExpiringActivity`). When no assertion can be had, or the
/// one held expires, new locked operations are refused (the disk cache keeps them queued
/// in memory) until the process is active again or an assertion can be had again.
///
/// An expiry never waits for the operations in flight: they are interrupted (their directory
/// lock is released at once, ``Action/interruptLockedOperations``), then the assertion ends, and
/// each stops at its next step (every step under the lock is one file operation) and defers the
/// rest. Going to the background with operations in flight and no assertion to be had does the
/// same.
///
/// The phases:
/// - ``Phase/active``: the app is in the foreground; locked operations start freely.
/// - ``Phase/backgroundWithAssertion``: an assertion is held; locked operations start under it,
///   and it is ended as soon as none is in flight.
/// - ``Phase/expiring``: the assertion expired (or none could be had) while operations were in
///   flight: they were interrupted, nothing new starts until the last of them has stopped.
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
        /// Release the directory lock of every locked operation in flight, now (before any
        /// assertion ends): they stop at their next step.
        case interruptLockedOperations
    }

    package private(set) var lifecycle: Lifecycle
    /// The assertion held, by identifier.
    package private(set) var assertion: UInt64?
    /// Whether the operations in flight were interrupted (the assertion expired, or none could
    /// be had in the background): nothing new starts until they have all stopped.
    package private(set) var isExpiring = false
    /// Locked operations started and not yet ended.
    package private(set) var lockedOperations = 0
    /// Whether an operation was refused since the last resume.
    package private(set) var hasDeferred = false
    /// Locked operations interrupted (their lock released under them) because their assertion
    /// expired or the process went to the background with none to be had: counted so tests and
    /// diagnostics can see it.
    package private(set) var interruptedOperations = 0

    package init(lifecycle: Lifecycle = .active) {
        self.lifecycle = lifecycle
    }

    package var phase: Phase {
        if isExpiring { return .expiring }
        if lifecycle == .active { return .active }
        return assertion == nil ? .suspended : .backgroundWithAssertion
    }

    /// Whether an operation in flight should give up what it has not started (waiting for the
    /// lock, its next step): it was interrupted.
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
    /// refused). The last one ends the assertion (or, after an interruption, lets operations
    /// start again).
    package mutating func endLockedOperation(deferred: Bool = false) -> [Action] {
        precondition(lockedOperations > 0, "endLockedOperation without beginLockedOperation")
        lockedOperations -= 1
        if deferred { hasDeferred = true }
        guard lockedOperations == 0 else { return [] }
        isExpiring = false
        var actions: [Action] = []
        if let id = assertion {
            assertion = nil
            actions.append(.endAssertion(id))
        }
        // Back in the foreground while it expired: the refused operations start again.
        return actions + takeResume()
    }

    /// The app entered the background (or, `.unknown`, the process is an extension, which is
    /// never told): operations in flight (started in the foreground) need an assertion to finish,
    /// and are interrupted when none can be had.
    package mutating func didEnterBackground(as lifecycle: Lifecycle = .background, obtain: () -> UInt64?) -> [Action] {
        self.lifecycle = lifecycle == .active ? .background : lifecycle
        guard lockedOperations > 0, assertion == nil, !isExpiring else { return [] }
        if let id = obtain() {
            assertion = id
            return []
        }
        isExpiring = true
        interruptedOperations += lockedOperations
        return [.interruptLockedOperations]
    }

    /// The app is in the foreground again: refused operations start again.
    package mutating func didBecomeActive() -> [Action] {
        lifecycle = .active
        return takeResume()
    }

    /// The platform says assertion `id` expires: it ends now, never waiting. Operations in
    /// flight are interrupted first (their lock released), and nothing new starts until they
    /// have stopped.
    package mutating func assertionExpired(_ id: UInt64) -> [Action] {
        guard assertion == id else { return [] } // ended already
        assertion = nil
        guard lockedOperations > 0 else { return [.endAssertion(id)] }
        isExpiring = true
        interruptedOperations += lockedOperations
        return [.interruptLockedOperations, .endAssertion(id)]
    }

    private mutating func takeResume() -> [Action] {
        guard hasDeferred, phase == .active || phase == .backgroundWithAssertion else { return [] }
        hasDeferred = false
        return [.resumeDeferred]
    }
}
