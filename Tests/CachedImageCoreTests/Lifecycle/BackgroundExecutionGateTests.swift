import Foundation
import Testing
@testable import CachedImageCore

@Suite("Background execution: the gate, with threads")
struct BackgroundExecutionGateTests {
    @Test("an expiry that comes while a locked operation runs releases its lock and ends the assertion before it returns, without waiting for the operation; nothing starts until it stopped")
    func expiryInterruptsTheOperationInFlight() throws {
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .background)
        let begun = gate.beginLockedOperation(onInterrupt: { provider.log.append("lock released") })
        let operation = try #require(begun)
        let assertion = try #require(provider.granted.first)

        // On this thread, with the operation still running: an expiry that waited for it
        // would never return.
        assertion.expire()
        #expect(provider.log.values == ["began 1", "lock released", "ended 1"])
        #expect(gate.shouldAbandon, "the interrupted operation stops at its next step")
        #expect(gate.beginLockedOperation() == nil, "nothing new starts while it stops")
        #expect(gate.snapshot.interruptedOperations == 1)

        gate.endLockedOperation(operation, deferred: true)
        #expect(gate.snapshot.phase == .suspended)
        #expect(provider.log.values == ["began 1", "lock released", "ended 1"], "ended once")
    }

    @Test("an interruption reaches only the operations in flight, once")
    func interruptionsReachOnlyOperationsInFlight() throws {
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .unknown)
        let calls = Recorder<Int>()
        let begun = (gate.beginLockedOperation(onInterrupt: { calls.append(1) }), gate.beginLockedOperation(onInterrupt: { calls.append(2) }))
        let first = try #require(begun.0)
        let second = try #require(begun.1)
        gate.endLockedOperation(first)
        try #require(provider.granted.first).expire()
        #expect(calls.values == [2])
        gate.endLockedOperation(second, deferred: true)
        let begunAgain = gate.beginLockedOperation(onInterrupt: { calls.append(3) })
        let third = try #require(begunAgain, "a new assertion after the expiry")
        try #require(provider.granted.first).expire() // late: ended already
        #expect(calls.values == [2])
        gate.endLockedOperation(third)
        #expect(provider.log.values == ["began 1", "ended 1", "began 2", "ended 2"])
    }

    @Test("an expiry with nothing in flight ends the assertion at once")
    func expiryWithNothingInFlight() throws {
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .unknown)
        let operation = try #require(gate.beginLockedOperation())
        let assertion = try #require(provider.granted.first)
        gate.endLockedOperation(operation)
        #expect(provider.log.values == ["began 1", "ended 1"], "the assertion ends with the last operation")
        assertion.expire() // late: already ended, changes nothing
        #expect(provider.log.values == ["began 1", "ended 1"])
    }

    @Test("a shared directory installs the default provider (lifecycle unknown: every locked operation asks); the platform layer's replaces it, and stays")
    func defaultProviderForSharedDirectories() throws {
        let fallback = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(defaultProvider: { fallback })
        #expect(!gate.hasProvider)
        #expect(gate.beginLockedOperation().map { gate.endLockedOperation($0) } != nil, "no provider: active")
        gate.coverSharedDirectory()
        #expect(gate.snapshot.lifecycle == .unknown)
        try gate.endLockedOperation(#require(gate.beginLockedOperation()))
        #expect(fallback.log.values == ["began 1", "ended 1"])

        let platform = ScriptedAssertionProvider()
        gate.install(platform, lifecycle: .active)
        #expect(gate.snapshot.phase == .active)
        gate.didEnterBackground()
        try gate.endLockedOperation(#require(gate.beginLockedOperation()))
        #expect(platform.log.values == ["began 1", "ended 1"])
        gate.coverSharedDirectory()
        gate.install(ScriptedAssertionProvider(), lifecycle: .unknown)
        try gate.endLockedOperation(#require(gate.beginLockedOperation()))
        #expect(platform.log.values == ["began 1", "ended 1", "began 2", "ended 2"], "the first platform provider stays")
        #expect(fallback.log.values == ["began 1", "ended 1"])
    }

    @Test("refused operations resume when the app is active again, through every live handler")
    func resumeHandlers() {
        let provider = ScriptedAssertionProvider(granting: false)
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .background)
        let calls = Recorder<Int>()
        let owners = (NSObject(), NSObject())
        gate.addResumeHandler(of: owners.0) { calls.append(1); return true }
        gate.addResumeHandler(of: owners.1) { calls.append(2); return false } // its owner is gone
        #expect(gate.beginLockedOperation() == nil)
        #expect(calls.values.isEmpty)
        gate.didBecomeActive()
        #expect(calls.values.sorted() == [1, 2])
        #expect(gate.resumeHandlerCount == 1, "the handler whose owner is gone is dropped")
        let active = gate.beginLockedOperation()
        #expect(active != nil, "active: starts without an assertion")
        active.map { gate.endLockedOperation($0) }
        provider.isGranting = true
        gate.didEnterBackground()
        let background = gate.beginLockedOperation()
        #expect(background != nil)
        background.map { gate.endLockedOperation($0) }
        #expect(provider.log.values == ["denied", "began 1", "ended 1"])
    }

    @Test("without a platform installed (Linux, or an app that never installed one) nothing is refused")
    func noProvider() {
        let gate = BackgroundExecutionGate(defaultProvider: { nil })
        let operation = gate.beginLockedOperation()
        #expect(operation != nil)
        operation.map { gate.endLockedOperation($0) }
        gate.coverSharedDirectory()
        #expect(!gate.hasProvider, "no default provider here: nothing installed")
        #expect(gate.snapshot.phase == .active)
    }

    @Test("the provider is asked with the gate's lock released: while it decides, expiries, other operations and lifecycle events return; an assertion that expired before it was installed ends, and the operation is deferred")
    func providerIsAskedOutsideTheLock() throws {
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .unknown)
        let resumed = Recorder<Int>()
        gate.addResumeHandler(of: provider) { resumed.append(1); return true }
        let first = try #require(gate.beginLockedOperation())
        gate.endLockedOperation(first)
        let old = try #require(provider.granted.first)

        // The next operation asks; the system takes its time to decide.
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        provider.heldBegin.withLock { $0 = (entered, release) }
        let asked = Locked<UInt64??>(nil)
        let asking = BackgroundThread { asked.withLock { $0 = .some(gate.beginLockedOperation()) } }
        #expect(entered.wait(timeout: .now() + 60) == .success)
        provider.heldBegin.withLock { $0 = nil }
        let pending = try #require(provider.granted.last)

        let others = BackgroundThread {
            old.expire() // an expiry of an assertion ended before
            pending.expire() // the one being decided, granted and expiring before it is installed
            _ = gate.snapshot
            #expect(gate.beginLockedOperation() == nil, "another operation waits for no decision: it is deferred")
        }
        #expect(others.wait(), "an expiry or an operation waited for the provider's decision")
        #expect(!asking.isDone)

        release.signal()
        #expect(asking.wait())
        #expect(asked.withLock { $0 } == .some(nil), "an assertion that expired before it was installed covers nothing")
        #expect(provider.log.values == ["began 1", "ended 1", "began 2", "ended 2"])
        #expect(gate.snapshot.phase == .suspended && gate.snapshot.lockedOperations == 0)

        // The next assertion resumes what was deferred.
        let third = try #require(gate.beginLockedOperation())
        #expect(resumed.values == [1])
        gate.endLockedOperation(third)
        #expect(provider.log.values == ["began 1", "ended 1", "began 2", "ended 2", "began 3", "ended 3"])
    }
}

/// Polls `condition` (another thread is on its way), failing after a generous limit.
func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<60_000 {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}
