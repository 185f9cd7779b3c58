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
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }
}
