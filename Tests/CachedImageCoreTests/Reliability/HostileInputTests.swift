import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Numbers a server or another process controls, fed through the entry points the pipeline
/// uses: each used to trap the process (or hang it); now each is a typed error, a miss or an
/// ignored field.
@Suite("Reliability: hostile numbers in HTTP fields and cache files never trap or hang")
struct HostileInputTests {
    @Test("a Retry-After of 10^20 seconds under a maximumDelay of .infinity waits (cancellably) instead of trapping")
    @available(macOS 14.0, *)
    func hugeRetryAfterDoesNotTrap() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.server.serve("/later.png", .unavailable(retryAfter: "99999999999999999999"))
        let asked = Locked<[TimeInterval]>([])
        let pipeline = fixture.makePipeline {
            // The default sleep, behind a probe that says when it is reached.
            $0.retryPolicy = .init(maximumRetries: 1, maximumDelay: .infinity) { seconds in
                asked.withLock { $0.append(seconds) }
                try await ImagePipeline.RetryPolicy.taskSleep(seconds)
            }
        }
        let task = Task { try await pipeline.image(for: fixture.url("/later.png")) }
        while asked.withLock({ $0.isEmpty }) { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(asked.withLock { $0 } == [1e20])
        #expect(fixture.server.requestCount(for: "/later.png") == 1)
        await fixture.tearDown()
    }

    @Test("sleeps too long, infinite or NaN are clamped to what Task.sleep takes")
    func sleepDurationsAreClamped() {
        typealias Policy = ImagePipeline.RetryPolicy
        let century = UInt64(Policy.longestSleep * 1e9)
        #expect(Policy.nanoseconds(sleeping: 1.5) == 1_500_000_000)
        #expect(Policy.nanoseconds(sleeping: 1e20) == century)
        #expect(Policy.nanoseconds(sleeping: .infinity) == century)
        #expect(Policy.nanoseconds(sleeping: .nan) == 0)
        #expect(Policy.nanoseconds(sleeping: -.infinity) == 0)
        // A delay-seconds too long for any integer still parses (a long wait, not "no header").
        let digits = String(repeating: "9", count: 400)
        #expect(Policy.seconds(fromRetryAfter: digits, now: Date()) == .infinity)
        #expect(Policy(maximumRetries: 1, maximumDelay: .infinity).delay(beforeRetry: 1, retryAfter: digits, now: Date()) == .infinity)
    }

