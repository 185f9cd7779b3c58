import Foundation

/// What a container's structure says about a body before any decoder sees it.
enum ContainerCheck: Equatable, Sendable {
    /// Every structure the format requires is there.
    case complete
    /// The image data starts but the container's end is missing or does not add up (no `IEND`,
    /// trailer or `EOI`; a cut scan; a RIFF or BMP size that disagrees with the body). Decoders
    /// and browsers show such files, but a body cut short looks the same: accepted when the
    /// transfer is known to be complete, refused when it may have been cut. The text says what
    /// is missing.
    case unterminated(String)
    /// Nothing decodable is there (headers only, a directory pointing nowhere): refused.
    case broken(String)
}

extension ImageInfo {
    /// Whether `data` looks like a fully delivered `format` container rather than a truncated one.
    ///
    /// Use it to refuse a download that stopped early before it is cached. It checks structure,
    /// not pixels, and never traps on malformed input:
    /// - PNG: the chunk chain from the signature reaches a complete `IEND` chunk.
    /// - JPEG: the marker segments and entropy-coded scans, walked from `SOI`, reach an `EOI`
    ///   (`FF D9`). Bytes after `EOI` (padding, vendor trailers) are tolerated. If the stream is
    ///   malformed rather than short, an `EOI` within the last 64 bytes is accepted instead.
    /// - GIF: the block chain (extensions and images with their sub-blocks) reaches the `0x3B`
    ///   trailer, or, after at least one whole image, bytes that start no block (junk, or a
    ///   second GIF concatenated to the first: decoders stop there).
    /// - WebP: the RIFF size field plus 8 equals `data.count` (one pad byte more is allowed).
    /// - HEIC/AVIF: the file starts with `ftyp`, the top-level box sizes add up to exactly
    ///   `data.count` (a box of size 0 runs to the end), there is a `meta` box (or `moov`, for
    ///   image sequences), and every item extent that `meta`'s `iloc` places in the file ends
    ///   within the data. The last check catches a file cut exactly at a box boundary.
    /// - BMP: the pixel rows the header describes (or its image size field, for compressed
    ///   bitmaps) have arrived; the file-size field, which decoders ignore, is not used.
    /// - TIFF and BigTIFF: the first image directory and the strips or tiles it points at
    ///   have arrived.
    /// - ICO/CUR: every entry's image (an embedded PNG to its `IEND`, a DIB's rows and mask)
    ///   has arrived; the directory's byte counts are not trusted.
    ///
    /// The pipeline is more lenient than this when the transfer itself is known to be complete
    /// (a `Content-Length` that matched, a terminated chunked body): then only bodies with
    /// nothing decodable in them are refused, and the decoder judges the rest.
    ///
    /// ```swift
    /// guard ImageInfo.isComplete(body, format: info.format) else { throw MyError.truncated }
    /// ```
    ///
    /// - Returns: `false` when the data is truncated, does not start like `format`, or is too
    ///   malformed to tell.
    public static func isComplete(_ data: Data, format: ImageFormat) -> Bool {
        containerCheck(data, format: format) == .complete
    }

    /// The verdict behind ``isComplete(_:format:)``, with what is missing in words.
    static func containerCheck(_ data: Data, format: ImageFormat) -> ContainerCheck {
        let bytes = HeaderBytes(data)
        switch format {
        case .png: return pngContainerCheck(bytes)
        case .jpeg: return jpegContainerCheck(data)
        case .gif: return gifContainerCheck(bytes)
        case .webp: return webPContainerCheck(bytes)
        case .heic, .avif: return isobmffContainerCheck(bytes)
        case .bmp: return bmpContainerCheck(bytes)
        case .ico: return icoContainerCheck(bytes)
        case .tiff: return tiffContainerCheck(bytes)
        case .other:
            return platformDecoderIsComplete(data) ? .complete : .unterminated("the platform decoder reports it incomplete")
        }
    }

    // MARK: - PNG

    /// Walks the chunk chain to `IEND` (`PNGChunkChains`).
    static func pngContainerCheck(_ bytes: HeaderBytes) -> ContainerCheck {
        var chains = PNGChunkChains(bytes, remembering: false)
        return chains.check(signatureAt: 0)
    }

    // MARK: - JPEG

    private enum Walk {
        case complete
        case truncated
        case malformed
    }

    /// How many bytes may follow `EOI` when the fallback tail check is used.
    private static let jpegTrailingTolerance = 64

