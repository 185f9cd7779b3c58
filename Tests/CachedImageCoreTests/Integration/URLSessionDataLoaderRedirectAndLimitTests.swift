import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Redirect hops, redirect failures and streaming limits of ``URLSessionDataLoader`` against
/// the real loopback server.
@Suite("URLSessionDataLoader: redirect hops and limits")
struct URLSessionDataLoaderRedirectAndLimitTests {
    private static func filler(_ count: Int) -> Data {
        Data((0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) })
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func everyRedirectHopIsReturnedWithItsStatusHeadersAndURL() async throws {
        let server = try await LoopbackServer.start()
        let body = Self.filler(500)
        server.serve("/a.png", .redirect(to: "/b.png", status: 302))
        server.serve("/b.png", LoopbackResponse(
            status: 307, headers: ["Location": "/c.png", "Cache-Control": "max-age=60"], body: Data()
        ))
        server.serve("/c.png", .ok(body, contentType: "image/png", headers: ["Cache-Control": "max-age=31536000, immutable"]))

        let result = try await URLSessionDataLoader().load(
            URLRequest(url: server.url("/a.png")), limits: DataLoadLimits(), progress: { _, _ in }
        )

        #expect(result.data == body)
        #expect(result.response.url == server.url("/c.png"))
        #expect(result.redirects.map(\.statusCode) == [302, 307])
        #expect(result.redirects.map(\.url) == [server.url("/a.png"), server.url("/b.png")])
        #expect(result.redirects.first?.value(forHTTPHeaderField: "Location") == "/b.png")
        #expect(result.redirects.first?.value(forHTTPHeaderField: "Cache-Control") == nil)
        #expect(result.redirects.last?.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test("a loop is named after its second round: each URL is followed back once, as URLSession follows it")
    func aRedirectLoopIsNamedAfterItsSecondRound() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/loop-a.png", .redirect(to: "/loop-b.png"))
        server.serve("/loop-b.png", .redirect(to: "/loop-a.png"))

        await #expect {
            _ = try await URLSessionDataLoader().load(
                URLRequest(url: server.url("/loop-a.png")), limits: DataLoadLimits(), progress: { _, _ in }
            )
        } throws: { error in
            guard case .redirectLoop(let url, let location) = error as? ImagePipeline.Error else { return false }
            return url == server.url("/loop-b.png") && location == server.url("/loop-a.png")
        }
        #expect(server.requestCount(for: "/loop-a.png") == 2)
        #expect(server.requestCount(for: "/loop-b.png") == 2)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test("a redirect to the same URL (a cookie set, then the image) is followed, as AsyncImage follows it")
    func aRedirectToItselfIsFollowedOnce() async throws {
        let server = try await LoopbackServer.start()
        let png = ImageFixtures.png(width: 8, height: 8, seed: 4)
        var redirect = LoopbackResponse.redirect(to: "/consent.png")
        redirect.headers["Set-Cookie"] = "consent=yes; Path=/"
        server.serveSequence("/consent.png", [redirect, .ok(png, contentType: "image/png")])

        let result = try await URLSessionDataLoader().load(
            URLRequest(url: server.url("/consent.png")), limits: DataLoadLimits(), progress: { _, _ in }
        )
        #expect(result.data == png)
        #expect(result.redirects.count == 1)
        #expect(server.requestCount(for: "/consent.png") == 2)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func tooManyRedirectsStopAtTheLimit() async throws {
        let server = try await LoopbackServer.start()
        for hop in 0 ..< 15 {
            server.serve("/hop\(hop).png", .redirect(to: "/hop\(hop + 1).png"))
        }
        await #expect {
            _ = try await URLSessionDataLoader().load(
                URLRequest(url: server.url("/hop0.png")), limits: DataLoadLimits(maxRedirects: 3), progress: { _, _ in }
            )
        } throws: { error in
            guard case .tooManyRedirects(let url, let count) = error as? ImagePipeline.Error else { return false }
            return url == server.url("/hop0.png") && count == 4
        }
        #expect(server.requestCount(for: "/hop3.png") == 1)
        #expect(server.requestCount(for: "/hop4.png") == 0)
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func anAnnouncedLengthOverTheCapIsRefusedBeforeTheBody() async throws {
        let server = try await LoopbackServer.start()
        server.serve("/big.png", .ok(Self.filler(200_000), contentType: "image/png"))
        let received = Locked(Int64(0))

        await #expect {
            _ = try await URLSessionDataLoader().load(
                URLRequest(url: server.url("/big.png")),
                limits: DataLoadLimits(maximumResponseBytes: 10_000),
                progress: { count, _ in received.withLock { $0 = max($0, count) } }
            )
        } throws: { error in
            guard case .responseTooLarge(let url, 10_000) = error as? ImagePipeline.Error else { return false }
            return url == server.url("/big.png")
        }
        #expect(received.withLock { $0 } == 0, "no body byte is delivered")
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func aBodyGrowingPastTheCapIsCancelledWhileStreaming() async throws {
        let server = try await LoopbackServer.start()
        let body = Self.filler(1_000_000)
        // `Content-Encoding: identity` hides the length from the announced-length check, so only
        // the streaming check can stop this body.
        var response = LoopbackResponse.trickle(body, contentType: "image/png", chunkSize: 16_384, delay: .milliseconds(20))
        response.headers["Content-Encoding"] = "identity"
        server.serve("/stream.png", response)

        await #expect {
            _ = try await URLSessionDataLoader().load(
                URLRequest(url: server.url("/stream.png")),
                limits: DataLoadLimits(maximumResponseBytes: 64_000),
                progress: { _, _ in }
            )
        } throws: { error in
            guard case .responseTooLarge(_, 64_000) = error as? ImagePipeline.Error else { return false }
            return true
        }
        #expect(server.bytesSent < body.count, "\(server.bytesSent) of \(body.count) bytes sent before the refusal")
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func aHugeImageHeaderIsRefusedBeforeTheBodyFinishes() async throws {
        let server = try await LoopbackServer.start()
        let body = ImageFixtures.pngHeader(width: 30_000, height: 30_000) + Self.filler(1_000_000)
        server.serve("/bomb.png", .trickle(body, contentType: "image/png", chunkSize: 16_384, delay: .milliseconds(20)))

        await #expect {
            _ = try await URLSessionDataLoader().load(
                URLRequest(url: server.url("/bomb.png")),
                limits: DataLoadLimits(maximumPixelCount: 64_000_000),
                progress: { _, _ in }
            )
        } throws: { error in
            guard case .imageTooLarge(_, let size, 64_000_000) = error as? ImagePipeline.Error else { return false }
            return size == PixelSize(width: 30_000, height: 30_000)
        }
        #expect(server.bytesSent < body.count, "\(server.bytesSent) of \(body.count) bytes sent before the refusal")
        await server.shutdown()
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test func aLoaderWithoutStreamingSupportIsCheckedAfterTheLoad() async throws {
        struct Plain: StreamingDataLoading {
            func loadData(
                for request: URLRequest,
                progress: @escaping @Sendable (Int64, Int64?) -> Void
            ) async throws -> (Data, URLResponse) {
                let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: nil)!
                return (Data(count: 2_000), response)
            }
        }
        let url = URL(string: "https://example.com/a.png")!
        await #expect {
            _ = try await Plain().load(URLRequest(url: url), limits: DataLoadLimits(maximumResponseBytes: 1_000), progress: { _, _ in })
        } throws: { error in
            guard case .responseTooLarge(url, 1_000) = error as? ImagePipeline.Error else { return false }
            return true
        }
        let fits = try await Plain().load(URLRequest(url: url), limits: DataLoadLimits(maximumResponseBytes: 2_000), progress: { _, _ in })
        #expect(fits.data.count == 2_000 && fits.redirects.isEmpty)
    }

    @Test func transportErrorsSayWhatHappenedInWordsWithTheCode() {
        let url = URL(string: "https://example.com/a.png")!
        let cases: [(URLError.Code, String)] = [
            (.cannotConnectToHost, "could not connect to the host (URLError -1004)"),
            (.timedOut, "timed out (URLError -1001)"),
            (.networkConnectionLost, "connection lost (URLError -1005)"),
        ]
        for (code, words) in cases {
            let error = ImagePipeline.Error.transport(url: url, underlying: URLError(code))
            #expect(error.description == "Network error for https://example.com/a.png: \(words)")
            guard case .transport(_, let underlying) = error else { continue }
            #expect((underlying as? URLError)?.code == code, "the underlying error is kept")
        }
    }
}
