/// HDR decoding (``ImageRequest/Options/decodeToHDR``): what it costs and what ImageIO is asked.
///
/// The ImageIO options are written by their values, not their symbols: the symbols appeared in
/// the iOS 17 SDK (`kCGImageSourceDecodeRequest`, `kCGImageSourceDecodeToHDR`; iOS 17, macOS 14,
/// tvOS 17, watchOS 10, visionOS 1) and the package builds against older SDKs too (the iPhoneOS
/// 16.5 SDK lacks them). Each constant's value is its own name, as ImageIO's other
/// `kCGImageSource…` keys are (`kCGImageSourceShouldCache` is `"kCGImageSourceShouldCache"`):
/// Apple's documentation gives the symbols and their availability, not their strings; the values
/// come from a public test that compares ImageIO's constants with their names on a current
/// system, not from a run of this package on a device. The Apple decoder passes them only where
/// `#available` says the system has them.
extension DecodingTarget {
    /// The bytes one decoded pixel takes: 8 for an HDR decode (16-bit float RGBA, what ImageIO
    /// produces for an HDR image), 4 otherwise. An HDR request for an SDR image is decoded at 4
    /// in practice; the pipeline reserves 8 before it knows.
    package var bytesPerPixel: Int { decodesToHDR ? 8 : 4 }

    /// The bitmap a decode for this target of an image of `source` pixels allocates, at most: the
    /// decoded size at ``bytesPerPixel``. What the decoding budget admits the decode by.
    package func decodedBytes(of source: PixelSize) -> Int {
        DecodedImage.bitmapCost(of: decodedSize(of: source), bytesPerPixel: bytesPerPixel)
    }

    /// The options ImageIO's `CGImageSourceCreateThumbnailAtIndex` and
    /// `CGImageSourceCreateImageAtIndex` get for this target beyond the usual ones: the HDR decode
    /// request for an HDR target, nothing for an SDR one (the SDR decode is unchanged).
    package var imageIODecodeRequest: [String: String] {
        guard decodesToHDR else { return [:] }
        return [Self.decodeRequestKey: Self.decodeToHDRValue]
    }

    /// `kCGImageSourceDecodeRequest`'s value.
    package static let decodeRequestKey = "kCGImageSourceDecodeRequest"
    /// `kCGImageSourceDecodeToHDR`'s value.
    package static let decodeToHDRValue = "kCGImageSourceDecodeToHDR"
}

extension DecodedImage {
    /// The memory a decoded bitmap of `size` takes at `bytesPerPixel` bytes per pixel.
    package static func bitmapCost(of size: PixelSize, bytesPerPixel: Int) -> Int {
        let (cost, overflow) = size.pixelCount.multipliedReportingOverflow(by: bytesPerPixel)
        return overflow ? .max : cost
    }
}
