import Foundation
import Testing
@testable import CachedImageCore

@Suite("Progressive previewer")
struct ProgressivePreviewerTests {
    private func image(_ prefix: Data) -> DecodedImage {
        DecodedImage(image: nil, data: prefix, format: .jpeg, pixelSize: PixelSize(width: 1, height: 1), cost: 4)
    }

    @Test("one decode at a time; a preview decoded after finish() is never delivered")
    func neverAfterFinish() async throws {
        let jpeg = try ProgressiveFixtures.progressive()
        let gate = Gate()
        let decodes = Recorder<Int>()
        let delivered = Recorder<Int>()
        let previewer = ProgressivePreviewer(
            policy: ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0),
            clock: ManualClock(),
            decode: { prefix in
                decodes.append(prefix.count)
                await gate.wait()
                return image(prefix)
            },
            deliver: { delivered.append($0.data?.count ?? 0) }
        )
        // The first scan arrives: one decode starts and holds; the next two scans wait for it.
        previewer.receive(jpeg.prefix(2_300))
        #expect(await eventually { decodes.values.count == 1 })
        previewer.receive(jpeg.dropFirst(2_300).prefix(2_300))
        #expect(decodes.values == [2244])
        previewer.finish()
        gate.open()
        try await Task.sleep(for: .milliseconds(20))
        #expect(delivered.values.isEmpty)
        // Bytes after the end change nothing.
        previewer.receive(jpeg.dropFirst(4_600))
        try await Task.sleep(for: .milliseconds(20))
        #expect(decodes.values.count == 1)
    }

    @Test("a decode in progress delivers, then the next new scan starts the next one")
    func deliversInOrder() async throws {
        let jpeg = try ProgressiveFixtures.progressive()
        let delivered = Recorder<Int>()
        let previewer = ProgressivePreviewer(
            policy: ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0),
            clock: ManualClock(),
            decode: { image($0) },
            deliver: { delivered.append($0.data?.count ?? 0) }
        )
        previewer.receive(jpeg.prefix(2_300))
        #expect(await eventually { delivered.values.count == 1 })
        previewer.receive(jpeg.dropFirst(2_300).prefix(1_300))
        #expect(await eventually { delivered.values.count == 2 })
        #expect(delivered.values == [2244, 3552])
        // The rest at once: EOI has arrived, the final image is next, no preview.
        previewer.receive(jpeg.dropFirst(3_600))
        try await Task.sleep(for: .milliseconds(20))
        #expect(delivered.values.count == 2)
        previewer.finish()
    }
}
