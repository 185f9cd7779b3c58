#if canImport(SwiftUI)
import CachedImage
import Foundation

/// Images behind authentication: the headers travel on the request, and the values of identity
/// headers key every cache, so one user's image is never shown to another.
public enum AuthenticatedImageExamples {
    /// A request carrying the user's token. `Authorization` is an identity header by default:
    /// its value (hashed) is part of the memory, disk and in-flight keys.
    public static func avatarRequest(url: URL, token: String) -> ImageRequest {
        var urlRequest = URLRequest(url: url)
        urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return ImageRequest(urlRequest: urlRequest, targetSize: CGSize(width: 40, height: 40))  // points
    }

    /// A pipeline for an app whose image server also varies on an account header, and whose
    /// private images may stay on this device's disk across launches (by default, responses to
    /// requests with `Authorization` are kept in memory only).
    public static func privateImagesPipeline() -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.identityHeaderFields = ["Authorization", "X-Account-ID"]
        configuration.storesAuthorizedResponsesOnDisk = true
        return ImagePipeline(configuration: configuration)
    }
}
#endif
