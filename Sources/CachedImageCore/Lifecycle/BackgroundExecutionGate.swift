import Foundation

/// Lets the disk cache's locked operations start only while the process cannot be suspended
/// (``BackgroundExecutionState`` decides; this type adds the threads and the platform).
///
/// Every operation a ``DiskCache`` runs holding its directory's lock asks
/// ``beginLockedOperation(onInterrupt:)`` first and calls ``endLockedOperation(_:deferred:)``
/// after; one that is refused is deferred: a write stays queued in memory (and is served from
/// there), and runs when the gate calls its resume handlers (the app is active again, or an
/// assertion could be had again). When the platform says the assertion expires, the expiry
/// handler returns at once: it calls each operation's interruption (which releases its lock
/// then and there), ends the assertion, and the operations stop at their next step
/// (``shouldAbandon``), deferring the rest. The lock is never held past the assertion, and
/// the handler never waits.
///
/// Without a provider (Linux, macOS) the process counts as active and nothing is deferred. On
/// the other Apple platforms a disk cache on a shared (App Group) directory installs the
/// default provider (``coverSharedDirectory()``: `ProcessInfo.performExpiringActivity`, every
/// locked operation inside one) whatever else runs; the Apple layer's
/// `BackgroundExecutionObserver` installs the same kind with the app's lifecycle, which UIKit's
/// notifications keep up to date, so an app asks for none in the foreground (see
/// ``BackgroundCoverage``). The provider is never asked with the gate's lock held.
package final class BackgroundExecutionGate: @unchecked Sendable {
    /// The process's gate, used by every disk cache unless one is given another (tests).
    package static let shared = BackgroundExecutionGate()

    // Guarded by `lock`.
    private let lock = NSLock()
    private var state: BackgroundExecutionState
    private var provider: (any BackgroundAssertionProviding)?
    /// Whether `provider` is the default one (core's, installed for a shared directory), which
    /// the platform layer's replaces.
    private var isDefaultProvider = false
    private let defaultProvider: @Sendable () -> (any BackgroundAssertionProviding)?
    private var assertions: [UInt64: any BackgroundAssertion] = [:]
    /// The assertion a thread is asking the provider for (with the gate's lock released), and
    /// whether it expired before it was installed.
    private var obtaining: (id: UInt64, hasExpired: Bool)?
    private var nextAssertionID: UInt64 = 1
    /// The operations in flight, by number, with what releases their lock.
    private var interruptions: [UInt64: @Sendable () -> Void] = [:]
    private var nextOperation: UInt64 = 1
    /// By owner; the number tells a handler from a later owner's at the same address.
    private var resumeHandlers: [ObjectIdentifier: (number: UInt64, handler: @Sendable () -> Bool)] = [:]
    private var nextResumeHandlerNumber: UInt64 = 0

    /// - Parameters:
    ///   - provider: The platform's assertions; `nil` until ``install(_:lifecycle:)`` or
    ///     ``coverSharedDirectory()``.
    ///   - lifecycle: The process's state when created.
    ///   - defaultProvider: What ``coverSharedDirectory()`` installs: on iOS, tvOS, watchOS and
    ///     visionOS `ProcessInfo.performExpiringActivity`; elsewhere nothing (tests inject one).
    package init(
        provider: (any BackgroundAssertionProviding)? = nil,
        lifecycle: BackgroundExecutionState.Lifecycle = .active,
        defaultProvider: @escaping @Sendable () -> (any BackgroundAssertionProviding)? = BackgroundCoverage.defaultProvider
    ) {
        self.provider = provider
        self.state = BackgroundExecutionState(lifecycle: lifecycle)
        self.defaultProvider = defaultProvider
    }

    /// Starts using `provider`, with the process in `lifecycle` now. The first provider
    /// installed stays (every pipeline's observer installs the same one), except the default
    /// one, which this replaces: the assertions it gave stay until they end.
    package func install(_ provider: any BackgroundAssertionProviding, lifecycle: BackgroundExecutionState.Lifecycle) {
        let isInstalled: Bool = locked {
            guard self.provider == nil || isDefaultProvider else { return false }
            self.provider = provider
            isDefaultProvider = false
            return true
        }
        if isInstalled { enter(lifecycle) }
    }

    /// A disk cache opened on a directory other processes share (an App Group container): unless
    /// a provider is installed, installs the default one, with the process's lifecycle unknown
    /// (every locked operation then runs inside an assertion), whatever views ran. Nothing
    /// where there is no default provider (Linux, macOS).
    package func coverSharedDirectory() {
        let isInstalled: Bool = locked {
            guard provider == nil, let provider = defaultProvider() else { return false }
            self.provider = provider
            isDefaultProvider = true
            return true
        }
        if isInstalled { enter(.unknown) }
    }

    /// Whether a provider is installed (for tests and diagnostics).
    package var hasProvider: Bool { locked { provider != nil } }

    private func enter(_ lifecycle: BackgroundExecutionState.Lifecycle) {
        apply { state, obtain in
            switch lifecycle {
            case .active: ((), state.didBecomeActive())
            case .background, .unknown: ((), state.didEnterBackground(as: lifecycle, obtain: obtain))
            }
        } whenApplied: { _ in }
    }

    /// The current state (for tests and diagnostics).
    package var snapshot: BackgroundExecutionState { locked { state } }

    /// Whether an operation in flight should give up what it has not started yet.
    package var shouldAbandon: Bool { locked { state.shouldAbandon } }

    /// Asks to start a locked operation: its number to go ahead (then call
    /// ``endLockedOperation(_:deferred:)``), `nil` to defer it until the resume handlers run.
    /// `onInterrupt` releases the operation's lock when its assertion expires (called once at
    /// most, on the expiring thread, while the gate's lock is held: it must not call the gate).
    package func beginLockedOperation(onInterrupt: @escaping @Sendable () -> Void = {}) -> UInt64? {
        apply { state, obtain in
            state.beginLockedOperation(obtain: obtain)
        } whenApplied: { started in
            guard started else { return nil }
            let number = nextOperation
            nextOperation += 1
            interruptions[number] = onInterrupt
            return number
        }
    }

    /// The locked operation `number` is done, or gave up (`deferred`: it waits for the resume
    /// handlers, like one refused).
    package func endLockedOperation(_ number: UInt64, deferred: Bool = false) {
        let actions = locked {
            interruptions[number] = nil
            return state.endLockedOperation(deferred: deferred)
        }
        perform(actions)
    }

    /// The app entered the background.
    package func didEnterBackground() {
        apply { state, obtain in ((), state.didEnterBackground(obtain: obtain)) } whenApplied: { _ in }
    }

    /// The app is active (in the foreground) again.
    package func didBecomeActive() {
        perform(locked { state.didBecomeActive() })
    }

    /// Adds `owner`'s handler, called (on any thread) when deferred operations may start again;
    /// it returns `false` once its owner is gone, and is then dropped. The owner removes it when
    /// it goes away (``removeResumeHandler(of:)`` in its `deinit`), so a process that opens and
    /// closes caches keeps no handler of a cache that is gone.
    package func addResumeHandler(of owner: AnyObject, _ handler: @escaping @Sendable () -> Bool) {
        locked {
            nextResumeHandlerNumber += 1
            resumeHandlers[ObjectIdentifier(owner)] = (nextResumeHandlerNumber, handler)
        }
    }

    /// Removes `owner`'s handler.
    package func removeResumeHandler(of owner: AnyObject) {
        locked { resumeHandlers[ObjectIdentifier(owner)] = nil }
    }

    /// How many handlers are registered (for tests).
    var resumeHandlerCount: Int {
        locked { resumeHandlers.count }
    }

    /// The platform says assertion `id` expires: interrupts the operations in flight (their
    /// locks are released before this returns), ends the assertion and returns, never waiting.
    private func assertionExpired(_ id: UInt64) {
        perform(locked {
            // Granted and not installed yet: the thread that asked ends it.
            if obtaining?.id == id {
                obtaining?.hasExpired = true
                return []
            }
            let actions = state.assertionExpired(id)
            interruptIfNeeded(actions)
            return actions
        })
    }

    /// Runs the interruptions of the operations in flight, under the gate's lock: an operation
    /// cannot end (and another start, under a later assertion) while its interruption runs.
    private func interruptIfNeeded(_ actions: [BackgroundExecutionState.Action]) {
        guard actions.contains(.interruptLockedOperations) else { return }
        for interrupt in interruptions.values { interrupt() }
    }

    /// Applies `event` to the state, under the gate's lock, then `whenApplied` to its result
    /// (still under it), then performs its actions (outside it).
    ///
    /// The provider is never asked with the gate's lock held: asking may wait for the system's
    /// decision (`performExpiringActivity` does), and every expiry handler, and the main
    /// thread's lifecycle events, take that lock. So `event` is first tried on a copy of the
    /// state with no assertion to be had; if it asks for one, the thread marks it as being
    /// obtained, releases the lock, asks the provider, retakes the lock and applies `event` to
    /// the state as it is by then, with that assertion: installed if `event` still asks for it,
    /// ended at once otherwise (the app became active, or an interruption came meanwhile) or
    /// when it expired before it was installed. While one thread asks, others do not wait: they
    /// get no assertion (an operation is deferred and resumed once the assertion is in;
    /// entering the background with operations in flight interrupts them, which only defers
    /// their rest).
    private func apply<Result, Output>(
        _ event: (inout BackgroundExecutionState, _ obtain: () -> UInt64?) -> (Result, [BackgroundExecutionState.Action]),
        whenApplied: (Result) -> Output
    ) -> Output {
        lock.lock()
        var trial = state
        var asks = false
        _ = event(&trial) { asks = true; return nil }
        guard asks, obtaining == nil, let provider else {
            let (result, actions) = event(&state) { nil }
            interruptIfNeeded(actions)
            let output = whenApplied(result)
            lock.unlock()
            perform(actions)
            return output
        }
        let id = nextAssertionID
        nextAssertionID += 1
        obtaining = (id, false)
        lock.unlock()

        let expired: @Sendable () -> Void = { [weak self] in self?.assertionExpired(id) }
        let assertion = provider.beginAssertion(named: "CachedImage: disk cache", expired: expired)

        lock.lock()
        let hasExpired = obtaining?.hasExpired ?? false
        obtaining = nil
        var isUsed = false
        let (result, actions) = event(&state) {
            guard assertion != nil, !hasExpired, !isUsed else { return nil }
            isUsed = true
            return id
        }
        if isUsed { assertions[id] = assertion }
        interruptIfNeeded(actions)
        let output = whenApplied(result)
        lock.unlock()
        if !isUsed { assertion?.end() }
        perform(actions)
        return output
    }

    private func perform(_ actions: [BackgroundExecutionState.Action]) {
        for action in actions {
            switch action {
            case .endAssertion(let id):
                locked { assertions[id] }?.end()
                locked { assertions[id] = nil }
            case .interruptLockedOperations:
                break // done under the lock, with the event (interruptIfNeeded)
            case .resumeDeferred:
                let handlers = locked { resumeHandlers }
                let gone = handlers.filter { !$0.value.handler() }
                if !gone.isEmpty {
                    locked {
                        for (owner, entry) in gone where resumeHandlers[owner]?.number == entry.number {
                            resumeHandlers[owner] = nil
                        }
                    }
                }
            }
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
