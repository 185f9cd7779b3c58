import Foundation

/// HEIC and AVIF: ISO base media file format (ISO/IEC 14496-12) boxes with HEIF (ISO/IEC 23008-12)
/// item properties.
extension ImageInfo {
    /// One box header: its type, where its content starts and where the box ends (clamped to the
    /// enclosing range, so `contentEnd` may be short of the declared end when data is missing).
    struct Box {
        var type: UInt32
        var contentStart: Int
        var contentEnd: Int
        /// Whether the box declares more bytes than have arrived.
        var isTruncated = false
    }

    /// Calls `body` for each box in `range`, in order, until it returns `false`, a box header is
    /// incomplete or malformed, or `maxBoxes` boxes have been visited.
    static func forEachBox(
        in bytes: HeaderBytes,
        _ range: Range<Int>,
        maxBoxes: Int = 4096,
        _ body: (Box) -> Bool
    ) {
        var offset = range.lowerBound
        var visited = 0
        while offset < range.upperBound, visited < maxBoxes {
            visited += 1
            guard let size32 = bytes.u32be(offset), let type = bytes.u32be(offset + 4) else { return }
            var headerLength = 8
            let declared: Int
            switch size32 {
            case 0:
                declared = range.upperBound - offset // Extends to the end of its container.
            case 1:
                guard let large = bytes.u64be(offset + 8), let value = Int(exactly: large) else { return }
                headerLength = 16
                declared = value
            default:
                guard let value = Int(exactly: size32) else { return }
                declared = value
            }
            guard declared >= headerLength,
                  let boxEnd = HeaderBytes.end(of: offset, length: declared)
            else { return }
            let contentStart = offset + headerLength
            let available = min(range.upperBound, bytes.count)
            let box = Box(type: type, contentStart: contentStart,
                          contentEnd: max(contentStart, min(boxEnd, available)), isTruncated: boxEnd > available)
            guard body(box) else { return }
            offset = boxEnd
        }
    }

    private static let heicBrands: Set<UInt32> = [
        "heic", "heix", "hevc", "heim", "heis", "hevm", "hevs", "hevx",
    ].reduce(into: []) { $0.insert(fourCCValue($1)) }

    private static let avifBrands: Set<UInt32> = [
        "avif", "avis", "avio",
    ].reduce(into: []) { $0.insert(fourCCValue($1)) }

