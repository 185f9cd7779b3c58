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
        /// The body ended before the image did (fewer bytes than `Content-Length`, or an image
        /// container with no end).
        case truncatedResponse(url: URL, received: Int, expected: Int?)
        /// The body is not an image the pipeline recognises (for example an HTML error page).
        case notAnImage(url: URL, contentType: String?)
        /// The image's header declares more pixels than ``ImagePipeline/Configuration/maxPixelCount``:
        /// refused before decoding (a decompression bomb).
        case imageTooLarge(url: URL, size: PixelSize, maxPixelCount: Int)
        /// Offline (`returnCacheDataDontLoad`, or cache-only in Low Data Mode) and not cached.
        case notCached(URL?)
        /// The connection failed (unreachable host, timeout, reset...).
        case transport(url: URL, underlying: any Swift.Error)
        /// The decoder could not decode the bytes.
        case decodingFailed(url: URL?, reason: String)
        /// A processor of the request (named by its ``ImageProcessing/identifier``) failed.
        case processingFailed(url: URL?, processor: String, reason: String)

        /// The URL the error is about, if any.
        public var url: URL? {
            switch self {
            case .invalidURL(let url), .notCached(let url): url
            case .badStatusCode(let url, _), .emptyResponse(let url), .truncatedResponse(let url, _, _),
                 .notAnImage(let url, _), .imageTooLarge(let url, _, _), .transport(let url, _):
                url
            case .decodingFailed(let url, _), .processingFailed(let url, _, _): url
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
                return "Network error for \(name): \(underlying.localizedDescription)"
            case .decodingFailed(_, let reason):
                return "Could not decode \(name): \(reason)"
            case .processingFailed(_, let processor, let reason):
                return "Processor \(processor) failed for \(name): \(reason)"
            }
        }
    }
}
