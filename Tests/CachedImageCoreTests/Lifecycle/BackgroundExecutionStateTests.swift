import Testing
@testable import CachedImageCore

@Suite("Background execution: the state machine")
struct BackgroundExecutionStateTests {
    enum Event: CaseIterable, CustomStringConvertible {
        case enterBackground, becomeActive, beginA, endA, beginB, endB, expire
        var description: String { "\(self)" as String }
    }

    /// Every order of the events, from the foreground and from an extension's unknown state,
    /// with the platform granting or denying assertions: the rules hold after every step.
    @Test("under every order of events: nothing locked starts without an assertion outside the foreground, no lock is held without one (an expiry interrupts what is in flight before the assertion ends), none is leaked, refused work resumes")
    func everyOrder() {
        var orders = 0
        for start in [BackgroundExecutionState.Lifecycle.active, .unknown] {
            for granting in [true, false] {
                for order in permutations(Event.allCases) {
                    check(order, from: start, granting: granting)
                    orders += 1
                }
            }
        }
        #expect(orders == 4 * 5040)
    }

    private func check(_ order: [Event], from start: BackgroundExecutionState.Lifecycle, granting: Bool) {
        var state = BackgroundExecutionState(lifecycle: start)
        var nextID: UInt64 = 1
        var held: Set<UInt64> = []
        var running: Set<Event> = [] // beginA / beginB that started
        var interrupted: Set<Event> = [] // running ones whose lock was released under them
        var resumes = 0
        let obtain: () -> UInt64? = {
            guard granting else { return nil }
            defer { nextID += 1 }
            held.insert(nextID)
            return nextID
        }
        func apply(_ actions: [BackgroundExecutionState.Action]) {
            for action in actions {
                switch action {
                case .endAssertion(let id):
                    #expect(running.isSubset(of: interrupted), "\(order): assertion ended with a lock held")
                    #expect(held.remove(id) != nil, "\(order): ended an assertion twice or never held")
                case .resumeDeferred:
                    resumes += 1
                case .interruptLockedOperations:
                    interrupted.formUnion(running)
                }
            }
        }
        for event in order {
            switch event {
            case .enterBackground:
                apply(state.didEnterBackground(obtain: obtain))
            case .becomeActive:
                let hadDeferred = state.hasDeferred
                let wasExpiring = state.isExpiring
                let before = resumes
                apply(state.didBecomeActive())
                if hadDeferred && !wasExpiring {
                    #expect(resumes == before + 1, "\(order): deferred work not resumed when active")
                }
            case .beginA, .beginB:
                let wasExpiring = state.isExpiring
                let (started, actions) = state.beginLockedOperation(obtain: obtain)
                apply(actions)
                if started {
                    running.insert(event)
                    #expect(!wasExpiring, "\(order): started while expiring")
                    #expect(state.lifecycle == .active || state.assertion != nil, "\(order): started with no assertion in the background")
                } else {
                    #expect(state.hasDeferred, "\(order): refused but not recorded as deferred")
                }
            case .endA, .endB:
                let begin: Event = event == .endA ? .beginA : .beginB
                if running.remove(begin) != nil {
                    let wasInterrupted = interrupted.remove(begin) != nil
                    apply(state.endLockedOperation(deferred: wasInterrupted))
                }
            case .expire:
                if let id = state.assertion {
                    apply(state.assertionExpired(id))
                    // A stale expiry (an assertion already ended) changes nothing.
                    let copy = state
                    apply(state.assertionExpired(id &+ 1000))
                    #expect(state == copy)
                }
            }
            #expect(state.lockedOperations == running.count)
            #expect(
                running.isSubset(of: interrupted) || state.lifecycle == .active || state.assertion != nil,
                "\(order): a lock held in the background without an assertion"
            )
            #expect(Set(state.assertion.map { [$0] } ?? []) == held, "\(order): the platform's assertions and the state disagree")
            if state.lockedOperations == 0 {
                #expect(state.assertion == nil, "\(order): assertion kept with nothing in flight")
                #expect(!state.isExpiring)
            }
        }
    }

    @Test("the phases: active, background with assertion, expiring, suspended")
    func phases() {
        var state = BackgroundExecutionState(lifecycle: .active)
        #expect(state.phase == .active)
        #expect(state.beginLockedOperation(obtain: { Issue.record("no assertion in the foreground"); return nil }).started)
        _ = state.didEnterBackground(obtain: { 7 })
        #expect(state.phase == .backgroundWithAssertion)
        #expect(
            state.assertionExpired(7) == [.interruptLockedOperations, .endAssertion(7)],
            "an operation is in flight: its lock is released, then the assertion ends, at once"
        )
        #expect(state.phase == .expiring)
        #expect(state.shouldAbandon)
        #expect(!state.beginLockedOperation(obtain: { 8 }).started, "nothing starts while the interrupted one stops")
        #expect(state.endLockedOperation(deferred: true).isEmpty)
        #expect(state.phase == .suspended)
        #expect(!state.beginLockedOperation(obtain: { nil }).started, "no assertion to be had: deferred")
        #expect(state.didBecomeActive() == [.resumeDeferred])
        #expect(state.phase == .active)
    }

    @Test("an extension (never told its state) asks for an assertion for every locked operation; after a refusal the next one granted resumes the refused")
    func extensionState() {
        var state = BackgroundExecutionState(lifecycle: .unknown)
        #expect(state.phase == .suspended)
        #expect(!state.beginLockedOperation(obtain: { nil }).started)
        let (started, actions) = state.beginLockedOperation(obtain: { 1 })
        #expect(started)
        #expect(actions == [.resumeDeferred])
        #expect(state.endLockedOperation() == [.endAssertion(1)])
        #expect(state.phase == .suspended)
    }

    @Test("an operation that gave up waiting for the lock at expiry is resumed when the app is active again")
    func abandonedAtExpiry() {
        var state = BackgroundExecutionState(lifecycle: .background)
        #expect(state.beginLockedOperation(obtain: { 5 }).started)
        #expect(state.assertionExpired(5) == [.interruptLockedOperations, .endAssertion(5)])
        #expect(state.endLockedOperation(deferred: true).isEmpty)
        #expect(state.hasDeferred)
        #expect(state.didBecomeActive() == [.resumeDeferred])
    }

    @Test("going to the background with an operation in flight and no assertion to be had interrupts it; nothing starts until it stopped")
    func backgroundWithoutAssertion() {
        var state = BackgroundExecutionState(lifecycle: .active)
        #expect(state.beginLockedOperation(obtain: { nil }).started)
        #expect(state.didEnterBackground(obtain: { nil }) == [.interruptLockedOperations])
        #expect(state.interruptedOperations == 1)
        #expect(!state.beginLockedOperation(obtain: { 1 }).started)
        #expect(state.endLockedOperation(deferred: true).isEmpty)
        #expect(state.phase == .suspended)
        let (started, actions) = state.beginLockedOperation(obtain: { 2 })
        #expect(started && actions == [.resumeDeferred])
    }

    private func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        var result: [[T]] = []
        for (index, item) in items.enumerated() {
            var rest = items
            rest.remove(at: index)
            for tail in permutations(rest) { result.append([item] + tail) }
        }
        return result
    }
}
