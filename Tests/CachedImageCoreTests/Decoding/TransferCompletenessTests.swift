import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

/// The transfer decides completeness when it can: files whose end is missing or sloppy, which
/// decoders and browsers show, are accepted when the transfer vouches for the body and refused
/// when it may have been cut; bodies with nothing decodable are refused either way.
@Suite("Transfer completeness: sloppy files that decoders show")
struct TransferCompletenessTests {
    static let url = URL(string: "https://example.com/image")!
    static let validator = ResponseValidator(maximumPixelCount: 64_000_000)

    static func validate(_ data: Data, _ transfer: ResponseValidator.Transfer, expectedLength: Int? = nil) throws -> ImageInfo {
        try validator.validate(data, url: url, contentType: nil, expectedLength: expectedLength, transfer: transfer)
    }

    @Test("every class: its size, accepted when the transfer is complete", arguments: ImageFixtures.Variant.allCases)
    func acceptedWhenTransferComplete(_ variant: ImageFixtures.Variant) throws {
        let expected = PixelSize(width: variant.pixelSize.width, height: variant.pixelSize.height)
        #expect(ImageInfo(data: variant.data)?.pixelSize == expected)
        #expect(try Self.validate(variant.data, .complete).pixelSize == expected)
        #expect(try Self.validate(variant.data, .complete, expectedLength: variant.data.count).pixelSize == expected)
    }

    @Test("every class: refused when the body may have been cut, unless the container is whole", arguments: ImageFixtures.Variant.allCases)
    func closeDelimited(_ variant: ImageFixtures.Variant) throws {
        if variant.isStructurallyComplete {
            #expect(ImageInfo.isComplete(variant.data, format: ImageInfo(data: variant.data)!.format))
            #expect(try Self.validate(variant.data, .mayBeCut).pixelSize != nil)
        } else {
            #expect(!ImageInfo.isComplete(variant.data, format: ImageInfo(data: variant.data)!.format))
            #expect { try Self.validate(variant.data, .mayBeCut) } throws: { error in
                guard case .truncatedResponse(_, variant.data.count, nil) = error as? ImagePipeline.Error else { return false }
                return (error as? ImagePipeline.Error)?.isTransient == true
            }
        }
    }

    @Test("every class cut in half: refused, as truncated when the length was announced", arguments: ImageFixtures.Variant.allCases)
    func cutInHalf(_ variant: ImageFixtures.Variant) {
        let cut = variant.data.prefix(variant.data.count / 2)
        #expect { try Self.validate(cut, .complete, expectedLength: variant.data.count) } throws: { error in
            guard case .truncatedResponse(_, cut.count, variant.data.count) = error as? ImagePipeline.Error else { return false }
            return true
        }
        #expect(throws: ImagePipeline.Error.self) { try Self.validate(cut, .mayBeCut) }
    }

    @Test("nothing decodable is refused however the transfer ended, with what is missing in words")
    func brokenIsAlwaysRefused() {
        let cases: [(Data, ImageFormat, String)] = [
            (ImageFixtures.pngHeader(width: 120, height: 80) + Data(repeating: 0xA7, count: 300), .png, "IDAT"),
            (Data("GIF89a".utf8) + Data([8, 0, 8, 0, 0, 0, 0, 0x3B]), .gif, "complete image"),
            (ImageFixtures.jpeg(width: 16, height: 16).prefix(200), .jpeg, "first scan"),
        ]
        for (data, format, words) in cases {
            for transfer in [ResponseValidator.Transfer.complete, .mayBeCut] {
                #expect { try Self.validate(data, transfer) } throws: { error in
                    guard case .invalidImage(_, format, let reason) = error as? ImagePipeline.Error else { return false }
                    return reason.contains(words)
                }
            }
        }
    }

    @Test("a BMP's file-size field is not its length: the pixel rows are, and the message says so")
    func bmpMessageNamesTheCheck() {
        let bmp = ImageFixtures.bmp(width: 10, height: 10)
        #expect(ImageInfo.isComplete(ImageFixtures.Variant.bmpWithWrongFileSize.data, format: .bmp))
        guard case .unterminated(let reason) = ImageInfo.containerCheck(bmp.dropLast(5), format: .bmp) else {
            Issue.record("a BMP missing pixel rows is not unterminated")
            return
        }
        #expect(reason.contains("pixel rows"))
    }

    @Test("the transfer's framing decides: a matched Content-Length or a chunked body vouch, a close-delimited body does not")
    func transferFromTheHead() {
        func transfer(_ headers: [String: String], received: Int) -> ResponseValidator.Transfer {
            .init(HTTPURLResponse(url: Self.url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!, received: received)
        }
        #expect(transfer(["Content-Length": "100"], received: 100) == .complete)
        #expect(transfer(["Content-Length": "100"], received: 99) == .mayBeCut)
        #expect(transfer(["Content-Length": "40", "Content-Encoding": "gzip"], received: 100) == .complete)
        #expect(transfer(["Transfer-Encoding": "chunked"], received: 100) == .complete)
        #expect(transfer([:], received: 100) == .mayBeCut)
        #expect(ResponseValidator.Transfer(URLResponse(url: Self.url, mimeType: nil, expectedContentLength: -1, textEncodingName: nil), received: 3) == .complete)
    }

    /// Serves `body` once over a real socket, with a `Content-Length` or delimited by closing
    /// the connection, and loads it through a pipeline with the real `URLSessionDataLoader`.
    private func load(_ body: Data, announcingLength: Bool) async throws -> ImageResponse {
        let length = announcingLength ? "Content-Length: \(body.count)\r\n" : ""
        let head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\(length)Connection: close\r\n\r\n"
        let server = try ConnectionDroppingServer(response: Data(head.utf8) + body, ending: .close)
        defer { server.shutdown() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CachedImageTransferTests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipeline = ImagePipeline.forTests(directory: directory, clock: ManualClock()) { _ in }
        return try await pipeline.image(for: server.url("/image.png"))
    }

    @Test("end to end over a socket: a PNG without IEND loads with a Content-Length, and is refused as truncated when the connection's close ends it")
    func overASocket() async throws {
        let png = ImageFixtures.Variant.pngWithoutIEND.data
        #expect(try await load(png, announcingLength: true).image.pixelSize == PixelSize(width: 24, height: 16))
        do {
            _ = try await load(png, announcingLength: false)
            Issue.record("a close-delimited PNG without IEND was accepted")
        } catch let error as ImagePipeline.Error {
            guard case .truncatedResponse(_, png.count, nil) = error else { Issue.record("got \(error)"); return }
        }
        // A whole PNG is whole however the transfer ended.
        let whole = ImageFixtures.png(width: 24, height: 16, seed: 5)
        #expect(try await load(whole, announcingLength: false).image.pixelSize == PixelSize(width: 24, height: 16))
    }
}