    @Test("every freshness field at its most hostile in one loopback response: the image loads, and each stored duration is finite and bounded")
    @available(macOS 14.0, *)
    func hostileFreshnessFields() async throws {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 16, height: 16, seed: 9)
        let nines = String(repeating: "9", count: 400) // past Double's range as a number
        fixture.server.serve("/hostile.png", .ok(png, contentType: "image/png", headers: [
            "Cache-Control": "max-age=99999999999999999999, stale-while-revalidate=\(nines), stale-if-error=1e400, s-maxage=-1",
            "Age": "99999999999999999999",
            "Date": "Mon, 01 Jan 0001 00:00:00 GMT",
            "Expires": "Fri, 31 Dec 9999 23:59:59 GMT",
            "Last-Modified": "Sat, 01 Jan 0001 00:00:00 GMT",
            "Vary": String(repeating: "x-a, ", count: 1_000) + "accept",
        ]))
        let url = fixture.url("/hostile.png")
        let pipeline = fixture.makePipeline()
        #expect(try await pipeline.image(for: url).image.data == png)
        pipeline.diskCache?.flush()
        let metadata = try #require(pipeline.diskCache?.entry(forKey: url.absoluteString)?.metadata)
        let bound = 2 * CacheControl.maximumDeltaSeconds // Age (2^31) plus the response delay
        for value in [metadata.initialAge, metadata.freshnessLifetime, metadata.staleWhileRevalidate, metadata.lastModifiedAge] {
            let value = try #require(value)
            #expect(value.isFinite && value >= 0 && value <= bound)
        }
        #expect(metadata.staleIfError == nil, "an invalid stale-if-error is ignored")
        #expect(metadata.vary.map(\.name) == ["accept", "x-a"])
        // Stale at once (an Age of 2^31 s is the whole lifetime), and within its
        // stale-while-revalidate: served again, by this pipeline and after a relaunch.
        #expect(try await pipeline.image(for: url).image.data == png)
        #expect(try await fixture.makePipeline().image(for: url).image.data == png)
        await fixture.tearDown()
    }

    @Test("a Content-Length with a sign, a list or too many digits vouches for nothing: the body may have been cut")
    func malformedContentLengthVouchesForNothing() {
        func transfer(_ length: String, received: Int) -> ResponseValidator.Transfer {
            let url = URL(string: "https://example.com/a.png")!
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": length])!
            return ResponseValidator.Transfer(response, received: received)
        }
        #expect(transfer(" 100 ", received: 100) == .complete)
        #expect(transfer("-5", received: 10) == .mayBeCut) // was .complete: every body "reaches" -5
        #expect(transfer("+5", received: 10) == .mayBeCut)
        #expect(transfer("5, 5", received: 10) == .mayBeCut)
        #expect(transfer("99999999999999999999", received: 10) == .mayBeCut)
    }

    @Test("over a socket, a cut PNG whose Content-Length has a sign is not vouched for by it", arguments: ["+", "-"])
    func signedContentLengthOverASocket(sign: String) async throws {
        let png = ImageFixtures.Variant.pngWithoutIEND.data
        let length = sign == "+" ? "+\(png.count)" : "-1"
        let head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n"
        let server = try ConnectionDroppingServer(response: Data(head.utf8) + png, ending: .close)
        defer { server.shutdown() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CachedImageHostile-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipeline = ImagePipeline.forTests(directory: directory, clock: ManualClock()) { _ in }
        // `+N`: the session reads to the close, and the malformed length (ignored) vouches for
        // nothing, so the PNG's missing IEND is a cut (it was accepted). `-1`: the session
        // refuses the head itself.
        await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: server.url("/image.png")) }
    }

    // MARK: A body trickled a byte at a time

    /// A JPEG whose frame header (40,000 x 40,000) comes after `padding` empty APP1 segments,
    /// followed by as many bytes of scan data.
    private static func jpegWithLateFrameHeader(padding: Int) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        for _ in 0..<padding { bytes += [0xFF, 0xE1, 0x00, 0x02] }
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x9C, 0x40, 0x9C, 0x40, 0x03]
        bytes += [0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
        bytes += [0xFF, 0xDA] + [UInt8](repeating: 0x55, count: bytes.count)
        return bytes
    }

    @Test("a body trickled a byte at a time has its header looked for a logarithmic number of times, not once per byte")
    func trickledBodyHeaderLooks() async throws {
        let url = URL(string: "http://127.0.0.1:9/trickle.jpg")!
        let jpeg = Self.jpegWithLateFrameHeader(padding: 16_384) // 64 KB before the frame header
        let operation = DataLoadOperation(url: url, limits: DataLoadLimits(maximumPixelCount: 64_000_000)) { _, _ in }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: url) // never resumed: the bytes are fed by hand
        await #expect {
            _ = try await withCheckedThrowingContinuation { continuation in
                #expect(operation.attach(task: task, continuation: continuation))
                for byte in jpeg {
                    operation.didReceive(Data([byte]), expectedLength: -1, responseURL: nil)
                }
                operation.complete(response: nil, error: URLError(.networkConnectionLost))
            }
        } throws: { error in
            guard case .imageTooLarge(_, let size, _) = error as? ImagePipeline.Error else { return false }
            return size == PixelSize(width: 40_000, height: 40_000)
        }
        // Once per doubling of the bytes: 18 looks to find it at byte 65,557 of single-byte
        // chunks, where each chunk was a look (65,557 looks, each parsing everything so far).
        #expect(operation.headerLookCount <= 20)
    }

    // MARK: Animation tables

    // Lengths of 2^31 and more do not fit a 32-bit `Int` (watchOS's arm64_32), where converting
    // them with `Int(_:)` trapped; on 64 bits these pin the answer: not an animation.

    @Test("an APNG chunk declaring 0xFFFFFFFF bytes is not an animation")
    func apngChunkLengthNearUInt32Max() {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0] + [0, 0, 0, 0]
        png += [0, 0, 0, 8] + Array("acTL".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0] + [0, 0, 0, 0]
        png += [0xFF, 0xFF, 0xFF, 0xFF] + Array("fdAT".utf8) + [UInt8](repeating: 0, count: 64)
        #expect(ImageInfo(data: Data(png))?.format == .png)
        #expect(AnimatedImageInfo(data: Data(png)) == nil)
    }

    @Test("a WebP chunk declaring 0xFFFFFFFF bytes is not an animation")
    func webpChunkLengthNearUInt32Max() {
        func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
        let vp8x: [UInt8] = Array("VP8X".utf8) + le32(10) + [0x02, 0, 0, 0] + [0, 0, 0] + [0, 0, 0]
        let anmf: [UInt8] = Array("ANMF".utf8) + le32(0xFFFF_FFFF) + [UInt8](repeating: 0, count: 64)
        let body = Array("WEBP".utf8) + vp8x + anmf
        let webp = Array("RIFF".utf8) + le32(UInt32(body.count)) + body
        #expect(ImageInfo(data: Data(webp))?.format == .webp)
        #expect(AnimatedImageInfo(data: Data(webp)) == nil)
    }
}
