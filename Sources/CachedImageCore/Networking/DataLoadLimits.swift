/// Limits a loader enforces while a response arrives, so that an oversized body is refused as
/// early as possible instead of being held in memory.
package struct DataLoadLimits: Sendable, Equatable {
    /// The most body bytes accepted; a response announcing or delivering more fails with
    /// ``ImagePipeline/Error/responseTooLarge(url:limit:)``. `nil`: no limit.
    package var maximumResponseBytes: Int?
    /// Images whose header (read from the first bytes received) declares more pixels fail with
    /// ``ImagePipeline/Error/imageTooLarge(url:size:maximumPixelCount:)`` before the body finishes.
    /// `nil`: not checked while loading.
    package var maximumPixelCount: Int?
    /// The most redirects followed; one more fails with
    /// ``ImagePipeline/Error/tooManyRedirects(url:count:)``. Default: 10.
    package var maxRedirects: Int

    /// Creates limits; the defaults check nothing but the redirect count.
    package init(maximumResponseBytes: Int? = nil, maximumPixelCount: Int? = nil, maxRedirects: Int = 10) {
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumPixelCount = maximumPixelCount
        self.maxRedirects = maxRedirects
    }
}
