import Foundation

/// Turns a request into what will actually be loaded: keys it for the caches (method and
/// identity), checks its URL against the allowed schemes and applies the Low Data Mode policy
/// (fallback URL, or cache only).
struct RequestResolver: Sendable {
    var allowedSchemes: Set<String>
    var isNetworkConstrained: @Sendable () -> Bool
    var diskCache: DiskCache?
    /// Lowercased names of the headers whose values become part of the cache key.
    var identityHeaderFields: Set<String>

    /// The request as the caches see it. A request with a method other than `GET` and no
    /// explicit cache key is neither cached nor shared with any other; identity headers add a
    /// hash of their values to the key; the request's own cache directives
    /// (``RequestCacheDirectives``) are read and their options added.
    func keyed(_ request: ImageRequest) -> ImageRequest {
        // `.returnCacheDataElseLoad` is `URLRequest`'s policy of the same name, set as an option.
        guard request.options.contains(.returnCacheDataElseLoad) else { return keyedByFields(request) }
        var keyed = keyedByFields(request)
        keyed.cacheDirectives.acceptsAnyStoredResponse = true
        return keyed
    }

    /// ``keyed(_:)`` for the request's URL, method and header fields.
    private func keyedByFields(_ request: ImageRequest) -> ImageRequest {
        // Made from a URL alone: a GET with no header fields and the default policy, keyed as it is.
        if request.urlRequestIsPlain.value { return request }
        // The app's own image (`ImageRequest(key:)`) is stored under its key alone, whatever
        // header fields a subtree's defaults added.
        if request.readsStoredImage { return request }
        var keyed = request
        // One read of the header fields serves the directives and the identity headers; most
        // requests have none and the default cache policy, and skip both (the memory hit path).
        let fields = request.urlRequest.allHTTPHeaderFields ?? [:]
        if !fields.isEmpty || request.urlRequest.cachePolicy != .useProtocolCachePolicy {
            let directives = RequestCacheDirectives(request.urlRequest)
            if !directives.isEmpty {
                keyed.cacheDirectives = directives
                keyed.options.formUnion(directives.impliedOptions)
            }
        }
        let request = keyed
        if let method = request.urlRequest.httpMethod, method != "GET", !request.hasExplicitCacheKey {
            keyed.options.formUnion([.skipMemoryCache, .skipDiskCache])
            keyed.cacheKey = "\(method) \(request.cacheKey) #\(UUID().uuidString)"
            return keyed
        }
        guard !identityHeaderFields.isEmpty, !fields.isEmpty else {
            return request
        }
        let identity = fields
            .filter { identityHeaderFields.contains($0.key.lowercased()) }
            .map { $0.key.lowercased() + ":" + $0.value }
        guard !identity.isEmpty else { return request }
        keyed.cacheKey = request.cacheKey + "\u{1F}identity=" + KeyHasher.fileName(for: identity.sorted().joined(separator: "\n"))
        return keyed
    }

    /// Runs `body` on the request as the caches see it (``keyed(_:)``), without copying a
    /// request made from a URL alone, which is keyed as it is (the memory hit path).
    func withKeyed<T>(_ request: ImageRequest, _ body: (ImageRequest) -> T) -> T {
        request.urlRequestIsPlain.value && !request.options.contains(.returnCacheDataElseLoad) ? body(request) : body(keyed(request))
    }

    /// The request to load and its URL.
    ///
    /// - Throws: ``ImagePipeline/Error/invalidURL(_:)`` for a missing URL or a disallowed scheme.
    func resolve(_ request: ImageRequest) throws -> (ImageRequest, URL) {
        guard let url = request.url, let scheme = url.scheme?.lowercased(),
              allowedSchemes.contains(scheme) || request.readsStoredImage
        else {
            throw ImagePipeline.Error.invalidURL(request.url)
        }
        let request = keyed(request)
        if request.readsStoredImage {
            // The app's own image (`ImageRequest(key:)`): the caches only, even for a reload.
            var resolved = request
            resolved.options.subtract([.reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData])
            resolved.options.insert(.returnCacheDataDontLoad)
            return (resolved, url)
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
            var fallback = resolved
            fallback.cacheKey = fallbackURL.absoluteString
            return (keyed(fallback), fallbackURL)
        }
        return (resolved, url)
    }
}
