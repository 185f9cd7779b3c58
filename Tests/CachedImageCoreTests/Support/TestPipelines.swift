import Foundation
@testable import CachedImageCore

extension ImagePipeline {
    /// A pipeline as the test fixtures make it: their directory and clock, and the header
    /// decoder, which keeps the original bytes on every platform so tests can compare them
    /// (ImageIO, the Apple default, keeps only the bitmap).
    static func forTests(
        directory: URL,
        clock: ManualClock,
        dataLoader: (any DataLoading)? = nil,
        _ configure: (inout Configuration) -> Void
    ) -> ImagePipeline {
        var configuration = Configuration()
        if let dataLoader { configuration.dataLoader = dataLoader }
        configuration.diskCacheDirectory = directory
        configuration.clock = clock
        configuration.decoder = HeaderImageDecoder()
        // The first frame's budget is wall-clock time: a loaded test machine could spend a
        // display frame's 4 ms on one read and refuse the next. Tests assert what is read, not
        // how fast (the budget itself is tested with an injected time, `frameBudget`).
        configuration.synchronousDiskRead?.timePerFrame = 3_600
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }
}
