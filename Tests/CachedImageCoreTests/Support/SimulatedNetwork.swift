import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
@testable import CachedImageCore

/// A network on virtual time for the download queue's link tests (issue 51).
///
/// - **The link** is a ``LinkProfile`` (the loopback server's): one downlink shared by every
///   transfer in flight, each taking an equal share (what TCP flows through one bottleneck
///   converge to; a share a transfer cannot use goes to the others), and its delay each way.
/// - **The server** may send each response no faster than `perTransferBytesPerSecond` (a
///   server or CDN limit per connection: the link is then not the bottleneck). It serves its
///   resources with a strong ETag: `If-None-Match` gets a `304`, `Range` with a matching
///   `If-Range` a `206` of the rest (a transfer that stepped aside resumes).
/// - **Time** is a ``ManualUptimeClock`` that only ``run(_:step:until:)`` moves, after letting the
///   pipeline settle; the pipeline measures the link on the same clock. Nothing depends on how
///   fast or busy the machine is.
final class SimulatedNetwork: StreamingDataLoading, @unchecked Sendable {
    struct Resource {
        var body: Data
        var cacheControl: String
        var contentType: String
        /// Whether the response names its version (a strong ETag) and takes byte ranges.
        var resumable: Bool
        /// Raised each time the path is served again with new bytes (a new ETag).
        var version: Int
    }

    /// A response whose last byte arrived: when, and how far each other path's body had
    /// arrived by then (over all its transfers: a resumed one counts what it kept).
    struct Completion: Sendable {
        var path: String
        var at: TimeInterval
        var othersDelivered: [String: Int]
    }

    /// A request as it left the client.
    struct Sent: Sendable {
        var path: String
        var at: TimeInterval
        var headers: [String: String]
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    private final class Transfer: @unchecked Sendable {
        let id: Int
        let path: String
        let url: URL
        let sentAt: TimeInterval
        let status: Int
        let headers: [String: String]
        /// The bytes this response sends (a `206`'s are the rest).
        let body: Data
        /// Where `body` starts in the resource (a `206`'s first byte).
        let offset: Int
        var leftServer = 0
        /// Bytes that left the server in the step being computed.
        var pendingThisStep = 0.0
        var inFlight: [(arrivesAt: TimeInterval, bytes: Int)] = []
        var delivered = 0
        var headDelivered = false
        var continuation: CheckedContinuation<DataLoadResponse, any Error>?
        var isCancelled = false
        let progress: @Sendable (Int64, Int64?) -> Void
        let received: @Sendable (Data) -> Void
        let head: @Sendable (URLResponse) -> Void
        let interrupted: @Sendable (Data) -> Void

        init(
            id: Int, path: String, url: URL, sentAt: TimeInterval, status: Int, headers: [String: String], body: Data, offset: Int,
            progress: @escaping @Sendable (Int64, Int64?) -> Void, received: @escaping @Sendable (Data) -> Void,
            head: @escaping @Sendable (URLResponse) -> Void, interrupted: @escaping @Sendable (Data) -> Void
        ) {
            (self.id, self.path, self.url, self.sentAt, self.status, self.headers, self.body) = (id, path, url, sentAt, status, headers, body)
            self.offset = offset
            (self.progress, self.received, self.head, self.interrupted) = (progress, received, head, interrupted)
        }

        var response: HTTPURLResponse {
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
        }
    }

    let baseURL = URL(string: "http://simulated.test")!
    let clock: ManualUptimeClock
    private var currentProfile: LinkProfile
    let perTransferBytesPerSecond: Double?
    private let lock = NSLock()
    private var resources: [String: Resource] = [:]
    private var transfers: [Int: Transfer] = [:]
    private var nextID = 0
    private var sentLog: [Sent] = []
    private var completedLog: [Completion] = []
    private var limitLog: [Int] = []
    /// The furthest byte of each path's body that arrived, over all its transfers.
    private var furthest: [String: Int] = [:]
    private var bodyBytes = 0

    init(profile: LinkProfile, perTransferBytesPerSecond: Double? = nil, clock: ManualUptimeClock = ManualUptimeClock()) {
        self.currentProfile = profile
        self.perTransferBytesPerSecond = perTransferBytesPerSecond
        self.clock = clock
    }

    /// The link now; setting it changes the bandwidth and delay from the next step on (the
    /// phone leaves Wi-Fi for a cell).
    var profile: LinkProfile {
        get { lock.withLock { currentProfile } }
        set { lock.withLock { currentProfile = newValue } }
    }
    /// Under the lock.
    private var delay: TimeInterval { Double(currentProfile.delayMilliseconds) / 1_000 }
    private var bytesPerSecond: Double { currentProfile.downlinkBitsPerSecond.map { Double($0) / 8 } ?? .infinity }

    func url(_ path: String) -> URL { URL(string: path, relativeTo: baseURL)!.absoluteURL }

