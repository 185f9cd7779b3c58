/// An image container format recognised from its leading bytes.
public enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case png
    case jpeg
    case gif
    case webp
    case heic
    case avif

    /// The format's usual MIME type, for example `image/png`.
    public var mimeType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        }
    }
}
