import ToolSupport

/// The memory cache apps often write themselves: a `Dictionary` behind a lock, evicting the
/// oldest entries once a cost limit is passed. Evicted values are released where they are
/// removed, inside the lock.
final class LockedFIFOImageCache<Value: Sendable>: Sendable {
    private struct State {
        var values: [Int: (value: Value, cost: Int)] = [:]
        var order: [Int] = []
        var head = 0
        var totalCost = 0
    }

    private let costLimit: Int
    private let state = Protected(State())

    init(costLimit: Int) {
        self.costLimit = costLimit
    }

    func value(forKey key: Int) -> Value? {
        state.withLock { $0.values[key]?.value }
    }

    func setValue(_ value: Value, forKey key: Int, cost: Int) {
        state.withLock { state in
            if let old = state.values.updateValue((value, cost), forKey: key) {
                state.totalCost -= old.cost
            } else {
                state.order.append(key)
            }
            state.totalCost += cost
            while state.totalCost > costLimit, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if oldest != key, let removed = state.values.removeValue(forKey: oldest) {
                    state.totalCost -= removed.cost
                }
            }
        }
    }
}
