import ArgumentParser
import Foundation

/// `cachedimage stats`: what a cache directory holds.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show a cache directory's entries, size, oldest and newest, stale count and content types.",
        discussion: """
        Reads each entry's header (not its bytes); evicts nothing. An entry is stale when it is \
        older than the lifetime the server gave it (Cache-Control max-age, Expires), or, when the \
        server said nothing, than 10% of the time since its Last-Modified date, at most one day; \
        the pipeline revalidates or downloads it again on its \
        next use.
        """
    )

    @OptionGroup var cache: CacheOption

    @Flag(help: "Print the statistics as JSON.")
    var json = false

    func run() throws {
        let inventory = try CacheInventory.read(directory: try cache.directory())
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(inventory), as: UTF8.self))
        } else {
            print(inventory.render(), terminator: "")
        }
    }
}
