import ArgumentParser
import Foundation

/// `cachedimage fetch URL...`: download through the pipeline into a cache directory.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images through the pipeline and its disk cache, reporting where each came from.",
        discussion: """
        Prints one line per URL: the source (network, disk or revalidated), the size, the pixel \
        size and format, and the time taken. A fresh cached image comes from disk without a \
        request; a stale one is revalidated (304) when the server sent an ETag or Last-Modified. \
        Failures print one line each on standard error; the exit status is 1 if any URL failed.

          cachedimage fetch https://example.com/a.jpg --cache ./images
        """
    )

    @Argument(help: ArgumentHelp("Image URLs (http, https or file).", valueName: "url"))
    var urls: [String]

    @OptionGroup var cache: CacheOption

    @Flag(help: "Ask the server to confirm cached images even when they are fresh (conditional request).")
    var revalidate = false

    @Flag(help: "Use only the cache; fail for images that are not cached.")
    var offline = false

    @Option(name: .customLong("disk-limit"), help: ArgumentHelp("The cache's size limit; least recently used entries are evicted beyond it.", valueName: "MB"))
    var diskLimitMB = 150

    @Option(help: ArgumentHelp("How long to wait for a response before giving up.", valueName: "seconds"))
    var timeout: Double = 30

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("give at least one URL") }
        guard diskLimitMB > 0 else { throw ValidationError("--disk-limit must be positive") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        guard !(revalidate && offline) else { throw ValidationError("--revalidate and --offline cannot be combined") }
    }

    func run() async throws {
        let pipeline = try ToolPipeline.make(cacheDirectory: try cache.directory(), diskLimit: diskLimitMB * 1_000_000, timeout: timeout)
        let fetcher = ImageFetcher(pipeline: pipeline)
        var failed = 0
        for input in urls {
            let bar = ProgressBar(label: "fetch", total: 100)
            let result = await fetcher.fetch(input, options: .init(revalidate: revalidate, offline: offline)) { received, expected in
                if let expected, expected > 0 {
                    bar.update(completed: Int(received * 100 / expected), detail: "\(Formatting.bytes(Int(received))) of \(Formatting.bytes(Int(expected)))")
                } else {
                    bar.update(completed: 0, detail: Formatting.bytes(Int(received)))
                }
            }
            bar.finish()
            switch result {
            case .success(let fetched):
                print(Self.line(for: fetched))
            case .failure(let error):
                failed += 1
                StandardError.line("Error: \(error.description)")
            }
        }
        fetcher.finish()
        if failed > 0 { throw ExitCode.failure }
    }

    /// `network     258 KB  640x480 jpeg     84 ms  https://…`
    static func line(for fetched: ImageFetcher.Fetched) -> String {
        let source = fetched.source.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
        let size = Formatting.bytes(fetched.byteCount)
        let pixels = "\(fetched.pixelSize) \(fetched.format.rawValue)"
        let time = Formatting.duration(fetched.duration)
        return source + String(repeating: " ", count: max(0, 9 - size.count)) + size + "  "
            + pixels.padding(toLength: 16, withPad: " ", startingAt: 0)
            + String(repeating: " ", count: max(0, 8 - time.count)) + time + "  " + fetched.url.absoluteString
    }
}
