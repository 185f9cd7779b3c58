/// TIFF (`II*\0`, `MM\0*`) and BigTIFF (`II+\0`, `MM\0+`): the first image file directory
/// (IFD) gives the size, and the strips or tiles it points at are the image data.
extension ImageInfo {
    /// Reads a TIFF or BigTIFF header and its first directory's entries.
    struct TIFFReader {
        let bytes: HeaderBytes
        let littleEndian: Bool
        /// BigTIFF: 64-bit offsets and counts, 20-byte entries.
        let isBig: Bool

        init?(_ bytes: HeaderBytes) {
            self.bytes = bytes
            if bytes.matches([0x49, 0x49, 0x2A, 0x00], at: 0) {
                (littleEndian, isBig) = (true, false)
            } else if bytes.matches([0x4D, 0x4D, 0x00, 0x2A], at: 0) {
                (littleEndian, isBig) = (false, false)
            } else if bytes.matches([0x49, 0x49, 0x2B, 0x00, 0x08, 0x00, 0x00, 0x00], at: 0) {
                (littleEndian, isBig) = (true, true)
            } else if bytes.matches([0x4D, 0x4D, 0x00, 0x2B, 0x00, 0x08, 0x00, 0x00], at: 0) {
                (littleEndian, isBig) = (false, true)
            } else {
                return nil
            }
        }

        func u16(_ offset: Int) -> UInt16? { littleEndian ? bytes.u16le(offset) : bytes.u16be(offset) }
        func u32(_ offset: Int) -> UInt32? { littleEndian ? bytes.u32le(offset) : bytes.u32be(offset) }
        func u64(_ offset: Int) -> UInt64? {
            guard let first = u32(offset), let second = u32(offset + 4) else { return nil }
            return littleEndian ? UInt64(second) << 32 | UInt64(first) : UInt64(first) << 32 | UInt64(second)
        }

        /// An offset or count field: 32 bits in TIFF, 64 in BigTIFF.
        func word(_ offset: Int) -> Int? { isBig ? u64(offset).flatMap { Int(exactly: $0) } : u32(offset).map(Int.init) }

        /// The first directory's offset.
        var firstDirectory: Int? { word(isBig ? 8 : 4) }
        var entrySize: Int { isBig ? 20 : 12 }
        var countSize: Int { isBig ? 8 : 2 }

        /// The directory's entry count, when its count field has arrived.
        func entryCount(at directory: Int) -> Int? { isBig ? word(directory) : u16(directory).map(Int.init) }

        /// Where the directory (count, entries and next-directory offset) ends.
        func directoryEnd(at directory: Int, count: Int) -> Int? {
            let (entries, overflow) = count.multipliedReportingOverflow(by: entrySize)
            guard !overflow else { return nil }
            return HeaderBytes.end(of: directory, length: countSize + entries + (isBig ? 8 : 4))
        }

        /// The values of `tag` in the directory: SHORT, LONG or LONG8, inline or at the offset
        /// the entry gives; at most `limit` of them. `nil` when the tag is absent or its values
        /// have not arrived.
        func values(of tag: UInt16, directory: Int, count: Int, limit: Int = 1 << 20) -> [Int]? {
            for index in 0..<min(count, 1 << 16) {
                let entry = directory + countSize + index * entrySize
                guard let entryTag = u16(entry) else { return nil }
                guard entryTag == tag, let type = u16(entry + 2), let valueCount = word(entry + 4) else { continue }
                let width: Int
                switch type {
                case 3: width = 2
                case 4: width = 4
                case 16: width = 8
                default: return nil
                }
                let total = min(valueCount, limit)
                let inlineSpace = isBig ? 8 : 4
                let fieldOffset = entry + (isBig ? 12 : 8)
                let (needed, overflow) = valueCount.multipliedReportingOverflow(by: width)
                let start = !overflow && needed <= inlineSpace ? fieldOffset : word(fieldOffset)
                guard let start else { return nil }
                var result: [Int] = []
                result.reserveCapacity(total)
                for position in 0..<total {
                    let at = start + position * width
                    let value: Int? = switch width {
                    case 2: u16(at).map(Int.init)
                    case 4: u32(at).map(Int.init)
                    default: u64(at).flatMap { Int(exactly: $0) }
                    }
                    guard let value else { return nil }
                    result.append(value)
                }
                return result
            }
            return nil
        }
    }

    /// The size in the first directory: `ImageWidth` (256) and `ImageLength` (257).
    static func sniffTIFF(_ bytes: HeaderBytes) -> ImageInfo? {
        guard let reader = TIFFReader(bytes) else { return nil }
        guard let directory = reader.firstDirectory, directory >= 8, let count = reader.entryCount(at: directory) else {
            return ImageInfo(format: .tiff, pixelSize: nil)
        }
        let width = reader.values(of: 256, directory: directory, count: count, limit: 1)?.first
        let height = reader.values(of: 257, directory: directory, count: count, limit: 1)?.first
        return ImageInfo(format: .tiff, pixelSize: size(width, height))
    }

    /// Complete when the first directory and every strip (or tile) it points at have arrived.
    static func tiffContainerCheck(_ bytes: HeaderBytes) -> ContainerCheck {
        guard let reader = TIFFReader(bytes), let directory = reader.firstDirectory, directory >= 8 else {
            return .broken("the TIFF header is incomplete or names no image directory")
        }
        guard let count = reader.entryCount(at: directory),
              let end = reader.directoryEnd(at: directory, count: count), end <= bytes.count
        else {
            return .unterminated("the first image directory (at offset \(directory)) does not fully arrive in the body's \(bytes.count) bytes")
        }
        let pairs: [(offsets: UInt16, lengths: UInt16)] = [(273, 279), (324, 325)]
        for pair in pairs {
            guard let offsets = reader.values(of: pair.offsets, directory: directory, count: count) else { continue }
            guard let lengths = reader.values(of: pair.lengths, directory: directory, count: count) else {
                return .unterminated("the image data's byte counts do not arrive")
            }
            let dataEnd = zip(offsets, lengths).map { HeaderBytes.end(of: $0, length: $1) ?? .max }.max() ?? 0
            return dataEnd <= bytes.count
                ? .complete
                : .unterminated("the image data runs to offset \(dataEnd), past the body's \(bytes.count) bytes")
        }
        return .complete
    }
}
