import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// A decoder that records where each decode ran; images at least `expensiveWidth` wide are
/// reported as expensive.
private final class PlaceRecordingDecoder: ImageDecoding {
    let expensiveWidth: Int
    private let places = Locked<[Int: Bool]>([:])

    init(expensiveWidth: Int) { self.expensiveWidth = expensiveWidth }

    /// For each decoded width: whether it was decoded on a decoding queue.
    var decodedOnDecodingQueue: [Int: Bool] { places.withLock { $0 } }

    func isExpensive(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) -> Bool {
        (info.pixelSize?.width ?? 0) >= expensiveWidth
    }

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        let onQueue = DecodingQueue.isCurrent
        places.withLock { $0[info.pixelSize?.width ?? 0] = onQueue }
        return try HeaderImageDecoder().decode(data, info: info, targetPixelSize: targetSize)
    }
}

@Suite("Pipeline: decoding")
struct PipelineDecodingTests {
    @Test("expensive decodes run on decoding threads, not on Swift concurrency's shared threads; cheap ones stay inline")
    func expensiveDecodesLeaveTheCooperativePool() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/small.png", width: 16, height: 16)
            fixture.servePNG("/large.png", width: 64, height: 16)
            let decoder = PlaceRecordingDecoder(expensiveWidth: 64)
            let pipeline = fixture.makePipeline { $0.decoder = decoder }
            _ = try await pipeline.image(for: fixture.url("/small.png"))
            _ = try await pipeline.image(for: fixture.url("/large.png"))
            // From disk too (the inline path of a disk hit).
            let relaunched = fixture.makePipeline { $0.decoder = decoder }
            #expect(try await relaunched.image(for: fixture.url("/large.png")).source == .disk)
            #expect(decoder.decodedOnDecodingQueue == [16: false, 64: true])
        }
    }

    @Test("a decoder's error is kept as decodingFailed's underlying error, and named in the description")
    func decodingFailureKeepsTheUnderlyingError() async throws {
        struct Refusing: ImageDecoding {
            struct Failure: Error, Equatable, CustomStringConvertible {
                var description: String { "refused on purpose" }
            }
            func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
                throw Failure()
            }
        }
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/refused.png", width: 16, height: 16)
            let pipeline = fixture.makePipeline { $0.decoder = Refusing() }
            let url = fixture.url("/refused.png")
            let error = await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: url) }
            guard case .decodingFailed(let failedURL, let underlying) = error else {
                Issue.record("expected decodingFailed, got \(String(describing: error))")
                return
            }
            #expect(failedURL == url)
            #expect(underlying as? Refusing.Failure == Refusing.Failure())
            #expect(error?.description == "Could not decode \(url.absoluteString): refused on purpose")
        }
    }

    @Test("by default, images of a megapixel or more count as expensive; the header decoder never does")
    func defaultThreshold() throws {
        struct Default: ImageDecoding {
            func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
                try HeaderImageDecoder().decode(data, info: info, targetPixelSize: targetSize)
            }
        }
        let large = ImageFixtures.pngHeader(width: 1000, height: 1000)
        let small = ImageFixtures.pngHeader(width: 999, height: 1000)
        let largeInfo = try #require(ImageInfo(data: large))
        let smallInfo = try #require(ImageInfo(data: small))
        #expect(Default().isExpensive(large, info: largeInfo, targetPixelSize: nil))
        #expect(!Default().isExpensive(small, info: smallInfo, targetPixelSize: nil))
        #expect(!HeaderImageDecoder().isExpensive(large, info: largeInfo, targetPixelSize: nil))
    }
}
