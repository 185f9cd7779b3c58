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

    /// - Parameter metadata: The response's caching metadata; `nil` when the response may not
    ///   be stored (`no-store`, `Vary: *`, `Vary: Cookie`, a redirect hop forbidding it).
    func decision(for request: ImageRequest, metadata: CachedResponseMetadata?) -> Decision {
        if request.options.contains(.skipDiskCache) {
            return .skip
        }
        if !storesAuthorizedResponses, request.urlRequest.value(forHTTPHeaderField: "Authorization") != nil {
            // A private response: memory only.
            return .remove
        }
        // Bytes that may not be stored never touch the disk.
        return metadata.map(Decision.store) ?? .remove
    }
}
