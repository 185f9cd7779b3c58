import Foundation

/// A failed download attempt: the error, how long the server asked to wait before the next one
/// (its `Retry-After`, parsed), and the response when the server gave one.
struct DownloadFailure: Error {
    var error: ImagePipeline.Error
    var retryAfter: TimeInterval?
    var response: Downloader.Response?

    init(_ error: ImagePipeline.Error, retryAfter: TimeInterval? = nil, response: Downloader.Response? = nil) {
        self.error = error
        self.retryAfter = retryAfter
        self.response = response
    }
}
