import ArgumentParser
import Foundation

/// `cachedimage prefetch --list FILE`: warm a cache from a list of URLs.
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Warm a cache directory from a list of URLs (resumable: cached URLs are skipped).",
        discussion: """
        The list has one URL per line; blank lines and lines starting with # are ignored. URLs \
        already in the cache are skipped without a request, so an interrupted run picks up where \
        it stopped. Images are validated before they are stored and are not decoded. Failures \
        print one line each on standard error; the exit status is 1 if any URL failed.

          cachedimage prefetch --list urls.txt --cache ./images --concurrency 8
        """
    )

    @Option(name: .customLong("list"), help: ArgumentHelp("A file with one URL per line.", valueName: "file"), completion: .file())
    var listPath: String

    @OptionGroup var cache: CacheOption

    @Option(help: ArgumentHelp("Downloads in flight at once.", valueName: "count"))
    var concurrency = 6

    @Option(name: .customLong("disk-limit"), help: ArgumentHelp("The cache's size limit; least recently used entries are evicted beyond it.", valueName: "MB"))
    var diskLimitMB = 150

    @Option(help: ArgumentHelp("How long to wait for a response before giving up on a URL.", valueName: "seconds"))
    var timeout: Double = 30

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
        guard diskLimitMB > 0 else { throw ValidationError("--disk-limit must be positive") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let list = try URLList.read(path: listPath)
        for invalid in list.invalidLines {
            StandardError.line("Error: \(listPath):\(invalid.lineNumber): \(invalid.message)")
        }
        let pipeline = try ToolPipeline.make(
            cacheDirectory: try cache.directory(), diskLimit: diskLimitMB * 1_000_000, timeout: timeout,
            maximumConcurrentDownloads: concurrency
        )
        let bar = ProgressBar(label: "prefetch", total: list.urls.count)
        let summary = await CachePrefetcher(pipeline: pipeline, concurrency: concurrency).prefetch(list.urls) { done, summary in
            bar.update(completed: done, detail: "\(Formatting.bytes(summary.bytesDownloaded))"
                + (summary.failures.isEmpty ? "" : ", \(summary.failures.count) failed"))
        }
        bar.finish()
        for failure in summary.failures {
            StandardError.line("Error: \(failure)")
        }
        print(Self.summaryLine(summary, invalidLines: list.invalidLines.count))
        if !summary.failures.isEmpty || !list.invalidLines.isEmpty { throw ExitCode.failure }
    }

    static func summaryLine(_ summary: CachePrefetcher.Summary, invalidLines: Int) -> String {
        var parts = [
            "\(Formatting.count(summary.total)) URLs",
            "\(Formatting.count(summary.downloaded)) downloaded (\(Formatting.bytes(summary.bytesDownloaded)))",
            "\(Formatting.count(summary.alreadyCached)) already cached",
            "\(Formatting.count(summary.failures.count)) failed",
        ]
        if invalidLines > 0 { parts.append("\(Formatting.count(invalidLines)) invalid lines") }
        return "Prefetched: " + parts.joined(separator: ", ") + " in \(Formatting.duration(summary.duration))"
    }
}
