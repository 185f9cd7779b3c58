import Foundation

/// The first bytes of a download that stopped before its end, kept to be resumed
/// (``RangeResumption``). Never an image: nothing reads these bytes but the download that
/// continues them, and the assembled body is validated like any other.
struct PartialDownload: Sendable, Equatable {
    /// The URL requested (before any redirect): the next request for it resumes.
    var url: URL
    /// The strong validator sent as `If-Range`: an `ETag`, or a `Last-Modified` date.
    var validator: String
    /// The bytes received, from the first byte of the body on.
    var data: Data
    /// The complete length of the body when the server announced it.
    var totalLength: Int?

    /// Whether these bytes are worth keeping: some arrived, and not all of them.
    var isResumable: Bool {
        !data.isEmpty && totalLength.map { data.count < $0 } ?? true
    }
}
