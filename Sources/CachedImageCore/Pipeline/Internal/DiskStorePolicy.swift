import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decides what a validated download does to the disk cache: stored with its HTTP metadata,
/// kept off disk (and any older copy removed), or left alone.
struct DiskStorePolicy: Sendable {
    /// Whether responses to requests carrying `Authorization` may be written to disk.
    var storesAuthorizedResponses: Bool

    enum Decision: Equatable {
        /// Store the bytes with this metadata.
        case store(CachedResponseMetadata)
        /// Keep these bytes off disk, and remove an older entry so it cannot outlive them.
        case remove
        /// The request does not use the disk cache: leave it as it is.
        case skip
    }

    /// - Parameters:
    ///   - statusCode: The final response's status (heuristic freshness depends on it).
    ///   - requestHeaders: The request's header fields as sent, for `Vary`.
    func decision(
        for request: ImageRequest,
        headers: HTTPHeaders,
        statusCode: Int,
        requestHeaders: HTTPHeaders,
        requestTime: Date,
        responseTime: Date
    ) -> Decision {
        if request.options.contains(.skipDiskCache) {
            return .skip
        }
        if !storesAuthorizedResponses, request.urlRequest.value(forHTTPHeaderField: "Authorization") != nil {
            // A private response: memory only.
            return .remove
        }
        // `nil` metadata means `no-store`, `Vary: *` or `Vary: Cookie`: such bytes never touch the disk.
        guard let metadata = CachedResponseMetadata(
            headers: headers, statusCode: statusCode, requestHeaders: requestHeaders,
            requestTime: requestTime, responseTime: responseTime
        ) else {
            return .remove
        }
        return .store(metadata)
    }
}
