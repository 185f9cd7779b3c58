import Foundation

/// What a job hands its subscribers before its value.
enum JobUpdate: Sendable {
    /// The next chunk of a body as it arrives from the network (data jobs).
    case bytes(Data)
    /// The download stopped and starts over: the chunks so far are void (data jobs).
    case restarted
    /// A preview decoded from the part of a progressive JPEG received so far (image jobs).
    case preview(DecodedImage)
    /// The stored copy, decoded while the server is asked whether it is still current (image
    /// jobs): a view shows it at once instead of a placeholder (``ImageResponse/isStale``).
    /// Handed to subscribers that join later too, as they join.
    case stale(DecodedResult)
    /// The image's size in pixels as it shows, read from the first bytes of its body as they
    /// arrive (data jobs, passed on by image jobs): a view reserves its space before the last
    /// byte. Handed to subscribers that join later too, as they join.
    case imageSize(PixelSize)

    /// An image only a view shows (a preview, the stale copy): for subscribers that observe images.
    var isImage: Bool {
        switch self {
        case .preview, .stale: true
        case .bytes, .restarted, .imageSize: false
        }
    }
}
