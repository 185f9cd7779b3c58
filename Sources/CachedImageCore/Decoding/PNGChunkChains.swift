/// Walks PNG chunk chains (length, type, data, CRC, from just after the signature) to `IEND`.
///
/// One body can hold many PNGs whose chains share chunks: an icon's directory may point any
/// number of entries at one image, or at signatures hidden inside another image's chunks whose
/// chains join it. Remembering where each chunk's chain leads makes checking all of them linear
/// in the body: no chunk is walked twice.
struct PNGChunkChains {
    /// Where the chain from one chunk leads.
    struct Tail: Equatable {
        /// A whole `IEND` chunk ends it.
        var reachesEnd: Bool
        /// An `IDAT` chunk stands on the way.
        var sawImageData: Bool
    }

    let bytes: HeaderBytes
    /// Whether walks are remembered by chunk offset (for bodies with several PNGs).
    let remembers: Bool
    /// Chunk headers read so far: at most one per chunk in the body when `remembers`.
    private(set) var chunksRead = 0
    private var tails: [Int: Tail] = [:]
    private var path: [(offset: Int, isImageData: Bool)] = []

    init(_ bytes: HeaderBytes, remembering: Bool) {
        self.bytes = bytes
        self.remembers = remembering
    }

    /// The verdict on the PNG whose signature is at `offset`. A chain that breaks (the data
    /// ends, a chunk is cut, or junk stands where a chunk header should) after image data
    /// (`IDAT`) began is unterminated; before any, broken.
    mutating func check(signatureAt offset: Int) -> ContainerCheck {
        guard bytes.matches(ImageInfo.pngSignature, at: offset) else { return .broken("it does not start with a PNG signature") }
        let tail = tail(from: offset + ImageInfo.pngSignature.count)
        switch (tail.reachesEnd, tail.sawImageData) {
        case (true, true): return .complete
        case (true, false): return .broken("the chunk chain reaches IEND without any image data (IDAT)")
        case (false, true): return .unterminated("the chunk chain ends or breaks after the image data, before a valid IEND chunk")
        case (false, false): return .broken("the chunk chain breaks before any image data (IDAT) and never reaches a valid IEND chunk")
        }
    }

    /// Where the chain from the chunk at `start` leads.
    private mutating func tail(from start: Int) -> Tail {
        var offset = start
        var sawImageData = false
        var tail = Tail(reachesEnd: false, sawImageData: false)
        path.removeAll(keepingCapacity: true)
        while true {
            if remembers, let known = tails[offset] {
                tail = known
                break
            }
            chunksRead += 1
            // Length (4) + type (4) + data + CRC (4); PNG limits a chunk's length to 2^31 - 1.
            guard let length = bytes.u32be(offset), let type = bytes.u32be(offset + 4),
                  length <= 0x7FFF_FFFF, Self.isChunkType(type),
                  let chunkEnd = HeaderBytes.end(of: offset, length: Int(length) + 12)
            else { break }
            if type == HeaderBytes.fourCC("IEND") {
                tail.reachesEnd = chunkEnd <= bytes.count
                break
            }
            let isImageData = type == HeaderBytes.fourCC("IDAT")
            if remembers {
                path.append((offset, isImageData))
            } else {
                sawImageData = sawImageData || isImageData
            }
            offset = chunkEnd
        }
        guard remembers else { return Tail(reachesEnd: tail.reachesEnd, sawImageData: sawImageData) }
        for step in path.reversed() {
            tail.sawImageData = tail.sawImageData || step.isImageData
            tails[step.offset] = tail
        }
        return tail
    }

    /// Chunk types are four ASCII letters.
    private static func isChunkType(_ type: UInt32) -> Bool {
        (0..<4).allSatisfy { shift in
            let byte = UInt8(truncatingIfNeeded: type >> (shift * 8))
            return (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
    }
}
