import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// A toy vector format: `TOY1 <width> <height>`, in ASCII. The core does not recognise it.
struct ToyDecoder: ImageDecoding {
    struct Unreadable: Error, CustomStringConvertible {
        var description: String { "not a TOY1 picture" }
    }

    static func matches(_ data: Data) -> Bool { data.starts(with: Data("TOY1 ".utf8)) }

    /// Renders at the target size (a vector format scales for free), else at its own size.
    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
        guard fields.count == 3, let width = Int(fields[1]), let height = Int(fields[2]), width > 0, height > 0 else {
            throw Unreadable()
        }
        let own = PixelSize(width: width, height: height)
        let size = targetSize.map { own.fitted(into: $0) } ?? own
        return DecodedImage(image: nil, data: data, format: info.format, pixelSize: size, cost: DecodedImage.bitmapCost(of: size))
    }
}

@Suite("Pipeline: decoders registered for bytes the core does not recognise")
struct DecoderRegistryTests {
    @Test("a registered toy decoder works end to end: download, disk, relaunch; the sniffing closure decides")
    func sniffedDecoder() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/logo.toy", .ok(Data("TOY1 640 480".utf8), contentType: "application/octet-stream"))
            let register: (inout ImagePipeline.Configuration) -> Void = {
                $0.decoderRegistry.register(ToyDecoder(), name: "toy", matching: ToyDecoder.matches)
            }
            // Without the registration, the bytes are not an image.
            await #expect(throws: ImagePipeline.Error.self) { try await fixture.makePipeline().image(for: fixture.url("/logo.toy")) }

            let pipeline = fixture.makePipeline(register)
            let response = try await pipeline.image(for: ImageRequest(url: fixture.url("/logo.toy"), targetPixelSize: PixelSize(width: 320, height: 320)))
            #expect(response.image.pixelSize == PixelSize(width: 320, height: 240))
            #expect(response.source == .network)
            pipeline.diskCache?.flush()

