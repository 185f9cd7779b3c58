import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// The Apple layer's video decoder up to its AVFoundation call: it asks AVFoundation for
/// ``VideoContainer/frameRequest(for:target:)``'s box and gets the frame fitted inside it (at
/// the video's own size when nothing bounds it); this stand-in reports it, and fails where
/// AVFoundation would find no video.
private struct VideoFrameStandIn: TargetedImageDecoding {
    struct NotAVideo: Error {}

    /// The frames decoded.
    let decodes = Locked(0)

    func isExpensive(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) -> Bool { true }

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        try decode(data, info: info, target: DecodingTarget(size: targetSize, contentMode: .aspectFit))
    }

    func decode(_ data: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage {
        decodes.withLock { $0 += 1 }
        guard let video = VideoContainer(data: data) else { throw NotAVideo() }
        let request = VideoContainer.frameRequest(for: data, target: target)
        #expect(request.fileExtension == video.kind.fileExtension)
        // AVFoundation fits the frame inside the box, never upscaling.
        let frame = video.presentationSize.map { size in request.maximumSize.map { size.fitted(into: $0) } ?? size }
        guard let size = frame ?? request.maximumSize else { throw NotAVideo() }
        return DecodedImage(image: nil, data: nil, format: info.format, pixelSize: size, cost: DecodedImage.bitmapCost(of: size))
    }
}

@Suite("Pipeline: a video URL shown as its first frame")
struct VideoThumbnailPipelineTests {
    private let register: (inout ImagePipeline.Configuration) -> Void = {
        $0.decoderRegistry.registerVideoDecoder(VideoFrameStandIn())
    }

    @Test("the frame is decoded at the request's size (fill), kept in memory, and read from disk after a relaunch")
    func firstFrame() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/clip.mp4", .ok(VideoBytes.hd, contentType: "video/mp4"))
            let request = ImageRequest(url: fixture.url("/clip.mp4"), targetPixelSize: PixelSize(width: 320, height: 200))
            // Without the registration, a video is not an image.
            await #expect(throws: ImagePipeline.Error.self) { try await fixture.makePipeline().image(for: request) }

            let pipeline = fixture.makePipeline(register)
            let response = try await pipeline.image(for: request)
            #expect(response.image.pixelSize == PixelSize(width: 356, height: 200))
            #expect(response.image.format == .other)
            #expect(pipeline.memoryCachedImage(for: request)?.pixelSize == PixelSize(width: 356, height: 200))
            let fit = try await pipeline.image(for: ImageRequest(url: fixture.url("/clip.mp4"), targetPixelSize: PixelSize(width: 320, height: 320), contentMode: .aspectFit))
            #expect(fit.image.pixelSize == PixelSize(width: 320, height: 180))
            pipeline.diskCache?.flush()

            let relaunched = try await fixture.makePipeline(register).image(for: request)
            #expect(relaunched.source == .disk)
            #expect(relaunched.image.pixelSize == PixelSize(width: 356, height: 200))
            #expect(fixture.server.requestCount(for: "/clip.mp4") == 2, "one without the decoder, one with")
        }
    }

    @Test("a video's size is known before its decode: the pipeline sees the presentation size of the bytes")
    func sizeBeforeDecoding() {
        var registry = ImageDecoderRegistry()
        registry.registerVideoDecoder(VideoFrameStandIn())
        let info = registry.info(for: VideoBytes.hd, contentType: "video/mp4")
        #expect(info?.registeredDecoder == "video")
        #expect(info?.pixelSize == PixelSize(width: 1920, height: 1080))
        let unsized = VideoBytes.movie(tracks: [VideoBytes.tkhd(width: 0, height: 0)])
        #expect(registry.info(for: unsized, contentType: nil)?.pixelSize == nil)
    }

    @Test("with .automatic, the cell-sized frame is kept on disk: a relaunch shows it without decoding the video again")
    func automaticKeepsTheFrame() async throws {
        try await withScriptedFixture { fixture throws in
            // A clip much larger than its frame encoded (the policy keeps copies under half the original).
            fixture.server.serve("/clip.mp4", .ok(VideoBytes.hd + Data(repeating: 0, count: 2_000_000), contentType: "video/mp4", headers: ["Cache-Control": "max-age=3600"]))
            let request = ImageRequest(url: fixture.url("/clip.mp4"), targetPixelSize: PixelSize(width: 320, height: 200))
            let decoder = VideoFrameStandIn()
            let launch = {
                fixture.makePipeline {
                    $0.decoderRegistry.registerVideoDecoder(decoder)
                    $0.diskCachePolicy = .automatic
                    $0.encoder = FramePNGEncoder()
                }
            }
            let pipeline = launch()
            _ = try await pipeline.image(for: request)
            pipeline.diskCache?.flush()
            #expect(decoder.decodes.withLock { $0 } == 1)

            let relaunched = try await launch().image(for: request)
            #expect(relaunched.source == .disk)
            #expect(relaunched.image.pixelSize == PixelSize(width: 356, height: 200))
            #expect(decoder.decodes.withLock { $0 } == 1, "the processed frame, not the video, was decoded")
        }
    }

    @Test("an .m4a (audio in the video's container) is not an image: notAnImage, not decodingFailed")
    func audioIsNotAnImage() async throws {
        try await withScriptedFixture { fixture throws in
            let audio = VideoBytes.movie(brands: ("M4A ", ["M4A ", "mp42", "isom"]), tracks: [VideoBytes.tkhd(width: 0, height: 0)])
            fixture.server.serve("/song.m4a", .ok(audio, contentType: "audio/mp4"))
            let pipeline = fixture.makePipeline(register)
            do {
                _ = try await pipeline.image(for: fixture.url("/song.m4a"))
                Issue.record("an .m4a decoded")
            } catch let error as ImagePipeline.Error {
                guard case .notAnImage = error else { Issue.record("got \(error)"); return }
            }
        }
    }

    @Test("a video/mp4 response the decoder cannot read fails with decodingFailed, and nothing is kept on disk")
    func unreadableVideo() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.server.serve("/clip.webm", .ok(Data([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81]), contentType: "video/mp4"))
            let pipeline = fixture.makePipeline(register)
            do {
                _ = try await pipeline.image(for: fixture.url("/clip.webm"))
                Issue.record("a WebM decoded")
            } catch let error as ImagePipeline.Error {
                guard case .decodingFailed(_, let underlying) = error else { Issue.record("got \(error)"); return }
                #expect(underlying is VideoFrameStandIn.NotAVideo)
            }
            pipeline.diskCache?.flush()
            #expect(pipeline.diskCache?.containsEntry(forKey: ImageRequest(url: fixture.url("/clip.webm")).cacheKey) == false)
        }
    }
}

/// A PNG of the frame's size, as an encoder would write it.
private struct FramePNGEncoder: ImageEncoding {
    func encode(_ image: DecodedImage) throws -> Data {
        ImageFixtures.png(width: image.pixelSize.width, height: image.pixelSize.height)
    }
}
