import Foundation
import CachedImageCore

/// `cachedimage prefetch`: warms a cache from a list of URLs, skipping URLs already cached, so an
/// interrupted run resumes where it stopped.
struct CachePrefetcher: Sendable {
    /// What a run did.
    struct Summary: Sendable, Hashable {
        /// URLs in the list (after removing duplicates).
        var total = 0
        /// Already in the cache: skipped, no request sent.
        var alreadyCached = 0
        /// Downloaded and stored.
        var downloaded = 0
        /// Failures, one line each (URL and reason).
        var failures: [String] = []
        /// Body bytes received.
        var bytesDownloaded = 0
        /// Seconds.
        var duration = 0.0
    }

    let pipeline: ImagePipeline
    /// Downloads in flight at once.
    let concurrency: Int

    /// Prefetches `urls` into the pipeline's disk cache; `progress` gets (done, summary so far).
    func prefetch(_ urls: [URL], progress: @escaping @Sendable (Int, Summary) -> Void = { _, _ in }) async -> Summary {
        let start = MonotonicTime.now()
        var summary = Summary()
        summary.total = urls.count
        var pending: [URL] = []
        for url in urls {
            if pipeline.diskCache?.containsEntry(forKey: url.absoluteString) == true {
                summary.alreadyCached += 1
            } else {
                pending.append(url)
            }
        }
        var done = summary.alreadyCached
        progress(done, summary)

        let pipeline = self.pipeline
        await withTaskGroup(of: Result<ImageDataResponse, CLIError>.self) { group in
            var iterator = pending.makeIterator()
            func addNext() -> Bool {
                guard let url = iterator.next() else { return false }
                group.addTask {
                    do {
                        return .success(try await pipeline.data(for: ImageRequest(url: url, priority: .low)))
                    } catch {
                        return .failure(CLIError("\(url.absoluteString): \(CLIError.reason(for: error))"))
                    }
                }
                return true
            }
            for _ in 0..<max(concurrency, 1) {
                if !addNext() { break }
            }
            while let result = await group.next() {
                switch result {
                case .success(let response):
                    summary.bytesDownloaded += response.bytesDownloaded
                    if response.source == .network { summary.downloaded += 1 } else { summary.alreadyCached += 1 }
                case .failure(let error):
                    summary.failures.append(error.description)
                }
                done += 1
                progress(done, summary)
                _ = addNext()
            }
        }
        pipeline.diskCache?.flush()
        summary.duration = MonotonicTime.now() - start
        return summary
    }
}
