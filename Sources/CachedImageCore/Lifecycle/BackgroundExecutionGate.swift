import Foundation

/// Lets the disk cache's locked operations start only while the process cannot be suspended
/// (``BackgroundExecutionState`` decides; this type adds the threads and the platform).
///
/// Every operation a ``DiskCache`` runs holding its directory's lock asks
/// ``beginLockedOperation()`` first and calls ``endLockedOperation()`` after; one that is refused
/// is deferred: a write stays queued in memory (and is served from there), and runs when the
/// gate calls its resume handlers (the app is active again, or an assertion could be had again).
/// An operation waiting for the lock gives up as soon as ``shouldAbandon`` (its assertion is
/// expiring), and the platform's expiry handler waits, up to ``expiryWaitLimit``, for the
/// operations in flight before the assertion ends: the lock is not held past it.
///
/// Without a provider (Linux, or an Apple app that never installed one) the process counts as
/// active and nothing is deferred. The Apple layer's `AppLifecycleObserver` installs one into
/// ``shared`` and reports the app's lifecycle.
package final class BackgroundExecutionGate: @unchecked Sendable {
    /// The process's gate, used by every disk cache unless one is given another (tests).
    package static let shared = BackgroundExecutionGate()

    /// How long an expiry handler waits for the locked operations in flight (one file write or
    /// a few deletions each; an operation still waiting for the lock gives up at once).
    package let expiryWaitLimit: TimeInterval

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var state: BackgroundExecutionState
    private var provider: (any BackgroundAssertionProviding)?
    private var assertions: [UInt64: any BackgroundAssertion] = [:]
    private var nextAssertionID: UInt64 = 1
    /// By owner; the number tells a handler from a later owner's at the same address.
    private var resumeHandlers: [ObjectIdentifier: (number: UInt64, handler: @Sendable () -> Bool)] = [:]
    private var nextResumeHandlerNumber: UInt64 = 0

    /// - Parameters:
    ///   - provider: The platform's assertions; `nil` until ``install(_:lifecycle:)``.
    ///   - lifecycle: The process's state when created.
    package init(
        provider: (any BackgroundAssertionProviding)? = nil,
        lifecycle: BackgroundExecutionState.Lifecycle = .active,
        expiryWaitLimit: TimeInterval = 2
    ) {
        self.provider = provider
        self.state = BackgroundExecutionState(lifecycle: lifecycle)
        self.expiryWaitLimit = expiryWaitLimit
    }

    /// Starts using `provider`, with the process in `lifecycle` now. The first provider
    /// installed stays (every pipeline's observer installs the same one).
    package func install(_ provider: any BackgroundAssertionProviding, lifecycle: BackgroundExecutionState.Lifecycle) {
        let actions: [BackgroundExecutionState.Action] = locked {
            guard self.provider == nil else { return [] }
            self.provider = provider
            switch lifecycle {
            case .active: return state.didBecomeActive()
            case .background, .unknown: return state.didEnterBackground(as: lifecycle, obtain: obtainLocked)
            }
        }
        perform(actions)
    }

    /// The current state (for tests and diagnostics).
    package var snapshot: BackgroundExecutionState { locked { state } }

    /// Whether an operation in flight should give up what it has not started yet.
    package var shouldAbandon: Bool { locked { state.shouldAbandon } }

    /// Asks to start a locked operation: `true` to go ahead (then call ``endLockedOperation()``),
    /// `false` to defer it until the resume handlers run.
    package func beginLockedOperation() -> Bool {
        let (started, actions) = locked { state.beginLockedOperation(obtain: obtainLocked) }
        perform(actions)
        return started
    }

    /// A locked operation that ``beginLockedOperation()`` let start is done, or gave up
    /// (`deferred`: it waits for the resume handlers, like one refused).
    package func endLockedOperation(deferred: Bool = false) {
        let actions = locked {
            let actions = state.endLockedOperation(deferred: deferred)
            condition.broadcast()
            return actions
        }
        perform(actions)
    }

    /// The app entered the background.
    package func didEnterBackground() {
        perform(locked { state.didEnterBackground(obtain: obtainLocked) })
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

    /// The platform says assertion `id` expires: returns once it has ended, after the
    /// operations in flight finished (or after ``expiryWaitLimit``).
    private func assertionExpired(_ id: UInt64) {
        condition.lock()
        var actions = state.assertionExpired(id)
        let deadline = Date().addingTimeInterval(expiryWaitLimit)
        // Until the operations in flight are done and the thread that finished the last one has
        // ended the assertion (it stays in `assertions` until its `end()` returned).
        if !actions.contains(.endAssertion(id)) {
            while state.assertion == id || assertions[id] != nil {
                if !condition.wait(until: deadline) {
                    actions += state.expiryDeadlinePassed(id)
                    break
                }
            }
        }
        condition.unlock()
        perform(actions)
    }

    /// Asks the provider for an assertion (under the lock); its identifier, or `nil`.
    private func obtainLocked() -> UInt64? {
        guard let provider else { return nil }
        let id = nextAssertionID
        nextAssertionID += 1
        let expired: @Sendable () -> Void = { [weak self] in self?.assertionExpired(id) }
        guard let assertion = provider.beginAssertion(named: "CachedImage: disk cache", expired: expired) else {
            return nil
        }
        assertions[id] = assertion
        return id
    }

    private func perform(_ actions: [BackgroundExecutionState.Action]) {
        for action in actions {
            switch action {
            case .endAssertion(let id):
                locked { assertions[id] }?.end()
                locked {
                    assertions[id] = nil
                    condition.broadcast()
                }
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
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
