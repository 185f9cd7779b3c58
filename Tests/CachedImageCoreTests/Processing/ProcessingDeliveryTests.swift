import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// An encoder that waits for the test to let it finish.
private final class GatedEncoder: ImageEncoding {
    let gate = BlockingGate()
    private let calls = Locked(0)
    var encodeCount: Int { calls.withLock { $0 } }

    func encode(_ image: DecodedImage) throws -> Data {
        calls.withLock { $0 += 1 }
        gate.blockingWait()
        return ImageFixtures.png(width: image.pixelSize.width, height: image.pixelSize.height, seed: 7)
    }
}

private struct Tagging: ImageProcessing {
    var identifier: String { "test.tagging" }
    func process(_ image: DecodedImage) throws -> DecodedImage {
        var image = image
        image.data = (image.data ?? Data()) + Data("tagged".utf8)
        return image
    }
}

@Suite("Processing: off the delivery path")
struct ProcessingDeliveryTests {
    @Test("with .automatic, a processed image is delivered before its encode for the disk finishes; the encode lands afterwards and flush() waits for it")
    @available(macOS 14.0, *)
    func deliveredBeforeEncode() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/big.png", width: 400, height: 300, headers: ["Cache-Control": "max-age=3600"])
        let encoder = GatedEncoder()
        let pipeline = fixture.makePipeline {
            $0.diskCachePolicy = .automatic
            $0.encoder = encoder
        }
        let request = ImageRequest(
            url: fixture.url("/big.png"), targetPixelSize: PixelSize(width: 40, height: 40), contentMode: .aspectFit, processors: [Tagging()]
        )
        let delivered = Locked<ImageResponse?>(nil)
        let load = Task {
            let response = try await pipeline.image(for: request)
            delivered.withLock { $0 = response }
        }
        // The encoder holds; the image arrives anyway (on the old code it waits for the encode).
        let arrived = await eventually({ delivered.withLock { $0 != nil } })
        #expect(arrived, "the processed image waits for its encode")
        #expect(delivered.withLock { $0 }?.image.data?.suffix(6) == Data("tagged".utf8))
        encoder.gate.open()
        try await load.value
        pipeline.diskCache?.flush()
        #expect(encoder.encodeCount == 1)

        // The encoded copy is on disk: a relaunch reads it, without running the processor again.
        let relaunched = fixture.makePipeline {
            $0.diskCachePolicy = .automatic
            $0.encoder = encoder
        }
        let second = try await relaunched.image(for: request)
        #expect(second.source == .disk)
        #expect(second.image.data == ImageFixtures.png(width: 40, height: 30, seed: 7))
        await fixture.tearDown()
    }

    @Test("the encode queue is bounded: past its limit a new encode is dropped, not queued")
    func boundedEncodeQueue() {
        let queue = DerivedImageEncodingQueue(limit: 2)
        let gate = BlockingGate()
        #expect(queue.enqueue { gate.blockingWait() })
        #expect(queue.enqueue {})
        #expect(!queue.enqueue {}, "a third waits for nobody: dropped")
        gate.open()
        queue.waitUntilIdle()
        #expect(queue.enqueue {})
        queue.waitUntilIdle()
    }
}
