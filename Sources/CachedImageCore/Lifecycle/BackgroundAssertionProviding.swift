/// The platform's background assertions, as ``BackgroundExecutionGate`` uses them: injectable,
/// so the gate's decisions are tested on every platform.
///
/// On iOS, tvOS, watchOS and visionOS, `ExpiringActivityAssertions`
/// (`ProcessInfo.performExpiringActivity`) in every process. Asked from any thread, never with
/// the gate's lock held: it may wait for the system's decision.
package protocol BackgroundAssertionProviding: Sendable {
    /// Asks the system to keep the process running. Returns the assertion, or `nil` when it
    /// cannot be had (the system is about to suspend the process). `expired` is called, once, on
    /// any thread (never from within this call), when the system wants the assertion back; it
    /// never waits, and returns once the assertion may end (the gate ends it before returning,
    /// or, when it comes before the gate installed the assertion, the thread that asked for it
    /// ends it as soon as it has it), so it may be called from the platform's expiry handler
    /// directly.
    func beginAssertion(named name: String, expired: @escaping @Sendable () -> Void) -> (any BackgroundAssertion)?
}

/// An assertion a ``BackgroundAssertionProviding`` gave: ended once, by ``end()``.
package protocol BackgroundAssertion: Sendable {
    /// Gives the assertion back to the system.
    func end()
}
