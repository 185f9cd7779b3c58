import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// One misbehaving server per fault: the pipeline must give a typed error or the exact image,
/// never crash or hang, and leave the disk cache empty or holding exactly the served bytes.
@Suite("Reliability: every server misbehaviour gives a typed error or the right image")
struct FaultInjectionTests {
    /// What a fault must produce.
    enum Outcome: Sendable {
        /// The exact bytes, and the disk holds them (`cached`) or nothing. A cached entry that
        /// is not `reusable` (reached through a temporary redirect without freshness, RFC 9111
        /// 4.2.2) is stale at once: a relaunch asks the server again.
        case image(Data, cached: Bool, reusable: Bool = true)
        /// A typed error the predicate accepts; the disk stays empty.
        case failure(@Sendable (ImagePipeline.Error) -> Bool)
    }

    enum Fault: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case slowFirstByte
        case slowTrickle
        case resetMidBody
        case resetAfterHead
        case contentLengthLongerThanBody
        case serverError500WithRetryAfter
        case unavailable503WithRetryAfter
        case notFound404
        case redirect
        case redirectChain
        case redirectLoop
        case tooManyRedirects
        case htmlServedAsJPEG
        case pngHeaderThenGarbage
        case decompressionBomb
        case zeroByte200
        case noStore
        case vary

        var testDescription: String { rawValue }

