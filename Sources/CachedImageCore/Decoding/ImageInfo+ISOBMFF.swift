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
            let box = Box(type: type, contentStart: contentStart,
                          contentEnd: max(contentStart, min(boxEnd, range.upperBound, bytes.count)))
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
    private static func format(ofBrand brand: UInt32) -> ImageFormat? {
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
        return ImageInfo(format: format, pixelSize: properties.size)
    }

    /// What the `meta` box says about the primary item.
    struct HEIFProperties {
        var size: PixelSize?
        var codecFormat: ImageFormat?
    }

    /// Finds the top-level `meta` box and reads `pitm`, `iprp/ipco` and `iprp/ipma`.
    ///
    /// The size is the `ispe` associated with the primary item; when the primary item or its
    /// associations are missing (or truncated), the `ispe` with the most pixels is used instead.
    static func primaryItemProperties(_ bytes: HeaderBytes) -> HEIFProperties {
        var meta: Box?
        forEachBox(in: bytes, 0..<bytes.count) { box in
            if box.type == HeaderBytes.fourCC("meta") { meta = box }
            return meta == nil
        }
        guard let meta else { return HEIFProperties() }

        var primaryItem: UInt32?
        var properties: [UInt32] = []       // Property types in ipco order (index 0 = property 1).
        var sizes: [Int: PixelSize] = [:]    // ispe values by zero-based property index.
        var associations: Box?

        // `meta` is a full box: version and flags come before its children.
        forEachBox(in: bytes, (meta.contentStart + 4)..<max(meta.contentStart + 4, meta.contentEnd)) { child in
            switch child.type {
            case HeaderBytes.fourCC("pitm"):
                let version = bytes.u8(child.contentStart)
                primaryItem = version == 0
                    ? bytes.u16be(child.contentStart + 4).map(UInt32.init)
                    : bytes.u32be(child.contentStart + 4)
            case HeaderBytes.fourCC("iprp"):
                forEachBox(in: bytes, child.contentStart..<child.contentEnd) { group in
                    if group.type == HeaderBytes.fourCC("ipco") {
                        forEachBox(in: bytes, group.contentStart..<group.contentEnd) { property in
                            if property.type == HeaderBytes.fourCC("ispe"),
                               let size = size(bytes.u32be(property.contentStart + 4),
                                               bytes.u32be(property.contentStart + 8)) {
                                sizes[properties.count] = size
                            }
                            properties.append(property.type)
                            return true
                        }
                    } else if group.type == HeaderBytes.fourCC("ipma"), associations == nil {
                        associations = group
                    }
                    return true
                }
            default:
                break
            }
            return true
        }

        var result = HEIFProperties()
        var primaryIndices: [Int]?
        if let primaryItem, let associations {
            primaryIndices = propertyIndices(of: primaryItem, in: associations, bytes)
        }
        if let primaryIndices {
            result.size = primaryIndices.lazy.compactMap { sizes[$0] }.first
            result.codecFormat = primaryIndices.lazy
                .compactMap { $0 < properties.count ? codecFormat(ofProperty: properties[$0]) : nil }
                .first
        }
        if result.size == nil {
            result.size = sizes.values.max { $0.pixelCount < $1.pixelCount }
        }
        if result.codecFormat == nil {
            result.codecFormat = properties.lazy.compactMap(codecFormat(ofProperty:)).first
        }
        return result
    }

    /// The end offset of the furthest item data that `meta`'s `iloc` box places in the file
    /// itself (construction method 0, data reference 0), or `nil` when there is no readable iloc.
    ///
    /// An extent length of 0 means "to the end of the file" and adds no requirement.
    static func itemDataEnd(in meta: Box, _ bytes: HeaderBytes) -> Int? {
        var iloc: Box?
        forEachBox(in: bytes, (meta.contentStart + 4)..<max(meta.contentStart + 4, meta.contentEnd)) { child in
            if child.type == HeaderBytes.fourCC("iloc") { iloc = child }
            return iloc == nil
        }
        guard let iloc,
              let version = bytes.u8(iloc.contentStart), version <= 2,
              let sizes1 = bytes.u8(iloc.contentStart + 4), let sizes2 = bytes.u8(iloc.contentStart + 5)
        else { return nil }
        let offsetSize = Int(sizes1 >> 4), lengthSize = Int(sizes1 & 0x0F)
        let baseOffsetSize = Int(sizes2 >> 4), indexSize = version >= 1 ? Int(sizes2 & 0x0F) : 0
        let validSizes: Set<Int> = [0, 4, 8]
        guard validSizes.isSuperset(of: [offsetSize, lengthSize, baseOffsetSize, indexSize]) else { return nil }

        var offset = iloc.contentStart + 6
        /// Reads a 0-, 2-, 4- or 8-byte big-endian field and moves past it; `nil` if truncated.
        func field(_ size: Int) -> UInt64? {
            defer { offset += size }
            switch size {
            case 0: return 0
            case 2: return bytes.u16be(offset).map(UInt64.init)
            case 4: return bytes.u32be(offset).map(UInt64.init)
            default: return bytes.u64be(offset)
            }
        }
        guard let itemCount = field(version < 2 ? 2 : 4) else { return nil }
        var furthest = 0
        var item: UInt64 = 0
        while item < itemCount {
            item += 1
            guard field(version < 2 ? 2 : 4) != nil else { return nil } // item_ID
            var constructionMethod: UInt64 = 0
            if version >= 1 {
                guard let packed = field(2) else { return nil }
                constructionMethod = packed & 0x0F
            }
            guard let dataReference = field(2), let baseOffset = field(baseOffsetSize),
                  let extentCount = field(2)
            else { return nil }
            for _ in 0..<extentCount {
                guard field(indexSize) != nil,
                      let extentOffset = field(offsetSize), let extentLength = field(lengthSize)
                else { return nil }
                // Only data in this file (method 0, same file) bounds the file's length.
                guard constructionMethod == 0, dataReference == 0 else { continue }
                let (start, overflow1) = baseOffset.addingReportingOverflow(extentOffset)
                let (end, overflow2) = start.addingReportingOverflow(extentLength)
                guard !overflow1, !overflow2 else { return Int.max }
                furthest = max(furthest, Int(exactly: end) ?? Int.max)
            }
            guard offset <= iloc.contentEnd else { return nil }
        }
        return furthest
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
