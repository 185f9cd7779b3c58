/// HEIF transformative item properties that change the displayed size (ISO/IEC 23008-12 6.5.9
/// and 6.5.10): the clean aperture crop and the rotation. A mirror (`imir`) changes nothing.
enum HEIFTransform: Sendable, Hashable {
    /// `clap`: the clean aperture's width and height (rationals, rounded to whole pixels).
    case cleanAperture(width: Double, height: Double)
    /// `irot`: anticlockwise quarter turns, 0...3.
    case rotation(quarterTurns: Int)

    /// Reads a `clap` or `irot` property box; `nil` for other boxes or malformed values.
    init?(_ box: ImageInfo.Box, _ bytes: HeaderBytes) {
        switch box.type {
        case HeaderBytes.fourCC("clap"):
            // widthN, widthD, heightN, heightD, then the offsets (not needed for the size).
            let start = box.contentStart
            guard let widthN = bytes.u32be(start), let widthD = bytes.u32be(start + 4),
                  let heightN = bytes.u32be(start + 8), let heightD = bytes.u32be(start + 12),
                  widthD > 0, heightD > 0, widthN > 0, heightN > 0
            else { return nil }
            self = .cleanAperture(width: Double(widthN) / Double(widthD), height: Double(heightN) / Double(heightD))
        case HeaderBytes.fourCC("irot"):
            guard let angle = bytes.u8(box.contentStart) else { return nil }
            self = .rotation(quarterTurns: Int(angle & 0x03))
        default:
            return nil
        }
    }

    /// `size` after this transform. A crop is never larger than the image, nor smaller than a pixel.
    func apply(to size: PixelSize) -> PixelSize {
        switch self {
        case .cleanAperture(let width, let height):
            let croppedWidth = min(size.width, max(1, Int(width.rounded())))
            let croppedHeight = min(size.height, max(1, Int(height.rounded())))
            return PixelSize(width: croppedWidth, height: croppedHeight)
        case .rotation(let quarterTurns):
            return quarterTurns % 2 == 1 ? PixelSize(width: size.height, height: size.width) : size
        }
    }
}
