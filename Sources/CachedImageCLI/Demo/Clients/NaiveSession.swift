import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session the documents-directory and NSCache baselines download with: the default
/// configuration without a `URLCache`, so each baseline measures only its own cache.
enum NaiveSession {
    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }
}
