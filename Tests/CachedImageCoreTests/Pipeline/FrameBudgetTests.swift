import Foundation
import Testing
@testable import CachedImageCore

/// The first frame's synchronous disk budget follows the display's refresh rate.
@Suite("Synchronous first-frame reads: the budget of the display's frame")
struct FrameBudgetTests {
    @Test("120 Hz (ProMotion): frames of 1/120 s and 2 ms of reads; 60 Hz: 1/60 s and 4 ms, the defaults")
    func followsRefreshRate() {
        let promotion = ImagePipeline.SynchronousDiskRead.forDisplay(framesPerSecond: 120)
        #expect(promotion.frameInterval == 1.0 / 120)
        #expect(abs(promotion.timePerFrame - 0.002) < 1e-12)
        #expect(ImagePipeline.SynchronousDiskRead.forDisplay(framesPerSecond: 60) == ImagePipeline.SynchronousDiskRead())
        #expect(ImagePipeline.SynchronousDiskRead.forDisplay(framesPerSecond: 0).frameInterval == 1, "a nonsense rate stays finite")
        // No screen here (Linux): 60 Hz.
        #expect(ImagePipeline.SynchronousDiskRead.default == ImagePipeline.SynchronousDiskRead())
    }
}
