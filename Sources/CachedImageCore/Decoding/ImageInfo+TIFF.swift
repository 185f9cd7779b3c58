/// TIFF (`II*\0`, `MM\0*`) and BigTIFF (`II+\0`, `MM\0+`): the first image file directory
/// (IFD) gives the size, and the strips or tiles it points at are the image data.
///
/// Every offset and count here comes from the file. An offset is used only once it is known to
/// lie within the bytes present (so adding a field's width to it cannot overflow), and a value
/// array is read only when all of it is present: the work is bounded by the body's length,
/// whatever the directory declares.
extension ImageInfo {
    /// Reads a TIFF or BigTIFF header and its first directory's entries.
    struct TIFFReader {
        let bytes: HeaderBytes
        let littleEndian: Bool
        /// BigTIFF: 64-bit offsets and counts, 20-byte entries.
        let isBig: Bool

        /// What a directory says about one tag.
        enum TagValues: Equatable {
            /// No entry of the directory (as far as it has arrived) has the tag.
            case absent
            /// The entry is there, but the values it points at have not all arrived (or point
            /// nowhere a file could reach).
            case notArrived
            /// The entry's type is not SHORT, LONG or LONG8.
            case unsupported
            case values([Int])
        }

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
            guard bytes.contains(offset, length: 8), let first = u32(offset), let second = u32(offset + 4) else { return nil }
            return littleEndian ? UInt64(second) << 32 | UInt64(first) : UInt64(first) << 32 | UInt64(second)
        }

        /// An offset or count field: 32 bits in TIFF, 64 in BigTIFF (`Int.max` when it does not fit).
        func word(_ offset: Int) -> Int? { isBig ? u64(offset).map { Int(exactly: $0) ?? .max } : u32(offset).map(Int.init) }

        /// The first directory's offset.
        var firstDirectory: Int? { word(isBig ? 8 : 4) }
        var entrySize: Int { isBig ? 20 : 12 }
        var countSize: Int { isBig ? 8 : 2 }

        /// The directory's entry count, when its count field has arrived.
        func entryCount(at directory: Int) -> Int? {
            guard bytes.contains(directory, length: countSize) else { return nil }
            return isBig ? word(directory) : u16(directory).map(Int.init)
        }

        /// Where the directory (count, entries and next-directory offset) ends; `nil` when that
        /// is past any offset.
        func directoryEnd(at directory: Int, count: Int) -> Int? {
            let (entries, overflow) = count.multipliedReportingOverflow(by: entrySize)
            guard !overflow, let length = HeaderBytes.end(of: entries, length: countSize + (isBig ? 8 : 4)) else { return nil }
            return HeaderBytes.end(of: directory, length: length)
        }

        /// The values of `tag` in the directory at `directory` (which holds `count` entries):
        /// SHORT, LONG or LONG8, inline or at the offset the entry gives. With `first`, only
        /// the first value is read.
        func values(of tag: UInt16, directory: Int, count: Int, first: Bool = false) -> TagValues {
            guard bytes.contains(directory, length: countSize) else { return .absent }
            // Entries are sorted by tag, and a directory has far fewer than 2^16 of them; the
            // walk stops at the first entry that has not arrived.
            for index in 0..<min(count, 1 << 16) {
                let entry = directory + countSize + index * entrySize
                guard let entryTag = u16(entry) else { return .absent }
                guard entryTag == tag else { continue }
                guard let type = u16(entry + 2), let valueCount = word(entry + 4) else { return .notArrived }
                let width: Int
                switch type {
                case 3: width = 2
                case 4: width = 4
                case 16: width = 8
                default: return .unsupported
                }
                let wanted = first ? min(valueCount, 1) : valueCount
                let (needed, overflow) = valueCount.multipliedReportingOverflow(by: width)
                let fieldOffset = entry + (isBig ? 12 : 8)
                let start = !overflow && needed <= (isBig ? 8 : 4) ? fieldOffset : word(fieldOffset)
                let (length, lengthOverflow) = wanted.multipliedReportingOverflow(by: width)
                guard let start, !lengthOverflow, bytes.contains(start, length: length) else { return .notArrived }
                var result: [Int] = []
                result.reserveCapacity(wanted)
                for position in 0..<wanted {
                    let at = start + position * width
                    let value: Int? = switch width {
                    case 2: u16(at).map(Int.init)
                    case 4: u32(at).map(Int.init)
                    default: u64(at).map { Int(exactly: $0) ?? .max }
                    }
                    guard let value else { return .notArrived }
                    result.append(value)
                }
                return .values(result)
            }
            return .absent
        }
    }

    /// The size in the first directory: `ImageWidth` (256) and `ImageLength` (257).
    static func sniffTIFF(_ bytes: HeaderBytes) -> ImageInfo? {
        guard let reader = TIFFReader(bytes) else { return nil }
        guard let directory = reader.firstDirectory, directory >= 8, let count = reader.entryCount(at: directory) else {
            return ImageInfo(format: .tiff, pixelSize: nil)
        }
        func first(_ tag: UInt16) -> Int? {
            guard case .values(let values) = reader.values(of: tag, directory: directory, count: count, first: true) else { return nil }
            return values.first
        }
        return ImageInfo(format: .tiff, pixelSize: size(first(256), first(257)))
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
        // StripOffsets / StripByteCounts, then TileOffsets / TileByteCounts.
        let pairs: [(offsets: UInt16, lengths: UInt16, name: String)] = [(273, 279, "strip"), (324, 325, "tile")]
        for pair in pairs {
            let offsets: [Int]
            switch reader.values(of: pair.offsets, directory: directory, count: count) {
            case .absent, .unsupported: continue
            case .notArrived: return .unterminated("the \(pair.name) offsets do not arrive in the body's \(bytes.count) bytes")
            case .values(let values): offsets = values
            }
            guard case .values(let lengths) = reader.values(of: pair.lengths, directory: directory, count: count) else {
                return .unterminated("the \(pair.name) byte counts do not arrive")
            }
            var dataEnd = 0
            for (offset, length) in zip(offsets, lengths) {
                dataEnd = max(dataEnd, HeaderBytes.end(of: offset, length: length) ?? .max)
            }
            return dataEnd <= bytes.count
                ? .complete
                : .unterminated("the image data runs to offset \(dataEnd), past the body's \(bytes.count) bytes")
        }
        return .complete
    }
}
