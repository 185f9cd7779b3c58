import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import CachedImageCore

/// An error the command line reports as one clear line (ArgumentParser prints
/// `Error: <description>` and exits with status 1).
public struct CLIError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The one-line message.
    public let description: String

    /// Creates an error with a one-line message.
    public init(_ description: String) {
        self.description = description
    }
}

extension CLIError {
    /// A short, human explanation of why loading `url` failed, without the URL itself.
    static func reason(for error: any Error) -> String {
        switch error {
        case let error as ImagePipeline.Error:
            return reason(for: error)
        case let error as URLError:
            return reason(for: error)
        case is CancellationError:
            return "cancelled"
        default:
            return String(describing: error)
        }
    }

    private static func reason(for error: ImagePipeline.Error) -> String {
        switch error {
        case .invalidURL:
            return "not a loadable URL (use http://, https:// or file://)"
        case .badStatusCode(_, let status):
            return "the server answered HTTP \(status)"
        case .emptyResponse:
            return "the server sent an empty body"
        case .truncatedResponse(_, let received, let expected):
            return "the download was cut short (\(received)\(expected.map { " of \($0)" } ?? "") bytes)"
        case .notAnImage(_, let contentType):
            return "not an image (Content-Type: \(contentType ?? "none"))"
        case .imageTooLarge(_, let size, let limit):
            return "image too large (\(size), more than \(limit) pixels)"
        case .notCached:
            return "not in the cache (offline)"
        case .transport(_, let underlying):
            return reason(for: underlying)
        case .decodingFailed(_, let underlying):
            return "could not decode: \(underlying)"
        case .processingFailed(_, let processor, let reason):
            return "processor \(processor) failed: \(reason)"
        case .invalidImage(_, let format, let reason):
            return "not a valid \(format.rawValue.uppercased()): \(reason)"
        case .responseTooLarge(_, let limit):
            return "response too large (more than \(limit) bytes)"
        case .redirectLoop(_, let location):
            return "redirect loop (back to \(location.absoluteString))"
        case .tooManyRedirects(_, let count):
            return "too many redirects (\(count))"
        case .diskCacheUnavailable(_, let openError):
            return "no disk cache to store it in" + (openError.map { ": \($0)" } ?? "")
        case .requestModifierFailed(_, let underlying):
            return "the request modifier failed: \(underlying)"
        case .pinnedSizeLimitExceeded(_, let size, let pinnedSize, let limit):
            return "not pinned: \(size) bytes on top of \(pinnedSize) pinned would pass the \(limit)-byte pinned limit"
        }
    }

    private static func reason(for error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: return "could not connect to the host (connection refused)"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .timedOut: return "timed out"
        case .notConnectedToInternet, .networkConnectionLost: return "no network connection"
        case .unsupportedURL: return "unsupported URL"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return "TLS failed (\(error.code.rawValue))"
        default: return "network error \(error.code.rawValue)"
        }
    }
}