        /// Registers the fault on `server` at `path` and says what the pipeline must produce.
        @available(macOS 14.0, *)
        func install(on server: LoopbackServer, at path: String) -> Outcome {
            let png = ImageFixtures.png(width: 120, height: 80, seed: 42)
            switch self {
            case .slowFirstByte:
                server.serve(path, .ok(png, contentType: "image/png", latency: .milliseconds(300)))
                return .image(png, cached: true)
            case .slowTrickle:
                server.serve(path, .trickle(png, contentType: "image/png", chunkSize: 1024, delay: .milliseconds(3)))
                return .image(png, cached: true)
            case .resetMidBody:
                server.serve(path, .resetMidBody(png, contentType: "image/png", after: png.count / 2))
                return .failure { error in
                    if case .truncatedResponse = error { return true }
                    if case .transport = error { return true }
                    return false
                }
            case .resetAfterHead:
                server.serve(path, .resetMidBody(png, contentType: "image/png", after: 0))
                return .failure { error in
                    switch error {
                    case .truncatedResponse, .transport, .emptyResponse: true
                    default: false
                    }
                }
            case .contentLengthLongerThanBody:
                // The whole image arrives, but the declared length is 100 bytes more, then the
                // connection closes.
                server.serve(path, .resetMidBody(png + Data(count: 100), contentType: "image/png", after: png.count))
                return .failure { error in
                    if case .truncatedResponse(_, let received, let expected) = error {
                        return received == png.count && expected == png.count + 100
                    }
                    if case .transport = error { return true }
                    return false
                }
            case .serverError500WithRetryAfter:
                server.serve(path, .unavailable(status: 500, retryAfter: "1"))
                return .failure { error in
                    guard case .badStatusCode(_, 500) = error else { return false }
                    return error.isTransient
                }
            case .unavailable503WithRetryAfter:
                server.serve(path, .unavailable(retryAfter: "120"))
                return .failure { error in
                    guard case .badStatusCode(_, 503) = error else { return false }
                    return error.isTransient
                }
            case .notFound404:
                return .failure { error in
                    guard case .badStatusCode(_, 404) = error else { return false }
                    return !error.isTransient
                }
            case .redirect:
                server.serve(path, .redirect(to: path + "-target"))
                server.serve(path + "-target", .ok(png, contentType: "image/png"))
                return .image(png, cached: true, reusable: false)
            case .redirectChain:
                server.serve(path, .redirect(to: path + "-1", status: 301))
                server.serve(path + "-1", .redirect(to: path + "-2", status: 307))
                server.serve(path + "-2", .redirect(to: server.url(path + "-3").absoluteString, status: 308))
                server.serve(path + "-3", .ok(png, contentType: "image/png"))
                return .image(png, cached: true, reusable: false)
            case .redirectLoop:
                server.serve(path, .redirect(to: path))
                return .failure { error in
                    // Named at the first repeated URL, not "network error -1007" after 20 hops.
                    guard case .redirectLoop(_, let location) = error else { return false }
                    return location == server.url(path) && !error.isTransient
                }
            case .tooManyRedirects:
                // A chain of distinct URLs longer than the 10-hop limit.
                server.serve(path, .redirect(to: path + "-1"))
                for hop in 1 ..< 15 {
                    server.serve(path + "-\(hop)", .redirect(to: path + "-\(hop + 1)"))
                }
                return .failure { error in
                    guard case .tooManyRedirects(_, 11) = error else { return false }
                    return !error.isTransient
                }
            case .htmlServedAsJPEG:
                server.serve(path, .ok(Data("<!doctype html><html><body>Sign in</body></html>".utf8), contentType: "image/jpeg"))
                return .failure { error in
                    guard case .notAnImage(_, "image/jpeg") = error else { return false }
                    return !error.isTransient
                }
            case .pngHeaderThenGarbage:
                var random = SeededGarbage(seed: 7)
                let body = ImageFixtures.pngHeader(width: 120, height: 80) + random.bytes(4096)
                server.serve(path, .ok(body, contentType: "image/png"))
                // The header parses and every announced byte arrives, but no image end ever
                // comes: a broken PNG (not a cut-short download), refused before decoding.
                return .failure { error in
                    guard case .invalidImage(_, .png, let reason) = error else { return false }
                    return reason.contains("IEND") && !error.isTransient
                }
            case .decompressionBomb:
                server.serve(path, .ok(ImageFixtures.pngHeader(width: 20_000, height: 20_000), contentType: "image/png"))
                return .failure { error in
                    guard case .imageTooLarge(_, let size, _) = error else { return false }
                    return size == PixelSize(width: 20_000, height: 20_000) && !error.isTransient
                }
            case .zeroByte200:
                server.serve(path, .ok(Data(), contentType: "image/png"))
                return .failure { error in
                    guard case .emptyResponse = error else { return false }
                    return true
                }
            case .noStore:
                server.serve(path, .ok(png, contentType: "image/png", headers: ["Cache-Control": "no-store"]))
                return .image(png, cached: false)
            case .vary:
                server.serve(path, .ok(png, contentType: "image/png", headers: ["Vary": "Accept, Accept-Encoding", "Cache-Control": "max-age=60"]))
                return .image(png, cached: true)
            }
        }
    }

    @Test("fault", arguments: Fault.allCases)
    @available(macOS 14.0, *)
    func fault(_ fault: Fault) async throws {
        let fixture = try await PipelineFixture.start()
        let path = "/fault/\(fault.rawValue).png"
        let outcome = fault.install(on: fixture.server, at: path)
        let url = fixture.url(path)
        let pipeline = fixture.makePipeline()

        switch outcome {
        case .image(let expected, let cached, let reusable):
            let response = try await pipeline.image(for: url)
            #expect(response.source == .network)
            #expect(response.image.data == expected)
            ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: cached ? expected : nil)
            if cached {
                // A relaunch serves the same bytes: from disk without the network, or, for an
                // entry a temporary redirect made stale at once, after asking the server again.
                let before = fixture.server.totalRequestCount
                let relaunched = fixture.makePipeline()
                let again = try await relaunched.image(for: url)
                #expect(again.image.data == expected)
                if reusable {
                    #expect(again.source == .disk)
                    #expect(fixture.server.totalRequestCount == before)
                } else {
                    #expect(again.source != .disk)
                    #expect(fixture.server.totalRequestCount > before)
                }
            }
        case .failure(let accepts):
            do {
                let response = try await pipeline.image(for: url)
                Issue.record("expected a failure, got an image of \(response.image.pixelSize)")
            } catch let error as ImagePipeline.Error {
                #expect(accepts(error), "unexpected error: \(error)")
                #expect(error.url == url)
            }
            ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: nil)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: url)) == nil)
            // Retries are off by default: one request per failure. A redirect loop is cut off
            // when a URL comes back a second time (the first return is followed, as URLSession
            // follows a redirect to the same URL), so the looping URL is requested twice.
            let requests = fixture.server.requestCount(for: path)
            #expect(requests == (fault == .redirectLoop ? 2 : 1), "\(requests) requests")
        }
        await fixture.tearDown()
    }

    @Test("a server that never sends its first byte ends in a transport error at the request timeout")
    @available(macOS 14.0, *)
    func firstByteNeverArrives() async throws {
        let fixture = try await PipelineFixture.start()
        let png = fixture.servePNG("/stalled.png", latency: .seconds(60))
        #expect(!png.isEmpty)
        let pipeline = fixture.makePipeline()
        var urlRequest = URLRequest(url: fixture.url("/stalled.png"))
        urlRequest.timeoutInterval = 0.5
        await #expect {
            try await pipeline.image(for: ImageRequest(urlRequest: urlRequest))
        } throws: { error in
            guard let error = error as? ImagePipeline.Error, case .transport = error else { return false }
            return error.isTransient
        }
        ReliabilityChecks.expectDisk(of: pipeline, key: fixture.url("/stalled.png").absoluteString, holds: nil)
        await fixture.tearDown()
    }

    @Test("an ETag that changes on every request: each revalidation downloads, the disk holds the newest bytes")
    @available(macOS 14.0, *)
    func etagChangesOnEveryRequest() async throws {
        let fixture = try await PipelineFixture.start()
        let url = fixture.url("/etag.png")
        let versions = Locked(0)
        // The body changes with the ETag, so a stale copy would be visible.
        fixture.server.serve("/etag.png") { _ in
            let version = versions.withLock { $0 += 1; return $0 }
            let body = ImageFixtures.versionedPNG(slot: 1, version: version)
            return LoopbackResponse(
                headers: ["Content-Type": "image/png", "Cache-Control": "no-cache", "ETag": "\"\(version)\""],
                body: body,
                honorsConditionalRequests: false
            )
        }
        for round in 1...4 {
            let pipeline = fixture.makePipeline()
            let response = try await pipeline.image(for: url)
            let expected = ImageFixtures.versionedPNG(slot: 1, version: round)
            #expect(response.image.data == expected)
            #expect(response.source == .network)
            ReliabilityChecks.expectDisk(of: pipeline, key: url.absoluteString, holds: expected)
            #expect(pipeline.diskCache?.entry(forKey: url.absoluteString)?.metadata.etag == "\"\(round)\"")
        }
        // Rounds 2...4 were conditional (If-None-Match of the previous ETag) and got full bodies.
        let requests = fixture.server.requests(for: "/etag.png")
        #expect(requests.count == 4)
        #expect(requests.dropFirst().enumerated().allSatisfy { index, request in
            request.header("If-None-Match") == "\"\(index + 1)\""
        })
        await fixture.tearDown()
    }

    @Test("the fault helpers serve what they promise")
    @available(macOS 14.0, *)
    func helpersServeWhatTheyPromise() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 10, height: 10, seed: 1)
        fixture.server.serveSequence("/seq.png", [.unavailable(retryAfter: "3"), .ok(png, contentType: "image/png")])
        fixture.server.serveChangingETag("/e.png", .ok(png, contentType: "image/png", headers: ["ETag": "\"fixed\""]))
        let loader = URLSessionDataLoader()
        let get: @Sendable (URLRequest) async throws -> (Data, URLResponse) = { request in
            try await loader.loadData(for: request) { _, _ in }
        }
        let (_, first) = try await get(URLRequest(url: fixture.url("/seq.png")))
        let (body, second) = try await get(URLRequest(url: fixture.url("/seq.png")))
        let (_, third) = try await get(URLRequest(url: fixture.url("/seq.png")))
        #expect((first as? HTTPURLResponse)?.statusCode == 503)
        #expect((first as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After") == "3")
        #expect((second as? HTTPURLResponse)?.statusCode == 200)
        #expect((third as? HTTPURLResponse)?.statusCode == 200)
        #expect(body == png)
        var etags: [String?] = []
        for _ in 0..<3 {
            var request = URLRequest(url: fixture.url("/e.png"))
            request.setValue(etags.last.flatMap { $0 } ?? "\"fixed\"", forHTTPHeaderField: "If-None-Match")
            let (_, response) = try await get(request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            etags.append((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag"))
        }
        #expect(etags == ["\"1\"", "\"2\"", "\"3\""])
        await fixture.tearDown()
    }
}

/// Deterministic non-image bytes.
struct SeededGarbage {
    private var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func bytes(_ count: Int) -> Data {
        var data = Data(capacity: count)
        for _ in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            data.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        return data
    }
}
