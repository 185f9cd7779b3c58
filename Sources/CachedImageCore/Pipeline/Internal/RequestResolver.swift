import Foundation

/// Turns a request into what will actually be loaded: checks its URL against the allowed
/// schemes and applies the Low Data Mode policy (fallback URL, or cache only).
struct RequestResolver: Sendable {
    var allowedSchemes: Set<String>
    var isNetworkConstrained: @Sendable () -> Bool
    var diskCache: DiskCache?

    /// The request to load and its URL.
    ///
    /// - Throws: ``ImagePipeline/Error/invalidURL(_:)`` for a missing URL or a disallowed scheme.
    func resolve(_ request: ImageRequest) throws -> (ImageRequest, URL) {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), allowedSchemes.contains(scheme) else {
            throw ImagePipeline.Error.invalidURL(request.url)
        }
        guard request.constrainedNetworkPolicy != .allow, isNetworkConstrained() else {
            return (request, url)
        }
        var resolved = request
        switch request.constrainedNetworkPolicy {
        case .allow:
            break
        case .cacheOnly:
            resolved.options.insert(.returnCacheDataDontLoad)
        case .fallback(let fallbackURL):
            // The full-size image still wins when it is already on this device.
            if let diskCache, diskCache.containsEntry(forKey: request.cacheKey) {
                resolved.options.insert(.returnCacheDataDontLoad)
                return (resolved, url)
            }
            resolved.urlRequest.url = fallbackURL
            resolved.cacheKey = fallbackURL.absoluteString
            return (resolved, fallbackURL)
        }
        return (resolved, url)
    }
}
