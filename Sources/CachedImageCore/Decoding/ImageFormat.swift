/// An image container format recognised from its leading bytes.
public enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// PNG, APNG included.
    case png
    /// JPEG, baseline or progressive.
    case jpeg
    /// GIF, still or animated.
    case gif
    /// WebP, still or animated.
    case webp
    /// HEIF/HEIC.
    case heic
    /// AVIF.
    case avif
    /// Windows bitmap (`BM`).
    case bmp
    /// TIFF, little- or big-endian (`II*\0`, `MM\0*`); also DNG and other TIFF-based raw formats.
    case tiff
    /// Windows icon (`.ico`) or cursor (`.cur`).
    case ico
    /// A format the core does not parse but the platform's decoder (ImageIO on Apple platforms)
    /// recognises, such as JPEG 2000 or OpenEXR. It is passed to the decoder without the core's
    /// structural checks; the decoder's own verdict decides.
    case other

    /// The format's usual MIME type, for example `image/png` (`application/octet-stream` for
    /// ``other``).
    public var mimeType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .bmp: "image/bmp"
        case .tiff: "image/tiff"
        case .ico: "image/vnd.microsoft.icon"
        case .other: "application/octet-stream"
        }
    }
}