    /// Serves `body` at `path` with `Cache-Control: cacheControl`; `resumable`: with a strong
    /// ETag and `Accept-Ranges: bytes`. Serving a path again is a new version (a new ETag).
    @discardableResult
    func serve(
        _ path: String, _ body: Data, cacheControl: String = "max-age=3600", contentType: String = "image/png", resumable: Bool = true
    ) -> URL {
        lock.withLock {
            let version = (resources[path]?.version ?? 0) + 1
            resources[path] = Resource(body: body, cacheControl: cacheControl, contentType: contentType, resumable: resumable, version: version)
        }
        return url(path)
    }

    /// Every request sent so far, in order.
    var sent: [Sent] { lock.withLock { sentLog } }
    func requests(for path: String) -> [Sent] { sent.filter { $0.path == path } }
    /// The responses whose last byte arrived, in that order.
    var completed: [Completion] { lock.withLock { completedLog } }
    /// The download queue's limit each time ``run(_:step:timeLimit:until:)`` saw it change.
    var limits: [Int] { lock.withLock { limitLog } }
    /// Body bytes that left the server.
    var bytesSent: Int { lock.withLock { bodyBytes } }
    /// Transfers whose request was sent and whose response has not ended.
    var inFlightCount: Int { lock.withLock { transfers.count } }
    /// The bytes `path`'s transfer in flight has delivered so far.
    func deliveredBytes(of path: String) -> Int {
        lock.withLock { transfers.values.filter { $0.path == path }.map(\.delivered).max() ?? 0 }
    }

    // MARK: Driving time

    /// Moves the clock by `step` at a time until `done()` holds or `timeLimit` seconds of the
    /// clock have passed (then returns `false`). Before each step the pipeline settles: every
    /// download holding a slot in its queue has reached this network, every data job holds or
    /// waits for a slot (none is between two, having stepped aside), and nothing changed over a
    /// few rounds of yields.
    func run(_ pipeline: ImagePipeline, step: TimeInterval = 0.01, timeLimit: TimeInterval = 600, until done: @Sendable () -> Bool) async -> Bool {
        let end = clock.now + timeLimit
        while clock.now < end {
            await settle(pipeline)
            let limit = pipeline.link.limit
            lock.withLock { if limitLog.last != limit { limitLog.append(limit) } }
            if done() { return true }
            advance(by: step)
        }
        await settle(pipeline)
        return done()
    }

    private func settle(_ pipeline: ImagePipeline) async {
        func snapshot() -> [Int] {
            let link = pipeline.link
            return [link.runningCount, link.waitingCount, inFlightCount, lock.withLock { sentLog.count }, pipeline.activeDataJobCount]
        }
        var last = snapshot()
        var stable = 0
        var rounds = 0
        while stable < 8 {
            await Task.yield()
            try? await Task.sleep(nanoseconds: 100_000)
            rounds += 1
            let now = snapshot()
            // A data job before its first slot (a disk lookup) or after its last (storing) is
            // not between slots: after a while the counts are taken as they are.
            let jobsPlaced = now[4] == now[0] + now[1] || rounds > 2_000
            if now == last, now[0] == now[2], jobsPlaced { stable += 1 } else { (stable, last) = (0, now) }
        }
    }

    /// One step of `step` seconds: the link's share of bytes leaves the server for each
    /// transfer, the clock moves, and what arrived by then is delivered.
    private func advance(by step: TimeInterval) {
        let start = clock.now
        lock.withLock {
            // Equal shares of the downlink, up to each sender's own limit and what it has left.
            var senders = transfers.values.filter { !$0.isCancelled && $0.sentAt + delay <= start && $0.leftServer < $0.body.count }
            var capacity = bytesPerSecond * step
            while !senders.isEmpty, capacity >= 1 {
                let share = capacity / Double(senders.count)
                var next: [Transfer] = []
                for transfer in senders {
                    let own = perTransferBytesPerSecond.map { $0 * step } ?? .infinity
                    let room = min(own - transfer.pendingThisStep, Double(transfer.body.count - transfer.leftServer))
                    let bytes = Int(min(share, room).rounded(.down))
                    guard bytes > 0 else { continue }
                    transfer.leftServer += bytes
                    transfer.pendingThisStep += Double(bytes)
                    transfer.inFlight.append((start + step + delay, bytes))
                    bodyBytes += bytes
                    capacity -= Double(bytes)
                    if share < room { next.append(transfer) }
                }
                if next.count == senders.count, share < 1 { break }
                senders = next
            }
            for transfer in transfers.values { transfer.pendingThisStep = 0 }
        }
        clock.advance(by: step)
        deliver(at: clock.now)
    }

