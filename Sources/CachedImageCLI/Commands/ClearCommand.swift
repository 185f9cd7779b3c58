import ArgumentParser
import Foundation

/// `cachedimage clear`: empty a cache directory, or drop only its stale entries.
struct ClearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Remove a cache directory's entries (all, or only the stale ones).",
        discussion: """
        Deletes only the cache's own entry files; other files in the directory are left alone. \
        With --stale-only, entries still fresh are kept (see `cachedimage stats` for what counts \
        as stale).
        """
    )

    @OptionGroup var cache: CacheOption

    @Flag(name: .customLong("stale-only"), help: "Remove only entries past their freshness lifetime.")
    var staleOnly = false

    func run() throws {
        let result = try CacheCleaner.clear(directory: try cache.directory(), staleOnly: staleOnly)
        print("Removed \(Formatting.count(result.removedEntries))\(staleOnly ? " stale" : "") "
            + "entr\(result.removedEntries == 1 ? "y" : "ies") (\(Formatting.bytes(result.removedBytes))); "
            + "\(Formatting.count(result.remainingEntries)) remain.")
    }
}