            let relaunched = fixture.makePipeline(register)
            let fromDisk = try await relaunched.image(for: fixture.url("/logo.toy"))
            #expect(fromDisk.source == .disk)
            #expect(fromDisk.image.pixelSize == PixelSize(width: 640, height: 480))
            #expect(fixture.server.requestCount(for: "/logo.toy") == 2)
        }
    }

    @Test("a registration by MIME type takes responses of that type, also from disk (the stored Content-Type)")
    func mimeTypeDecoder() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/icon.svg", .ok(Data("TOY1 24 24".utf8), contentType: "Image/SVG+XML; charset=utf-8"))
            let register: (inout ImagePipeline.Configuration) -> Void = {
                $0.decoderRegistry.register(ToyDecoder(), name: "svg", mimeTypes: ["image/svg+xml"])
            }
            let pipeline = fixture.makePipeline(register)
            #expect(try await pipeline.image(for: fixture.url("/icon.svg")).image.pixelSize == PixelSize(width: 24, height: 24))
            pipeline.diskCache?.flush()
            #expect(try await fixture.makePipeline(register).image(for: fixture.url("/icon.svg")).source == .disk)
        }
    }

    @Test("a registered decoder's failure is decodingFailed; an image without a header size is decoded under the limit")
    func failuresAndLimit() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/broken.toy", .ok(Data("TOY1 wide".utf8)))
            fixture.server.serve("/huge.toy", .ok(Data("TOY1 40000 40000".utf8)))
            let pipeline = fixture.makePipeline {
                $0.decoderRegistry.register(ToyDecoder(), name: "toy", matching: ToyDecoder.matches)
                $0.maximumPixelCount = 1_000_000
            }
            do {
                _ = try await pipeline.image(for: fixture.url("/broken.toy"))
                Issue.record("a broken toy decoded")
            } catch let error as ImagePipeline.Error {
                guard case .decodingFailed(_, let underlying) = error else { Issue.record("got \(error)"); return }
                #expect(underlying is ToyDecoder.Unreadable)
            }
            // Asked for at most 1000x1000 (the largest square within the limit).
            #expect(try await pipeline.image(for: fixture.url("/huge.toy")).image.pixelSize == PixelSize(width: 1000, height: 1000))
        }
    }

    @Test("a decoder that ignores the bound it was given is refused after decoding")
    func boundIgnored() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/huge.toy", .ok(Data("TOY1 40000 40000".utf8)))
            let pipeline = fixture.makePipeline {
                $0.decoderRegistry.register(FullSizeToyDecoder(), name: "toy", matching: ToyDecoder.matches)
                $0.maximumPixelCount = 1_000_000
            }
            do {
                _ = try await pipeline.image(for: fixture.url("/huge.toy"))
                Issue.record("an image over the limit was accepted")
            } catch let error as ImagePipeline.Error {
                guard case .imageTooLarge(_, PixelSize(width: 40_000, height: 40_000), 1_000_000) = error else { Issue.record("got \(error)"); return }
            }
        }
    }

    @Test("the core's formats keep the configured decoder; a later registration with the same name replaces the first")
    func precedence() {
        var registry = ImageDecoderRegistry()
        registry.register(ToyDecoder(), name: "everything", matching: { _ in true })
        #expect(registry.info(for: ImageFixtures.png(width: 2, height: 2), contentType: nil)?.registeredDecoder == nil)
        #expect(registry.info(for: Data("anything".utf8), contentType: nil)?.registeredDecoder == "everything")
        registry.register(ToyDecoder(), name: "everything", mimeTypes: ["image/x-toy"])
        #expect(registry.registrations.count == 1)
        #expect(registry.info(for: Data("anything".utf8), contentType: nil) == nil)
        #expect(registry.info(for: Data("anything".utf8), contentType: "IMAGE/X-TOY")?.format == .other)
    }

    @Test("a downsampling decoder decodes a 108-megapixel photo as a thumbnail; at full size it is refused")
    func decodedSizeLimit() async throws {
        try await withScriptedFixture { fixture throws in
            // A complete JPEG whose frame header says 12000x9000.
            let sof0 = [0xFF, 0xC0, 0, 11, 8, 0x23, 0x28, 0x2E, 0xE0, 1, 1, 0x11, 0] as [UInt8]
            let scan = [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0x3F, 0, 0x12, 0x34, 0xFF, 0xD9] as [UInt8]
            fixture.server.serve("/photo.jpg", .ok(Data([0xFF, 0xD8] + sof0 + scan), contentType: "image/jpeg"))
            let pipeline = fixture.makePipeline { $0.decoder = DownsamplingDecoder() }
            let thumbnail = try await pipeline.image(for: ImageRequest(url: fixture.url("/photo.jpg"), targetPixelSize: PixelSize(width: 300, height: 300), contentMode: .aspectFit))
            #expect(thumbnail.image.pixelSize == PixelSize(width: 300, height: 225))
            do {
                _ = try await pipeline.image(for: fixture.url("/photo.jpg"))
                Issue.record("a 108-megapixel image was decoded at full size")
            } catch let error as ImagePipeline.Error {
                guard case .imageTooLarge(_, PixelSize(width: 12_000, height: 9_000), 64_000_000) = error else { Issue.record("got \(error)"); return }
            }
            // One download served both.
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
            // The header decoder holds the source: refused even as a thumbnail.
            let strict = fixture.makePipeline { $0.diskCacheDirectory = nil }
            await #expect(throws: ImagePipeline.Error.self) {
                try await strict.image(for: ImageRequest(url: fixture.url("/photo.jpg"), targetPixelSize: PixelSize(width: 300, height: 300)))
            }
        }
    }
}

/// A toy decoder that renders at its own size whatever it is asked.
private struct FullSizeToyDecoder: ImageDecoding {
    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        try ToyDecoder().decode(data, info: info, targetPixelSize: nil)
    }
}
