import Foundation
#if canImport(Darwin)
import Darwin
#endif

/// ImageIO's HDR decode request: `kCGImageSourceDecodeRequest` set to
/// `kCGImageSourceDecodeToHDR` (iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1). The
/// package builds against SDKs without these symbols (the iPhoneOS 16.5 SDK), so they are looked
/// up at run time (`dlsym`) and their strings read from the system; where the system lacks them
/// there is no request and the decode is SDR. The lookup doubles as the availability check.
package struct HDRDecodeRequest: Sendable, Hashable {
    /// `kCGImageSourceDecodeRequest`'s value.
    package var key: String
    /// `kCGImageSourceDecodeToHDR`'s value.
    package var value: String

    /// The system's request; `nil` where ImageIO cannot decode to HDR (older systems, Linux).
    package static let system: HDRDecodeRequest? = {
        guard let key = stringConstant("kCGImageSourceDecodeRequest"),
              let value = stringConstant("kCGImageSourceDecodeToHDR") else { return nil }
        return HDRDecodeRequest(key: key, value: value)
    }()

    /// The `CFString` constant exported under `symbol`, or `nil` when no loaded image exports it.
    private static func stringConstant(_ symbol: String) -> String? {
        #if canImport(Darwin)
        // RTLD_DEFAULT: every image loaded in the process.
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: -2), symbol) else { return nil }
        let string = address.assumingMemoryBound(to: Optional<CFString>.self).pointee
        return string.map { $0 as String }
        #else
        return nil
        #endif
    }

    /// Whether ``ImageRequest/Options/decodeToHDR`` is honoured: where the system decodes HDR
    /// (``system``). Elsewhere an HDR request is an SDR one, in its key and cost. On Linux,
    /// which has no ImageIO, it is honoured (the header decoder stands in, at 8 bytes a pixel),
    /// and tests set it for a task with `HDRDecodeRequest.isAvailable.withValue(false) { ... }`.
    package static let isAvailable: TaskLocal<Bool> = {
        #if canImport(ImageIO)
        TaskLocal(wrappedValue: system != nil)
        #else
        TaskLocal(wrappedValue: true)
        #endif
    }()
}

/// HDR decoding (``ImageRequest/Options/decodeToHDR``): what it costs and what ImageIO is asked.
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
    /// `CGImageSourceCreateImageAtIndex` get for this target beyond the usual ones: `request`
    /// (the system's, ``HDRDecodeRequest/system``) for an HDR target, nothing for an SDR one or
    /// where the system has no request (the SDR decode is unchanged).
    package func imageIODecodeRequest(_ request: HDRDecodeRequest? = HDRDecodeRequest.system) -> [String: String] {
        guard decodesToHDR, let request else { return [:] }
        return [request.key: request.value]
    }
}

extension DecodedImage {
    /// The memory a decoded bitmap of `size` takes at `bytesPerPixel` bytes per pixel.
    package static func bitmapCost(of size: PixelSize, bytesPerPixel: Int) -> Int {
        let (cost, overflow) = size.pixelCount.multipliedReportingOverflow(by: bytesPerPixel)
        return overflow ? .max : cost
    }
}
