import Foundation

extension ImagePipeline {
    /// Why a request failed. Every case names the URL involved, so a log line is enough to act.
    /// Cancellation is not an error case: a cancelled request throws `CancellationError`.
    public enum Error: Swift.Error, Sendable, CustomStringConvertible {
        /// The request had no URL, or a scheme the pipeline does not load
        /// (see ``ImagePipeline/Configuration/allowedSchemes``).
        case invalidURL(URL?)
        /// The server answered with a status outside 200...299.
        case badStatusCode(url: URL, statusCode: Int)
        /// The server answered 2xx with no body.
        case emptyResponse(url: URL)
        /// The body ended before the server said it would: fewer bytes than `Content-Length`
        /// arrived (the connection dropped).
        case truncatedResponse(url: URL, received: Int, expected: Int?)
        /// The whole body arrived and starts like a `format` image, but its container is broken
        /// or has no end (`reason` says what is wrong), for example a PNG header followed by
        /// garbage. The server sent a bad file: retrying does not help.
        case invalidImage(url: URL, format: ImageFormat, reason: String)
        /// The body is not an image the pipeline recognises (for example an HTML error page).
        case notAnImage(url: URL, contentType: String?)
        /// The image's header declares more pixels than ``ImagePipeline/Configuration/maximumPixelCount``:
        /// refused before decoding (a decompression bomb).
        case imageTooLarge(url: URL, size: PixelSize, maximumPixelCount: Int)
        /// Offline (`returnCacheDataDontLoad`, or cache-only in Low Data Mode) and not cached.
        case notCached(URL?)
        /// The connection failed (unreachable host, timeout, reset...).
        case transport(url: URL, underlying: any Swift.Error)
        /// The decoder could not decode the bytes. `underlying` is the error the decoder threw
        /// (`ImageIODecoder.Failure` for the default decoder on Apple platforms); the error's
        /// ``description`` includes its description.
        case decodingFailed(url: URL?, underlying: any Swift.Error)
        /// A processor of the request (named by its ``ImageProcessing/identifier``) failed.
        case processingFailed(url: URL?, processor: String, reason: String)
        /// The response announced or delivered more than
        /// ``ImagePipeline/Configuration/maximumResponseBytes``: refused (or cancelled mid-body).
        case responseTooLarge(url: URL, limit: Int)
        /// A redirect led back to a URL the same request had already been redirected back to
        /// once (the first return is followed, as `URLSession` follows it). `url` is the
        /// redirecting URL, `location` the one it pointed to.
        case redirectLoop(url: URL, location: URL)
        /// The request was redirected more than the limit allows (10). `url` is the original URL.
        case tooManyRedirects(url: URL, count: Int)
        /// ``ImagePipeline/storeImageData(_:forKey:)`` had nowhere to keep the bytes,
        /// so nothing was stored: the pipeline has no disk cache, because
        /// ``ImagePipeline/Configuration/diskCacheDirectory`` is `nil` (`openError` is `nil`) or
        /// the cache could not be opened (`openError` says why, as
        /// ``ImagePipeline/diskCacheOpenError`` does). `url` is the key's ``ImagePipeline/customKeyURL(_:)``.
        case diskCacheUnavailable(url: URL, openError: DiskCache.Error?)
        /// ``ImagePipeline/Configuration/requestModifier`` threw `underlying` (a token that
        /// could not be refreshed, say) before the request to `url` was sent: nothing was sent
        /// or stored.
        case requestModifierFailed(url: URL, underlying: any Swift.Error)
        /// Pinning an image of `size` bytes (its disk entry, header included) would take the
        /// pinned images past ``ImagePipeline/Configuration/pinnedDiskCacheSizeLimit`` (`limit`),
        /// with `pinnedSize` bytes pinned already. Nothing changed: no pinned image was unpinned
        /// or removed, and ``ImagePipeline/storeImageData(_:forKey:pinned:)`` stored nothing.
        /// Unpin or remove an image first (``ImagePipeline/unpinImage(forKey:)``). `url` is the
        /// key's ``ImagePipeline/customKeyURL(_:)``, or the request's URL.
        case pinnedSizeLimitExceeded(url: URL, size: Int, pinnedSize: Int, limit: Int)

