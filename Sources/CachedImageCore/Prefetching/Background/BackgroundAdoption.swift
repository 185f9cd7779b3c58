import Foundation

/// The adoption of staged background downloads (``BackgroundDownloads``) as the pipeline's
/// requests see it: one sweep at a time, and which keys it still has to adopt.
///
/// A disk miss waits only while the sweep has an item staged for its key (or has not listed the
/// folder yet), and only for that item; a request that does not read the disk cache never waits.
/// At relaunch with hundreds of staged items, the first visible images wait for their own item,
/// not for the whole sweep.
final class BackgroundAdoption: Sendable {
    private let state = Locked(State())

    private struct State {
        /// The sweep under way.
        var running: Task<Void, Never>?
        /// Asked for while a sweep runs: it runs once more.
        var again = false
        /// The running sweep has listed the staging folder (``pending`` is known).
        var listed = false
        /// The entry names (``KeyHasher/fileName(for:)``) of the items the sweep has still to
        /// adopt, with how many each.
        var pending: [String: Int] = [:]
        /// Misses waiting for an entry name's items, or for the listing.
        var waiters: [String: [CheckedContinuation<Bool, Never>]] = [:]
        /// Keys the last sweep adopted, since a miss may have looked them up: their next miss
        /// looks again.
        var adopted: Set<String> = []
    }

    /// Runs `pass` in a task, once more after it if called again meanwhile; one sweep at a time.
    ///
    /// - Returns: The sweep's task.
    func start(_ pass: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.withLock { state in
            if let running = state.running {
                state.again = true
                return running
            }
            state.listed = false
            // The lookups an earlier sweep's keys were adopted behind are long answered: the
            // set holds one sweep's keys at most.
            state.adopted.removeAll()
            let task = Task.detached(priority: .utility) { [self] in
                while true {
                    await pass()
                    let (done, waiters) = self.state.withLock { state -> (Bool, [CheckedContinuation<Bool, Never>]) in
                        if state.again {
                            state.again = false
                            return (false, [])
                        }
                        state.running = nil
                        state.pending.removeAll()
                        defer { state.waiters.removeAll() }
                        return (true, state.waiters.values.flatMap(\.self))
                    }
                    for waiter in waiters { waiter.resume(returning: true) }
                    if done { break }
                }
            }
            state.running = task
            return task
        }
    }

    /// The sweep listed the staging folder: items staged under `entryNames`. Misses waiting for
    /// the listing with none of them look again.
    func listed(_ entryNames: [String]) {
        let resumed = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.listed = true
            for name in entryNames { state.pending[name, default: 0] += 1 }
            var resumed: [CheckedContinuation<Bool, Never>] = []
            for (name, waiters) in state.waiters where state.pending[name] == nil {
                resumed += waiters
                state.waiters[name] = nil
            }
            return resumed
        }
        for waiter in resumed { waiter.resume(returning: true) }
    }

    /// The sweep is done with one item staged under `entryName`, adopted under `key` or not.
    func finished(_ entryName: String, adopted key: String?) {
        let resumed = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            if let key { state.adopted.insert(key) }
            guard let count = state.pending[entryName] else { return [] }
            guard count <= 1 else {
                state.pending[entryName] = count - 1
                return []
            }
            state.pending[entryName] = nil
            defer { state.waiters[entryName] = nil }
            return state.waiters[entryName] ?? []
        }
        for waiter in resumed { waiter.resume(returning: true) }
    }

    /// Waits while the sweep may adopt an item for `request` (it did not list the folder yet, or
    /// has one staged for its key); at once for a request that does not read the disk cache.
    ///
    /// - Returns: Whether it waited: the disk cache may now hold the key.
    func waitIfStaged(_ request: ImageRequest) async -> Bool {
        guard request.options.isDisjoint(with: [.skipDiskCache, .reloadIgnoringLocalCacheData]) else { return false }
        // No sweep (every miss of a pipeline without a background session): no suspension.
        guard state.withLock({ $0.running != nil }) else { return false }
        let name = KeyHasher.fileName(for: request.cacheKey)
        return await withCheckedContinuation { continuation in
            let waits = state.withLock { state -> Bool in
                guard state.running != nil, !state.listed || state.pending[name] != nil else { return false }
                state.waiters[name, default: []].append(continuation)
                return true
            }
            if !waits { continuation.resume(returning: false) }
        }
    }

    /// How many requests wait (for tests).
    var waitingCount: Int {
        state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } }
    }

    /// Whether `key` was adopted since it was last asked (a lookup made before may have missed it).
    func takeAdopted(_ key: String) -> Bool {
        state.withLock { $0.adopted.remove(key) != nil }
    }

    /// The caches were emptied: nothing adopted before counts.
    func forgetAdopted() {
        state.withLock { $0.adopted.removeAll() }
    }
}
