import Foundation

/// The pipeline's one instrumentation point: every stage reports what happened as a
/// ``Record``; the statistics are derived from those records, and the records that make public
/// ``ImagePipeline/Event``s are broadcast to any number of `AsyncStream` readers.
///
/// One lock covers the counters and the readers, so a record costs one lock when nobody
/// listens and builds no event.
final class PipelineInstrumentation: Sendable {
    /// Something a stage did.
    enum Record: Sendable {
        case taskStarted(id: Int, url: URL?)
        case taskCompleted(id: Int, url: URL?, source: ImageResponse.Source, duration: TimeInterval)
        case taskFailed(id: Int, url: URL?, error: ImagePipeline.Error)
        case taskCancelled(id: Int, url: URL?)
        /// A memory lookup; `hit` or not.
        case memoryLookup(hit: Bool)
        /// The disk answered a data request (fresh, allowed stale, offline, or confirmed by a 304).
        case diskHit
        /// A data request needed a full download (counted when the download succeeded).
        case diskMiss
        /// A request joined work already in flight.
        case coalesced
        case networkRequest(url: URL, isConditional: Bool)
        /// Body bytes received from the network.
        case bytesReceived(Int)
        case revalidated(url: URL, notModified: Bool)
        case servedStale(url: URL, error: ImagePipeline.Error)
        case revalidatingInBackground(url: URL)
        case diskCacheFailed(DiskCache.Error)

        /// The public event for this record, if it is one.
        var event: ImagePipeline.Event? {
            switch self {
            case .taskStarted(let id, let url): .taskStarted(id: id, url: url)
            case .taskCompleted(let id, let url, let source, let duration):
                .taskCompleted(id: id, url: url, source: source, duration: duration)
            case .taskFailed(let id, let url, let error): .taskFailed(id: id, url: url, error: error)
            case .taskCancelled(let id, let url): .taskCancelled(id: id, url: url)
            case .networkRequest(let url, let isConditional): .networkRequest(url: url, isConditional: isConditional)
            case .revalidated(let url, let notModified): .revalidated(url: url, notModified: notModified)
            case .servedStale(let url, let error): .servedStale(url: url, error: error)
            case .revalidatingInBackground(let url): .revalidatingInBackground(url: url)
            case .diskCacheFailed(let error): .diskCacheFailed(error)
            case .memoryLookup, .diskHit, .diskMiss, .coalesced, .bytesReceived: nil
            }
        }
    }

    private struct State {
        var statistics = PipelineStatistics()
        var readers: [Int: AsyncStream<ImagePipeline.Event>.Continuation] = [:]
        var nextReaderID = 0
    }

    private let state = Locked(State())

    /// Counts `record` and broadcasts its event to the current readers.
    func record(_ record: Record) {
        let delivery: (ImagePipeline.Event, [AsyncStream<ImagePipeline.Event>.Continuation])? = state.withLock { state in
            state.statistics.count(record)
            // Statistics-only records, or nobody listening: no event is built, nothing copied.
            guard !state.readers.isEmpty, let event = record.event else { return nil }
            return (event, Array(state.readers.values))
        }
        guard let (event, readers) = delivery else { return }
        for reader in readers { reader.yield(event) }
    }

    var statistics: PipelineStatistics {
        state.withLock { $0.statistics }
    }

    func resetStatistics() {
        state.withLock { $0.statistics = PipelineStatistics() }
    }

    /// A new stream of events from now on; a reader that goes away removes itself.
    func events(bufferingNewest limit: Int) -> AsyncStream<ImagePipeline.Event> {
        let id = state.withLock { state -> Int in
            state.nextReaderID += 1
            return state.nextReaderID
        }
        // The closure runs synchronously inside the initialiser (`makeStream` is too new for iOS 16's SDK).
        return AsyncStream(ImagePipeline.Event.self, bufferingPolicy: .bufferingNewest(limit)) { continuation in
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.readers.removeValue(forKey: id) }
            }
            state.withLock { $0.readers[id] = continuation }
        }
    }
}

extension PipelineStatistics {
    /// Derives the counters from what happened: each counter follows exactly one kind of record.
    mutating func count(_ record: PipelineInstrumentation.Record) {
        switch record {
        case .memoryLookup(let hit):
            if hit { memoryHits += 1 } else { memoryMisses += 1 }
        case .diskHit:
            diskHits += 1
        case .diskMiss:
            diskMisses += 1
        case .coalesced:
            coalescedRequests += 1
        case .networkRequest(_, let isConditional):
            networkRequests += 1
            if isConditional { revalidations += 1 }
        case .bytesReceived(let count):
            bytesDownloaded += count
        case .revalidated(_, let notModified):
            if notModified { notModifiedResponses += 1 }
        case .servedStale, .revalidatingInBackground:
            staleResponsesServed += 1
        case .taskFailed:
            failures += 1
        case .taskCancelled:
            cancellations += 1
        case .diskCacheFailed:
            diskCacheFailures += 1
        case .taskStarted, .taskCompleted:
            break
        }
    }
}