    /// Like `HeaderBytes.fourCC` but for a runtime string (only used to build the sets above).
    private static func fourCCValue(_ text: String) -> UInt32 {
        text.utf8.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The format a single brand implies, if any.
    static func format(ofBrand brand: UInt32) -> ImageFormat? {
        if avifBrands.contains(brand) { return .avif }
        if heicBrands.contains(brand) { return .heic }
        return nil
    }

    /// Recognises HEIC/AVIF from the leading `ftyp` box and reads the primary image's size.
    ///
    /// The major brand decides first, then compatible brands in order. The generic HEIF brands
    /// `mif1` (still image) and `msf1` (image sequence) say nothing about the codec, so a file
    /// carrying only those (plus e.g. `miaf`) is classified by its `hvcC` (HEIC) or `av1C` (AVIF)
    /// item property; without one it is not recognised (it may hold JPEG or another codec).
    static func sniffISOBMFF(_ bytes: HeaderBytes) -> ImageInfo? {
        guard bytes.u32be(4) == HeaderBytes.fourCC("ftyp"),
              let ftypSize = bytes.u32be(0), ftypSize >= 16, // Size, type, major, minor version.
              let major = bytes.u32be(8)
        else { return nil }

        var format = Self.format(ofBrand: major)
        var offset = 16 // After size, type, major brand and minor version.
        let brandsEnd = min(Int(clamping: ftypSize), bytes.count)
        while format == nil, offset + 4 <= brandsEnd, let brand = bytes.u32be(offset) {
            format = Self.format(ofBrand: brand)
            offset += 4
        }

        let properties = primaryItemProperties(bytes)
        if format == nil {
            format = properties.codecFormat
        }
        guard let format else { return nil }
        guard let coded = properties.size, let displayed = properties.displayedSize, displayed != coded else {
            return ImageInfo(format: format, pixelSize: properties.size)
        }
        return ImageInfo(format: format, pixelSize: displayed, extent: .coded(coded))
    }

    /// What the `meta` box says about the primary item.
    struct HEIFProperties {
        /// The coded size (`ispe`).
        var size: PixelSize?
        /// The size after the primary item's clean aperture and rotation, when it has them.
        var displayedSize: PixelSize?
        var codecFormat: ImageFormat?
    }

    /// What `meta`'s `pitm` and `iprp` boxes hold, gathered in one pass over its children.
    private struct ItemPropertyTable {
        /// The primary item's ID (the last `pitm`).
        var primaryItem: UInt32?
        /// Property types in `ipco` order (index 0 = property 1), over every `ipco`.
        var properties: [UInt32] = []
        /// `ispe` values by zero-based property index.
        var sizes: [Int: PixelSize] = [:]
        /// `clap` and `irot` values by zero-based property index.
        var transforms: [Int: HEIFTransform] = [:]
        /// The first `ipma` box: which properties each item has.
        var associations: Box?
    }

    /// The first box of `type` in `range`, or `nil`.
    static func firstBox(_ type: UInt32, in bytes: HeaderBytes, _ range: Range<Int>) -> Box? {
        var found: Box?
        forEachBox(in: bytes, range) { box in
            if box.type == type { found = box }
            return found == nil
        }
        return found
    }

    /// Where the children of a full box start and end: its version and flags come first.
    static func childRange(ofFullBox box: Box) -> Range<Int> {
        (box.contentStart + 4)..<max(box.contentStart + 4, box.contentEnd)
    }

    /// Finds the top-level `meta` box and reads `pitm`, `iprp/ipco` and `iprp/ipma`.
    ///
    /// The size is the `ispe` associated with the primary item; when the primary item or its
    /// associations are missing, the `ispe` with the most pixels is used instead, but only once
    /// the whole `meta` box has arrived: in a prefix, the largest `ispe` so far may be a
    /// thumbnail's, and a download's early pixel check would let a huge primary image through.
    static func primaryItemProperties(_ bytes: HeaderBytes) -> HEIFProperties {
        guard let meta = firstBox(HeaderBytes.fourCC("meta"), in: bytes, 0..<bytes.count) else {
            return HEIFProperties()
        }
        var table = ItemPropertyTable()
        forEachBox(in: bytes, childRange(ofFullBox: meta)) { child in
            switch child.type {
            case HeaderBytes.fourCC("pitm"): table.primaryItem = primaryItemID(in: child, bytes)
            case HeaderBytes.fourCC("iprp"): readItemProperties(child, bytes, into: &table)
            default: break
            }
            return true
        }
        return primaryItemProperties(of: table, bytes, fallingBackToLargest: !meta.isTruncated)
    }

    /// The item ID a `pitm` box names (16 bits in version 0, 32 bits after).
    private static func primaryItemID(in pitm: Box, _ bytes: HeaderBytes) -> UInt32? {
        let version = bytes.u8(pitm.contentStart)
        return version == 0
            ? bytes.u16be(pitm.contentStart + 4).map(UInt32.init)
            : bytes.u32be(pitm.contentStart + 4)
    }

    /// Reads an `iprp` box: the properties of every `ipco`, and the first `ipma`.
    private static func readItemProperties(_ iprp: Box, _ bytes: HeaderBytes, into table: inout ItemPropertyTable) {
        forEachBox(in: bytes, iprp.contentStart..<iprp.contentEnd) { group in
            if group.type == HeaderBytes.fourCC("ipco") {
                readPropertyContainer(group, bytes, into: &table)
            } else if group.type == HeaderBytes.fourCC("ipma"), table.associations == nil {
                table.associations = group
            }
            return true
        }
    }

    /// Appends the properties of an `ipco` box, in order, noting the size of every `ispe`.
    private static func readPropertyContainer(_ ipco: Box, _ bytes: HeaderBytes, into table: inout ItemPropertyTable) {
        forEachBox(in: bytes, ipco.contentStart..<ipco.contentEnd) { property in
            if property.type == HeaderBytes.fourCC("ispe"),
               let size = size(bytes.u32be(property.contentStart + 4), bytes.u32be(property.contentStart + 8)) {
                table.sizes[table.properties.count] = size
            } else if let transform = HEIFTransform(property, bytes) {
                table.transforms[table.properties.count] = transform
            }
            table.properties.append(property.type)
            return true
        }
    }

    /// The size and codec of the primary item; where the table says nothing about it, the
    /// largest `ispe` and the first codec property of the file.
    private static func primaryItemProperties(
        of table: ItemPropertyTable,
        _ bytes: HeaderBytes,
        fallingBackToLargest: Bool
    ) -> HEIFProperties {
        var result = HEIFProperties()
        if let primaryItem = table.primaryItem, let associations = table.associations,
           let primaryIndices = propertyIndices(of: primaryItem, in: associations, bytes) {
            result.size = primaryIndices.lazy.compactMap { table.sizes[$0] }.first
            if let coded = result.size {
                // Transformative properties apply in association order (ISO/IEC 23008-12 6.5.1).
                let displayed = primaryIndices.compactMap { table.transforms[$0] }.reduce(coded) { $1.apply(to: $0) }
                result.displayedSize = displayed
            }
            result.codecFormat = primaryIndices.lazy
                .compactMap { $0 < table.properties.count ? codecFormat(ofProperty: table.properties[$0]) : nil }
                .first
        }
        if result.size == nil, fallingBackToLargest {
            result.size = table.sizes.values.max { $0.pixelCount < $1.pixelCount }
        }
        if result.codecFormat == nil {
            result.codecFormat = table.properties.lazy.compactMap(codecFormat(ofProperty:)).first
        }
        return result
    }

    private static func codecFormat(ofProperty type: UInt32) -> ImageFormat? {
        switch type {
        case HeaderBytes.fourCC("hvcC"): .heic
        case HeaderBytes.fourCC("av1C"): .avif
        default: nil
        }
    }

    /// Zero-based `ipco` indices associated with `item` by an `ipma` box, or `nil` when the item
    /// has no complete entry.
    private static func propertyIndices(of item: UInt32, in ipma: Box, _ bytes: HeaderBytes) -> [Int]? {
        guard let version = bytes.u8(ipma.contentStart),
              let flagsLowByte = bytes.u8(ipma.contentStart + 3), // Flags are 24-bit big-endian.
              let entryCount = bytes.u32be(ipma.contentStart + 4)
        else { return nil }
        let wideIDs = version >= 1
        let wideIndices = flagsLowByte & 0x01 != 0
        var offset = ipma.contentStart + 8
        var remaining = entryCount
        while remaining > 0, offset < ipma.contentEnd {
            remaining -= 1
            let itemID: UInt32?
            if wideIDs {
                itemID = bytes.u32be(offset)
                offset += 4
            } else {
                itemID = bytes.u16be(offset).map(UInt32.init)
                offset += 2
            }
            guard let itemID, let count = bytes.u8(offset) else { return nil }
            offset += 1
            let entryLength = Int(count) * (wideIndices ? 2 : 1)
            guard itemID == item else {
                offset += entryLength
                continue
            }
            guard offset + entryLength <= ipma.contentEnd else { return nil }
            var indices: [Int] = []
            for position in 0..<Int(count) {
                let index: Int?
                if wideIndices {
                    index = bytes.u16be(offset + position * 2).map { Int($0 & 0x7FFF) }
                } else {
                    index = bytes.u8(offset + position).map { Int($0 & 0x7F) }
                }
                // Index 0 means "no property"; others are 1-based into ipco.
                if let index, index > 0 { indices.append(index - 1) }
            }
            return indices
        }
        return nil
    }
}
