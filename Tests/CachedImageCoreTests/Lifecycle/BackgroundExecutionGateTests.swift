import Foundation
import Testing
@testable import CachedImageCore

@Suite("Background execution: the gate, with threads")
struct BackgroundExecutionGateTests {
    @Test("an expiry that comes while a locked operation runs ends the assertion only after the operation ended; nothing starts meanwhile")
    func expiryWaitsForTheOperationInFlight() throws {
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .background, expiryWaitLimit: 60)
        #expect(gate.beginLockedOperation())
        let assertion = try #require(provider.granted.first)

        let expiry = BackgroundThread { assertion.expire() }
        #expect(waitUntil { gate.snapshot.phase == .expiring })
        #expect(gate.shouldAbandon, "an operation still waiting for the lock gives up")
        #expect(!gate.beginLockedOperation(), "nothing new starts while the assertion expires")
        #expect(provider.log.values == ["began 1"], "the assertion must outlive the operation holding the lock")

        provider.log.append("operation ended")
        gate.endLockedOperation()
        #expect(expiry.wait())
        #expect(provider.log.values == ["began 1", "operation ended", "ended 1"])
        #expect(gate.snapshot.phase == .suspended)
        #expect(gate.snapshot.operationsOutlivingExpiry == 0)
    }

    @Test("the expiry returns only after the thread that finished the last operation has ended the assertion")
    func expiryWaitsForTheEndItself() throws {
        let provider = ScriptedAssertionProvider()
        let release = DispatchSemaphore(value: 0)
        provider.heldEnd.withLock { $0 = release }
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .background, expiryWaitLimit: 60)
        #expect(gate.beginLockedOperation())
        let assertion = try #require(provider.granted.first)

        let expiry = BackgroundThread { assertion.expire() }
        #expect(waitUntil { gate.snapshot.phase == .expiring })
        let operation = BackgroundThread { gate.endLockedOperation() }
        #expect(waitUntil { provider.log.values.contains("ending 1") })
        #expect(!expiry.isDone, "returned while the assertion was still being ended")
        release.signal()
        #expect(operation.wait())
        #expect(expiry.wait())
        #expect(provider.log.values == ["began 1", "ending 1", "ended 1"])
    }

    @Test("an expiry with nothing in flight ends the assertion at once")
    func expiryWithNothingInFlight() throws {
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .unknown, expiryWaitLimit: 60)
        #expect(gate.beginLockedOperation())
        let assertion = try #require(provider.granted.first)
        gate.endLockedOperation()
        #expect(provider.log.values == ["began 1", "ended 1"], "the assertion ends with the last operation")
        assertion.expire() // late: already ended, changes nothing
        #expect(provider.log.values == ["began 1", "ended 1"])
    }

    @Test("an expiry that cannot wait any longer ends the assertion and says an operation outlived it")
    func expiryDeadline() throws {
        let provider = ScriptedAssertionProvider()
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .background, expiryWaitLimit: 0.01)
        #expect(gate.beginLockedOperation())
        try #require(provider.granted.first).expire()
        #expect(provider.log.values == ["began 1", "ended 1"])
        #expect(gate.snapshot.operationsOutlivingExpiry == 1)
        gate.endLockedOperation()
    }

    @Test("refused operations resume when the app is active again, through every live handler")
    func resumeHandlers() {
        let provider = ScriptedAssertionProvider(granting: false)
        let gate = BackgroundExecutionGate(provider: provider, lifecycle: .background)
        let calls = Recorder<Int>()
        let owners = (NSObject(), NSObject())
        gate.addResumeHandler(of: owners.0) { calls.append(1); return true }
        gate.addResumeHandler(of: owners.1) { calls.append(2); return false } // its owner is gone
        #expect(!gate.beginLockedOperation())
        #expect(calls.values.isEmpty)
        gate.didBecomeActive()
        #expect(calls.values.sorted() == [1, 2])
        #expect(gate.resumeHandlerCount == 1, "the handler whose owner is gone is dropped")
        #expect(gate.beginLockedOperation(), "active: starts without an assertion")
        gate.endLockedOperation()
        provider.isGranting = true
        gate.didEnterBackground()
        #expect(gate.beginLockedOperation())
        gate.endLockedOperation()
        #expect(provider.log.values == ["denied", "began 1", "ended 1"])
    }

    @Test("without a platform installed (Linux, or an app that never installed one) nothing is refused")
    func noProvider() {
        let gate = BackgroundExecutionGate()
        #expect(gate.beginLockedOperation())
        gate.endLockedOperation()
        #expect(gate.snapshot.phase == .active)
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
