/// HEIC and AVIF completeness: where the `iloc` box (ISO/IEC 14496-12 8.11.3) places the items'
/// data, so a file cut at a box boundary is not taken for a whole one.
extension ImageInfo {
    /// The end offset of the furthest item data that `meta`'s `iloc` box places in the file
    /// itself (construction method 0, data reference 0), or `nil` when there is no readable iloc.
    ///
    /// An extent length of 0 means "to the end of the file" and adds no requirement.
    static func itemDataEnd(in meta: Box, _ bytes: HeaderBytes) -> Int? {
        guard let iloc = firstBox(HeaderBytes.fourCC("iloc"), in: bytes, childRange(ofFullBox: meta)),
              var reader = ItemLocationReader(iloc, bytes),
              let itemCount = reader.field(reader.itemIDSize)
        else { return nil }
        var furthest = 0
        for _ in 0..<itemCount {
            switch reader.nextItemDataEnd() {
            case nil: return nil
            case .beyondAnyOffset: return Int.max
            case .at(let end): furthest = max(furthest, end)
            }
            guard reader.offset <= iloc.contentEnd else { return nil }
        }
        return furthest
    }

    /// Reads the item entries of an `iloc` box (ISO/IEC 14496-12 8.11.3) in order.
    struct ItemLocationReader {
        /// Where an item's data ends in the file.
        enum DataEnd {
            /// At this offset (`Int.max` when it does not fit an `Int`); 0 when the item has no
            /// data in this file.
            case at(Int)
            /// Offset plus length overflows 64 bits.
            case beyondAnyOffset
        }

        let bytes: HeaderBytes
        let version: UInt8
        let offsetSize: Int
        let lengthSize: Int
        let baseOffsetSize: Int
        let indexSize: Int
        /// The next field to read.
        private(set) var offset: Int

        /// The size of an item ID and of the item count.
        var itemIDSize: Int { version < 2 ? 2 : 4 }

        /// A reader at the item count, or `nil` when the header is truncated, of an unknown
        /// version, or declares field sizes other than 0, 4 or 8 bytes.
        init?(_ iloc: Box, _ bytes: HeaderBytes) {
            guard let version = bytes.u8(iloc.contentStart), version <= 2,
                  let sizes1 = bytes.u8(iloc.contentStart + 4), let sizes2 = bytes.u8(iloc.contentStart + 5)
            else { return nil }
            self.bytes = bytes
            self.version = version
            offsetSize = Int(sizes1 >> 4)
            lengthSize = Int(sizes1 & 0x0F)
            baseOffsetSize = Int(sizes2 >> 4)
            indexSize = version >= 1 ? Int(sizes2 & 0x0F) : 0
            let validSizes: Set<Int> = [0, 4, 8]
            guard validSizes.isSuperset(of: [offsetSize, lengthSize, baseOffsetSize, indexSize]) else { return nil }
            offset = iloc.contentStart + 6
        }

        /// Reads a 0-, 2-, 4- or 8-byte big-endian field and moves past it; `nil` if truncated.
        mutating func field(_ size: Int) -> UInt64? {
            defer { offset += size }
            switch size {
            case 0: return 0
            case 2: return bytes.u16be(offset).map(UInt64.init)
            case 4: return bytes.u32be(offset).map(UInt64.init)
            default: return bytes.u64be(offset)
            }
        }

        /// Reads the next item entry and returns where its data in this file ends, or `nil`
        /// when the entry is truncated.
        mutating func nextItemDataEnd() -> DataEnd? {
            guard field(itemIDSize) != nil else { return nil } // item_ID
            var constructionMethod: UInt64 = 0
            if version >= 1 {
                guard let packed = field(2) else { return nil }
                constructionMethod = packed & 0x0F
            }
            guard let dataReference = field(2), let baseOffset = field(baseOffsetSize),
                  let extentCount = field(2)
            else { return nil }
            // Only data in this file (method 0, same file) bounds the file's length.
            let inThisFile = constructionMethod == 0 && dataReference == 0
            // Extents whose fields are all 0 bytes wide take no room in the box: each is offset
            // 0, length 0 ("to the end"). Answered at once, so a tiny box cannot declare 65,535
            // of them per item and keep a thread busy for minutes.
            guard indexSize + offsetSize + lengthSize > 0 else {
                guard inThisFile, extentCount > 0 else { return .at(0) }
                return .at(Int(exactly: baseOffset) ?? Int.max)
            }
            var furthest = 0
            for _ in 0..<extentCount {
                guard field(indexSize) != nil,
                      let extentOffset = field(offsetSize), let extentLength = field(lengthSize)
                else { return nil }
                guard inThisFile else { continue }
                let (start, overflow1) = baseOffset.addingReportingOverflow(extentOffset)
                let (end, overflow2) = start.addingReportingOverflow(extentLength)
                guard !overflow1, !overflow2 else { return .beyondAnyOffset }
                furthest = max(furthest, Int(exactly: end) ?? Int.max)
            }
            return .at(furthest)
        }
    }
}
