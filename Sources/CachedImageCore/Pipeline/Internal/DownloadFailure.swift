import Foundation

/// A failed download attempt: the error, and how long the server asked to wait before the next
/// one (its `Retry-After`, parsed).
struct DownloadFailure: Error {
    var error: ImagePipeline.Error
    var retryAfter: TimeInterval?

    init(_ error: ImagePipeline.Error, retryAfter: TimeInterval?) {
        self.error = error
        self.retryAfter = retryAfter
    }
}
