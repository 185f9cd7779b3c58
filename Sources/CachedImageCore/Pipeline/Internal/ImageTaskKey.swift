import Foundation

/// Identifies an image job: same bytes, same target size, same options, same processors.
struct ImageTaskKey: Hashable, Sendable {
    var cacheKey: String
    var targetSize: PixelSize?
    var contentMode: ImageContentMode?
    var options: ImageRequest.Options
    var processors: [String]
    var directives: RequestCacheDirectives

    init(_ request: ImageRequest) {
        cacheKey = request.cacheKey
        directives = request.cacheDirectives
        targetSize = request.targetPixelSize
        contentMode = request.targetPixelSize == nil ? nil : request.contentMode
        options = request.options
        processors = request.processorChain.identifiers
    }
}