    /// Complete at `EOI`. A stream that runs out, or breaks, inside or after its first scan
    /// is unterminated (decoders show the rows they got, grey below); one that ends before any
    /// scan has no pixels and is broken.
    static func jpegContainerCheck(_ data: Data) -> ContainerCheck {
        data.withUnsafeBytes { raw in
            guard raw.count >= 4, raw[0] == 0xFF, raw[1] == 0xD8 else { return .broken("it does not start with a JPEG SOI marker") }
            var sawScan = false
            switch walkJPEG(raw, sawScan: &sawScan) {
            case .complete:
                return .complete
            case .truncated:
                break
            case .malformed:
                let start = max(2, raw.count - 2 - jpegTrailingTolerance)
                var index = raw.count - 2
                while index >= start {
                    if raw[index] == 0xFF, raw[index + 1] == 0xD9 { return .complete }
                    index -= 1
                }
            }
            return sawScan
                ? .unterminated("the marker segments do not reach an end-of-image marker (FF D9)")
                : .broken("the data ends or breaks before the first scan (SOS)")
        }
    }

    private static func walkJPEG(_ raw: UnsafeRawBufferPointer, sawScan: inout Bool) -> Walk {
        let count = raw.count
        var index = 2
        while true {
            guard index < count else { return .truncated }
            guard raw[index] == 0xFF else { return .malformed }
            var codeIndex = index + 1
            while codeIndex < count, raw[codeIndex] == 0xFF {
                codeIndex += 1 // Fill bytes.
            }
            guard codeIndex < count else { return .truncated }
            let code = raw[codeIndex]
            index = codeIndex + 1
            switch code {
            case 0xD9:
                return .complete
            case 0x01, 0xD0...0xD7:
                continue
            case 0x00, 0xD8:
                return .malformed
            default:
                guard index + 1 < count else { return .truncated }
                let length = Int(raw[index]) << 8 | Int(raw[index + 1])
                guard length >= 2 else { return .malformed }
                index += length
                if code == 0xDA {
                    sawScan = true
                    // Entropy-coded data follows the scan header: skip to the next real marker.
                    // Inside it, FF 00 is a stuffed 0xFF and FF D0...D7 are restart markers.
                    while true {
                        guard index < count else { return .truncated }
                        if raw[index] != 0xFF {
                            index += 1
                            continue
                        }
                        guard index + 1 < count else { return .truncated }
                        let next = raw[index + 1]
                        if next == 0x00 || (0xD0...0xD7).contains(next) {
                            index += 2
                        } else {
                            break // A marker, possibly after fill bytes: the outer walk reads it.
                        }
                    }
                }
            }
        }
    }

    // MARK: - HEIC / AVIF

    /// Complete when the top-level boxes add up to the body and the item data is there. A body
    /// whose boxes overrun it, or whose item data lies past its end, is unterminated once
    /// `meta` (or `moov`) is there; broken otherwise.
    static func isobmffContainerCheck(_ bytes: HeaderBytes) -> ContainerCheck {
        if isobmffIsComplete(bytes) { return .complete }
        let hasDescription = firstBox(HeaderBytes.fourCC("meta"), in: bytes, 0..<bytes.count) != nil
            || firstBox(HeaderBytes.fourCC("moov"), in: bytes, 0..<bytes.count) != nil
        return hasDescription
            ? .unterminated("the box sizes or item extents do not match the body length")
            : .broken("there is no meta (or moov) box describing an image")
    }

    private static func isobmffIsComplete(_ bytes: HeaderBytes) -> Bool {
        guard bytes.u32be(4) == HeaderBytes.fourCC("ftyp") else { return false }
        var meta: Box?
        var hasMovie = false
        /// A file cut exactly at a box boundary still adds up, so the item data must be there
        /// too: there must be a `meta` (or, for sequences, `moov`) box, and every extent `iloc`
        /// places in the file must end within it.
        func contentArrived() -> Bool {
            if let meta {
                return (itemDataEnd(in: meta, bytes) ?? 0) <= bytes.count
            }
            return hasMovie
        }
        var offset = 0
        while offset < bytes.count {
            guard let size32 = bytes.u32be(offset), let type = bytes.u32be(offset + 4) else { return false }
            let headerLength: Int
            let size: Int
            switch size32 {
            case 0: // The last box runs to the end of the file.
                headerLength = 8
                size = bytes.count - offset
            case 1:
                guard let large = bytes.u64be(offset + 8), let value = Int(exactly: large), value >= 16
                else { return false }
                headerLength = 16
                size = value
            default:
                guard let value = Int(exactly: size32), value >= 8 else { return false }
                headerLength = 8
                size = value
            }
            guard let next = HeaderBytes.end(of: offset, length: size) else { return false }
            if type == HeaderBytes.fourCC("meta"), meta == nil {
                meta = Box(type: type, contentStart: offset + headerLength, contentEnd: min(next, bytes.count))
            } else if type == HeaderBytes.fourCC("moov") {
                hasMovie = true
            }
            offset = next
        }
        return offset == bytes.count && contentArrived()
    }
}
