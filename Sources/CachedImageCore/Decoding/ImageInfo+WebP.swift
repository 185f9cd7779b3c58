/// WebP: a RIFF container whose first chunk says the canvas size (`VP8 `, `VP8L` or `VP8X`);
/// animation frames (`ANMF`) and the image bitstream count towards the decoded extent.
extension ImageInfo {
    static func sniffWebP(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.matches(Array("RIFF".utf8), at: 0), bytes.matches(Array("WEBP".utf8), at: 8)
        else { return nil }
        guard let canvas = bitstreamSize(bytes, chunk: 12) else { return ImageInfo(format: .webp, pixelSize: nil) }
        guard bytes.u32be(12) == HeaderBytes.fourCC("VP8X") else { return ImageInfo(format: .webp, pixelSize: canvas) }
        return ImageInfo(format: .webp, pixelSize: canvas, extent: .union(canvas, webPFrameExtent(bytes)))
    }

    /// The size a chunk at `chunk` declares: a `VP8 ` key frame, a `VP8L` header or a `VP8X`
    /// canvas; its payload starts 8 bytes after the chunk.
    private static func bitstreamSize(_ bytes: HeaderBytes, chunk: Int) -> PixelSize? {
        let payload = chunk + 8
        switch bytes.u32be(chunk) {
        case HeaderBytes.fourCC("VP8 "):
            // Frame tag (3 bytes, bit 0 clear for a key frame), start code 9D 01 2A, then
            // 16-bit little-endian width and height whose top two bits are a scale.
            guard let tag = bytes.u8(payload), tag & 0x01 == 0,
                  bytes.matches([0x9D, 0x01, 0x2A], at: payload + 3),
                  let width = bytes.u16le(payload + 6), let height = bytes.u16le(payload + 8)
            else { return nil }
            return size(width & 0x3FFF, height & 0x3FFF)
        case HeaderBytes.fourCC("VP8L"):
            // Signature 0x2F, then 14 bits width - 1 and 14 bits height - 1, little-endian.
            guard bytes.u8(payload) == 0x2F, let bits = bytes.u32le(payload + 1) else { return nil }
            return size((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case HeaderBytes.fourCC("VP8X"):
            // Flags (1), reserved (3), then 24-bit canvas width - 1 and height - 1.
            guard let width = bytes.u24le(payload + 4), let height = bytes.u24le(payload + 7) else { return nil }
            return size(width + 1, height + 1)
        default:
            return nil
        }
    }

    /// Calls `body` with each chunk's type, offset and payload length after the RIFF header,
    /// in order, until the bytes run out or a chunk runs past them. Returns the offset after the
    /// last whole chunk (including its pad byte) and whether a chunk was cut.
    @discardableResult
    private static func forEachWebPChunk(
        _ bytes: HeaderBytes, _ body: (_ type: UInt32, _ offset: Int, _ length: Int) -> Void
    ) -> (end: Int, isCut: Bool) {
        var offset = 12
        var visited = 0
        while visited < 100_000, offset < bytes.count {
            visited += 1
            guard let type = bytes.u32be(offset), let length = bytes.u32le(offset + 4),
                  let end = HeaderBytes.end(of: offset + 8, length: Int(length))
            else { return (offset, true) }
            guard end <= bytes.count else { return (offset, true) }
            body(type, offset, Int(length))
            offset = end + Int(length & 1)
        }
        return (min(offset, bytes.count), false)
    }

    /// The bounding box of every `ANMF` frame (x / 2, y / 2, width - 1, height - 1 in 24 bits
    /// each) and of a still image's own bitstream, or `nil` when there is none.
    private static func webPFrameExtent(_ bytes: HeaderBytes) -> PixelSize? {
        var extent: PixelSize?
        forEachWebPChunk(bytes) { type, offset, _ in
            let payload = offset + 8
            if type == HeaderBytes.fourCC("ANMF") {
                let frame = frameExtent(
                    width: bytes.u24le(payload + 6).map { $0 + 1 }, height: bytes.u24le(payload + 9).map { $0 + 1 },
                    x: bytes.u24le(payload).map { $0 * 2 }, y: bytes.u24le(payload + 3).map { $0 * 2 }
                )
                if let frame { extent = PixelSize.boundingBox(extent, frame) }
            } else if type == HeaderBytes.fourCC("VP8 ") || type == HeaderBytes.fourCC("VP8L"),
                      let still = bitstreamSize(bytes, chunk: offset) {
                extent = PixelSize.boundingBox(extent, still)
            }
        }
        return extent
    }

    /// Complete when the RIFF size plus 8 equals the body length (one pad byte more allowed).
    /// A RIFF size that disagrees with the body (a writer's slip, or a cut body) leaves it to
    /// the transfer: decoders read the chunks that are there.
    static func webPContainerCheck(_ bytes: HeaderBytes) -> ContainerCheck {
        guard bytes.matches(Array("RIFF".utf8), at: 0), bytes.matches(Array("WEBP".utf8), at: 8),
              let riffSize = bytes.u32le(4),
              let expected = Int(exactly: UInt64(riffSize) + 8)
        else { return .broken("it does not start with a RIFF WEBP header") }
        var hasImage = false
        let walk = forEachWebPChunk(bytes) { type, _, _ in
            if [HeaderBytes.fourCC("VP8 "), HeaderBytes.fourCC("VP8L"), HeaderBytes.fourCC("ANMF")].contains(type) {
                hasImage = true
            }
        }
        if bytes.count == expected || bytes.count == expected + 1 {
            return .complete
        }
        let mismatch = "the RIFF size (\(riffSize) + 8) does not match the body's \(bytes.count) bytes"
        guard hasImage || walk.isCut else { return .broken(mismatch + " and it holds no image chunk") }
        return .unterminated(mismatch)
    }
}