        /// The URL the error is about, if any.
        public var url: URL? {
            switch self {
            case .invalidURL(let url), .notCached(let url): url
            case .badStatusCode(let url, _), .emptyResponse(let url), .truncatedResponse(let url, _, _),
                 .notAnImage(let url, _), .imageTooLarge(let url, _, _), .transport(let url, _):
                url
            case .decodingFailed(let url, _), .processingFailed(let url, _, _): url
            case .invalidImage(let url, _, _): url
            case .responseTooLarge(let url, _), .redirectLoop(let url, _), .tooManyRedirects(let url, _): url
            case .diskCacheUnavailable(let url, _), .requestModifierFailed(let url, _): url
            case .pinnedSizeLimitExceeded(let url, _, _, _): url
            }
        }

        /// Whether trying again later may succeed (timeouts, resets, 5xx, 429), as opposed to
        /// failures that will repeat (404, not an image, too large).
        public var isTransient: Bool {
            switch self {
            case .transport: true
            case .badStatusCode(_, let status): status >= 500 || status == 429 || status == 408
            case .truncatedResponse: true
            default: false
            }
        }

        public var description: String {
            let name = url?.absoluteString ?? "nil URL"
            switch self {
            case .invalidURL:
                return "Invalid or disallowed URL: \(name)"
            case .badStatusCode(_, let status):
                return "HTTP \(status) for \(name)"
            case .emptyResponse:
                return "Empty response body for \(name)"
            case .truncatedResponse(_, let received, let expected):
                let of = expected.map { " of \($0)" } ?? ""
                return "Truncated response for \(name): received \(received)\(of) bytes"
            case .notAnImage(_, let contentType):
                return "Not an image (Content-Type: \(contentType ?? "none")) at \(name)"
            case .imageTooLarge(_, let size, let limit):
                return "Image too large at \(name): \(size) exceeds \(limit) pixels"
            case .notCached:
                return "Not in cache and loading is not allowed: \(name)"
            case .transport(_, let underlying):
                return "Network error for \(name): \(Self.transportReason(underlying))"
            case .decodingFailed(_, let underlying):
                return "Could not decode \(name): \(underlying)"
            case .processingFailed(_, let processor, let reason):
                return "Processor \(processor) failed for \(name): \(reason)"
            case .invalidImage(_, let format, let reason):
                return "Not a valid \(format.rawValue.uppercased()) image at \(name): \(reason)"
            case .responseTooLarge(_, let limit):
                return "Response too large at \(name): over the \(limit)-byte limit"
            case .redirectLoop(_, let location):
                return "Redirect loop: \(name) redirects to \(location.absoluteString), already visited"
            case .tooManyRedirects(_, let count):
                return "Too many redirects for \(name) (\(count) hops)"
            case .diskCacheUnavailable(_, let openError):
                return "Not stored, no disk cache for \(name): " + (openError.map { "\($0)" } ?? "disabled in the configuration")
            case .requestModifierFailed(_, let underlying):
                return "The request modifier failed for \(name): \(underlying)"
            case .pinnedSizeLimitExceeded(_, let size, let pinnedSize, let limit):
                return "Not pinned, \(name): \(size) bytes on top of \(pinnedSize) pinned would pass the \(limit)-byte pinned limit"
            }
        }

        /// A transport failure in words, with the `URLError` code ("timed out (URLError -1001)").
        static func transportReason(_ error: any Swift.Error) -> String {
            guard let error = error as? URLError else { return String(describing: error) }
            let words: String
            switch error.code {
            case .cannotConnectToHost: words = "could not connect to the host"
            case .cannotFindHost, .dnsLookupFailed: words = "host not found"
            case .timedOut: words = "timed out"
            case .networkConnectionLost: words = "connection lost"
            case .notConnectedToInternet: words = "not connected to the internet"
            case .httpTooManyRedirects: words = "too many redirects"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                 .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
                words = "TLS failed"
            default: words = error.localizedDescription
            }
            return "\(words) (URLError \(error.code.rawValue))"
        }
    }
}
