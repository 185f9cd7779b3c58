/// GIF (87a and 89a): the logical screen, grown to the first frame's image descriptor as
/// decoders grow it; every frame's descriptor for the limit; and the block chain.
extension ImageInfo {
    /// What one walk over a GIF's blocks found.
    struct GIFWalk {
        /// The bounding box of every image descriptor (left + width, top + height) seen.
        var frames: PixelSize?
        /// The first image descriptor's box.
        var firstFrame: PixelSize?
        /// Image descriptors whose data (every sub-block) arrived.
        var completeImages = 0
        /// Whether an image descriptor started (its data may be cut).
        var imageStarted = false
        /// How the walk ended.
        var ending = Ending.outOfData

        enum Ending {
            /// The `0x3B` trailer.
            case trailer
            /// A byte that introduces no block: junk, or a second GIF stream concatenated to this one.
            case junk
            /// The bytes ran out inside or between blocks.
            case outOfData
        }
    }

    static func sniffGIF(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.matches(Array("GIF87a".utf8), at: 0) || bytes.matches(Array("GIF89a".utf8), at: 0)
        else { return nil }
        guard let screen = size(bytes.u16le(6), bytes.u16le(8)) else { return ImageInfo(format: .gif, pixelSize: nil) }
        let walk = walkGIF(bytes)
        // Until the first image descriptor has arrived, a frame larger than the screen may
        // still come: the size to decode is not known yet.
        if walk.frames == nil, walk.ending == .outOfData {
            return ImageInfo(format: .gif, pixelSize: screen, extent: .pending)
        }
        // Decoders (browsers, Pillow) grow the canvas to a first frame that reaches outside the
        // screen; a later frame that does is decoded too, so it counts for the limit.
        let canvas = walk.firstFrame.map { PixelSize.boundingBox(screen, $0) } ?? screen
        return ImageInfo(format: .gif, pixelSize: canvas, extent: .union(canvas, walk.frames))
    }

    /// Walks the block chain (extensions and images with their sub-blocks) from the end of the
    /// global colour table.
    static func walkGIF(_ bytes: HeaderBytes) -> GIFWalk {
        var walk = GIFWalk()
        guard let screenFlags = bytes.u8(10) else { return walk }
        var offset = 13 + colorTableLength(flags: screenFlags)
        while let introducer = bytes.u8(offset) {
            switch introducer {
            case 0x3B:
                walk.ending = .trailer
                return walk
            case 0x21: // Extension: introducer, label, sub-blocks.
                guard let next = skipSubBlocks(bytes, from: offset + 2) else { return walk }
                offset = next
            case 0x2C: // Image descriptor (10 bytes), local colour table, LZW code size, sub-blocks.
                guard let imageFlags = bytes.u8(offset + 9) else { return walk }
                if let frame = frameExtent(width: bytes.u16le(offset + 5), height: bytes.u16le(offset + 7),
                                           x: bytes.u16le(offset + 1), y: bytes.u16le(offset + 3)) {
                    walk.frames = PixelSize.boundingBox(walk.frames, frame)
                    walk.firstFrame = walk.firstFrame ?? frame
                }
                walk.imageStarted = true
                let dataStart = offset + 10 + colorTableLength(flags: imageFlags) + 1
                guard let next = skipSubBlocks(bytes, from: dataStart) else { return walk }
                walk.completeImages += 1
                offset = next
            default:
                walk.ending = .junk
                return walk
            }
        }
        return walk
    }

    /// The container check: complete at the trailer, or at junk after a whole image (browsers
    /// stop there and show what they have: a second concatenated stream, stray bytes).
    static func gifContainerCheck(_ bytes: HeaderBytes) -> ContainerCheck {
        guard bytes.matches(Array("GIF8".utf8), at: 0) else { return .broken("it does not start with a GIF signature") }
        let walk = walkGIF(bytes)
        switch walk.ending {
        case .trailer where walk.completeImages > 0, .junk where walk.completeImages > 0:
            return .complete
        case .trailer, .junk:
            return .broken("the block chain ends before any complete image")
        case .outOfData where walk.imageStarted:
            return .unterminated("the block chain does not reach the trailer (0x3B)")
        case .outOfData:
            return .broken("the data ends before any image descriptor")
        }
    }

    /// Bytes in the colour table a GIF screen or image descriptor's packed flags announce.
    private static func colorTableLength(flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }

    /// The offset just after a chain of sub-blocks and its zero terminator, or `nil` if truncated.
    private static func skipSubBlocks(_ bytes: HeaderBytes, from start: Int) -> Int? {
        var offset = start
        while let length = bytes.u8(offset) {
            offset += 1
            if length == 0 { return offset }
            offset += Int(length)
        }
        return nil
    }
}
