import Foundation
import CachedImageCore

/// `cachedimage clear`: removes every entry of a cache directory, or only the stale ones.
/// Only the cache's own entry files are deleted, never anything else in the directory.
enum CacheCleaner {
    /// What was removed.
    struct Result: Sendable, Hashable {
        var removedEntries: Int
        var removedBytes: Int
        var remainingEntries: Int
    }

    static func clear(
        directory: URL,
        staleOnly: Bool,
        now: Date = Date(),
        heuristic: HeuristicFreshness = CacheInventory.defaultHeuristic
    ) throws -> Result {
        let cache = try CacheLocation.openExisting(directory)
        let infos = cache.allEntries()
        let doomed = staleOnly
            ? infos.filter { !$0.metadata.isFresh(at: now, heuristic: heuristic) }
            : infos
        if staleOnly {
            for info in doomed { cache.removeEntry(forKey: info.key) }
        } else {
            cache.removeAll()
        }
        cache.flush()
        return Result(
            removedEntries: doomed.count,
            removedBytes: doomed.reduce(0) { $0 + $1.byteCount },
            remainingEntries: cache.entryCount
        )
    }
}