    private func deliver(at now: TimeInterval) {
        let due: [(Transfer, heads: Bool, chunk: Data, completes: Bool)] = lock.withLock {
            var due: [(Transfer, heads: Bool, chunk: Data, completes: Bool)] = []
            for transfer in transfers.values.sorted(by: { $0.id < $1.id }) where !transfer.isCancelled {
                var heads = false
                if !transfer.headDelivered, transfer.sentAt + 2 * delay <= now {
                    transfer.headDelivered = true
                    heads = true
                }
                guard transfer.headDelivered else { continue }
                let arrived = transfer.inFlight.filter { $0.arrivesAt <= now }.reduce(0) { $0 + $1.bytes }
                transfer.inFlight.removeAll { $0.arrivesAt <= now }
                let chunk = transfer.body.subdata(in: transfer.delivered..<(transfer.delivered + arrived))
                transfer.delivered += arrived
                furthest[transfer.path] = max(furthest[transfer.path] ?? 0, transfer.offset + transfer.delivered)
                let completes = transfer.delivered == transfer.body.count
                if completes {
                    transfers[transfer.id] = nil
                    completedLog.append(Completion(path: transfer.path, at: now, othersDelivered: furthest.filter { $0.key != transfer.path }))
                }
                if heads || !chunk.isEmpty || completes { due.append((transfer, heads, chunk, completes)) }
            }
            return due
        }
        for (transfer, heads, chunk, completes) in due {
            if heads { transfer.head(transfer.response) }
            if !chunk.isEmpty {
                transfer.received(chunk)
                transfer.progress(Int64(transfer.delivered), Int64(transfer.body.count))
            }
            if completes {
                let continuation = lock.withLock { () -> CheckedContinuation<DataLoadResponse, any Error>? in
                    defer { transfer.continuation = nil }
                    return transfer.continuation
                }
                continuation?.resume(returning: DataLoadResponse(data: transfer.body, response: transfer.response))
            }
        }
    }

    // MARK: StreamingDataLoading

    func loadData(for request: URLRequest, progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> (Data, URLResponse) {
        let loaded = try await load(request, limits: DataLoadLimits(), priority: DataLoadPriority(.normal), progress: progress, received: { _ in }, head: { _ in }, interrupted: { _ in })
        return (loaded.data, loaded.response)
    }

    func load(
        _ request: URLRequest, limits: DataLoadLimits, priority: DataLoadPriority,
        progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws -> DataLoadResponse {
        try await load(request, limits: limits, priority: priority, progress: progress, received: { _ in }, head: { _ in }, interrupted: { _ in })
    }

    func load(
        _ request: URLRequest, limits: DataLoadLimits, priority: DataLoadPriority,
        progress: @escaping @Sendable (Int64, Int64?) -> Void, received: @escaping @Sendable (Data) -> Void
    ) async throws -> DataLoadResponse {
        try await load(request, limits: limits, priority: priority, progress: progress, received: received, head: { _ in }, interrupted: { _ in })
    }

    func load(
        _ request: URLRequest, limits: DataLoadLimits, priority: DataLoadPriority,
        progress: @escaping @Sendable (Int64, Int64?) -> Void, received: @escaping @Sendable (Data) -> Void,
        head: @escaping @Sendable (URLResponse) -> Void, interrupted: @escaping @Sendable (Data) -> Void
    ) async throws -> DataLoadResponse {
        try Task.checkCancellation()
        let url = request.url ?? baseURL
        let headers = request.allHTTPHeaderFields ?? [:]
        let transfer: Transfer = lock.withLock {
            let sent = Sent(path: url.path, at: clock.now, headers: headers)
            sentLog.append(sent)
            let (status, fields, body, offset) = answer(sent)
            let transfer = Transfer(
                id: nextID, path: url.path, url: url, sentAt: clock.now, status: status, headers: fields, body: body, offset: offset,
                progress: progress, received: received, head: head, interrupted: interrupted
            )
            nextID += 1
            transfers[transfer.id] = transfer
            return transfer
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancelled = lock.withLock {
                    if transfer.isCancelled { return true }
                    transfer.continuation = continuation
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let (continuation, kept): (CheckedContinuation<DataLoadResponse, any Error>?, Data) = lock.withLock {
                transfer.isCancelled = true
                transfers[transfer.id] = nil
                defer { transfer.continuation = nil }
                let kept = transfer.headDelivered ? transfer.body.prefix(transfer.delivered) : Data()
                return (transfer.continuation, Data(kept))
            }
            if continuation != nil, !kept.isEmpty { transfer.interrupted(kept) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// The server's answer to `request` (under the lock).
    private func answer(_ request: Sent) -> (Int, [String: String], Data, Int) {
        guard let resource = resources[request.path] else { return (404, ["Content-Length": "0"], Data(), 0) }
        let etag = "\"\(request.path)-\(resource.version)\""
        var fields = ["Content-Type": resource.contentType, "Cache-Control": resource.cacheControl]
        guard resource.resumable else {
            fields["Content-Length"] = String(resource.body.count)
            return (200, fields, resource.body, 0)
        }
        fields["ETag"] = etag
        fields["Accept-Ranges"] = "bytes"
        if request.header("If-None-Match") == etag { return (304, ["ETag": etag, "Cache-Control": resource.cacheControl], Data(), 0) }
        let total = resource.body.count
        if let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
           request.header("If-Range").map({ $0 == etag }) ?? true,
           let from = Int(range.dropFirst(6).dropLast()), from > 0, from < total {
            fields["Content-Range"] = "bytes \(from)-\(total - 1)/\(total)"
            fields["Content-Length"] = String(total - from)
            return (206, fields, resource.body.subdata(in: from..<total), from)
        }
        fields["Content-Length"] = String(total)
        return (200, fields, resource.body, 0)
    }
}
