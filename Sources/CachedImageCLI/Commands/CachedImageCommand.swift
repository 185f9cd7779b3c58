import ArgumentParser

/// `cachedimage`: the demo that compares CachedImage with the naive ways of loading remote
/// images, and tools for a real cache directory.
///
/// The executable target only calls ``runFromCommandLine()``; tests parse and run the
/// subcommands directly.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
public struct CachedImageCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cachedimage",
        abstract: "CachedImage's demo, and tools to fetch into, warm, inspect and clear an image cache.",
        discussion: """
        Start with the demo: it serves a generated image feed on loopback and replays the same \
        scroll session through CachedImage and through the approaches apps usually write \
        (AsyncImage's URLCache, files named after the URL, NSCache), then prints what each cost.

          cachedimage demo
          cachedimage fetch https://example.com/a.jpg --cache ./images
          cachedimage prefetch --list urls.txt --cache ./images
          cachedimage stats --cache ./images
          cachedimage clear --cache ./images --stale-only
        """,
        subcommands: [
            DemoCommand.self,
            FetchCommand.self,
            PrefetchCommand.self,
            StatsCommand.self,
            ClearCommand.self,
        ]
    )

    public init() {}

    /// Parses the process's arguments, runs the chosen subcommand and exits: prints usage or
    /// `Error: <one line>` and exits non-zero on failure. (Spelled out because in top-level code
    /// `main()` resolves to the synchronous overload, which cannot run async subcommands.)
    public static func runFromCommandLine() async {
        do {
            var command = try await asyncParseAsRoot(nil)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
