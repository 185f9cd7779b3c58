import Foundation

/// Walks GIF blocks, PNG chunks and RIFF chunks to collect frame delays and loop counts. Every
/// read is bounds-checked; a container that ends early or lies about a length gives `nil`.
enum AnimatedImageParser {
    // MARK: GIF

    static func gif(_ data: Data) -> AnimatedImageInfo? {
        var reader = ByteReader(data)
        guard reader.skip(6), let packed = reader.byte(at: 10) else { return nil }
        // Logical screen descriptor, then the global colour table if present.
        guard reader.skip(7) else { return nil }
        if packed & 0x80 != 0, !reader.skip(3 << (Int(packed & 0x07) + 1)) { return nil }

        var delays: [TimeInterval] = []
        var pendingDelay: TimeInterval = 0
        var loopCount = 1
        while let introducer = reader.readByte() {
            switch introducer {
            case 0x21: // Extension.
                guard let label = reader.readByte() else { return nil }
                if label == 0xF9 {
                    // Graphic control: size 4, packed, delay (centiseconds, little-endian), index.
                    guard let size = reader.readByte(), size >= 4, let block = reader.read(Int(size)) else { return nil }
                    pendingDelay = Double(Int(block[1]) | Int(block[2]) << 8) / 100
                    guard skipSubBlocks(&reader) else { return nil }
                } else if label == 0xFF {
                    guard let size = reader.readByte(), let identifier = reader.read(Int(size)) else { return nil }
                    let isLoopExtension = size == 11 && (Array(identifier.prefix(8)) == Array("NETSCAPE".utf8) || Array(identifier.prefix(8)) == Array("ANIMEXTS".utf8))
                    // Sub-blocks: for the loop extension, [3, 1, count lo, count hi].
                    while let length = reader.readByte(), length > 0 {
                        guard let block = reader.read(Int(length)) else { return nil }
                        if isLoopExtension, length >= 3, block[0] == 1 {
                            loopCount = Int(block[1]) | Int(block[2]) << 8
                        }
                    }
                } else if !skipSubBlocks(&reader) {
                    return nil
                }
            case 0x2C: // Image descriptor: position, size, packed; local table; LZW data.
                guard let descriptor = reader.read(9) else { return nil }
                let localPacked = descriptor[8]
                if localPacked & 0x80 != 0, !reader.skip(3 << (Int(localPacked & 0x07) + 1)) { return nil }
                guard reader.skip(1), skipSubBlocks(&reader) else { return nil }
                delays.append(AnimatedImageInfo.displayedDelay(pendingDelay))
                pendingDelay = 0
            case 0x3B: // Trailer.
                return AnimatedImageInfo(format: .gif, frameDelays: delays, loopCount: loopCount)
            default:
                return nil
            }
        }
        return nil
    }

    private static func skipSubBlocks(_ reader: inout ByteReader) -> Bool {
        while true {
            guard let length = reader.readByte() else { return false }
            if length == 0 { return true }
            guard reader.skip(Int(length)) else { return false }
        }
    }

    // MARK: APNG

    static func apng(_ data: Data) -> AnimatedImageInfo? {
        var reader = ByteReader(data)
        guard reader.skip(8) else { return nil }
        var declaredFrames: Int?
        var plays = 0
        var delays: [TimeInterval] = []
        while let length = reader.readUInt32BigEndian(), let type = reader.read(4) {
            // `Int(exactly:)`: a length of 2^31 or more does not fit a 32-bit `Int` (watchOS).
            guard let count = Int(exactly: length), let payload = reader.read(count), reader.skip(4) else { return nil } // CRC.
            switch String(decoding: type, as: UTF8.self) {
            case "acTL":
                guard payload.count >= 8 else { return nil }
                declaredFrames = Int(clamping: bigEndian32(payload, 0))
                plays = Int(clamping: bigEndian32(payload, 4))
            case "fcTL":
                guard declaredFrames != nil, payload.count >= 26 else { return nil }
                let numerator = Double(Int(payload[20]) << 8 | Int(payload[21]))
                var denominator = Double(Int(payload[22]) << 8 | Int(payload[23]))
                if denominator == 0 { denominator = 100 } // The APNG specification's rule.
                delays.append(AnimatedImageInfo.displayedDelay(numerator / denominator))
            case "IDAT" where declaredFrames == nil:
                // acTL must come before the image data: this is a still PNG.
                return nil
            case "IEND":
                guard let declaredFrames, declaredFrames == delays.count else { return nil }
                return AnimatedImageInfo(format: .png, frameDelays: delays, loopCount: plays)
            default:
                break
            }
        }
        return nil
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    // MARK: WebP

    static func webp(_ data: Data) -> AnimatedImageInfo? {
        var reader = ByteReader(data)
        guard reader.skip(12) else { return nil } // "RIFF", size, "WEBP".
        var isAnimated = false
        var loopCount = 0
        var delays: [TimeInterval] = []
        while let type = reader.read(4), let length = reader.readUInt32LittleEndian() {
            // Checked: a length near 2^32 overflows a 32-bit `Int` (watchOS), padded or not.
            guard let size = Int(exactly: length) else { return nil }
            let (padded, overflow) = size.addingReportingOverflow(Int(length & 1))
            guard !overflow else { return nil }
            switch String(decoding: type, as: UTF8.self) {
            case "VP8X":
                guard let payload = reader.read(size), payload.count >= 1, reader.skip(padded - size) else { return nil }
                isAnimated = payload[0] & 0x02 != 0
            case "ANIM":
                guard let payload = reader.read(size), payload.count >= 6, reader.skip(padded - size) else { return nil }
                loopCount = Int(payload[4]) | Int(payload[5]) << 8
            case "ANMF":
                // Frame header: offsets, size, duration (24-bit little-endian ms), flags; then
                // the frame's own chunks, skipped with the rest of the payload.
                guard length >= 16, let header = reader.read(16), reader.skip(padded - 16) else { return nil }
                let milliseconds = Int(header[12]) | Int(header[13]) << 8 | Int(header[14]) << 16
                delays.append(AnimatedImageInfo.displayedDelay(Double(milliseconds) / 1000))
            default:
                guard reader.skip(padded) else { return nil }
            }
        }
        guard isAnimated, reader.isAtEnd else { return nil }
        return AnimatedImageInfo(format: .webp, frameDelays: delays, loopCount: loopCount)
    }
}

/// A bounds-checked cursor over bytes.
private struct ByteReader {
    private let bytes: Data
    private var offset: Int

    init(_ data: Data) {
        bytes = data
        offset = data.startIndex
    }

    var isAtEnd: Bool { offset >= bytes.endIndex }

    func byte(at position: Int) -> UInt8? {
        let index = bytes.startIndex + position
        return index < bytes.endIndex ? bytes[index] : nil
    }

    mutating func readByte() -> UInt8? {
        guard offset < bytes.endIndex else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func read(_ count: Int) -> [UInt8]? {
        guard count >= 0, bytes.endIndex - offset >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, bytes.endIndex - offset >= count else { return false }
        offset += count
        return true
    }

    mutating func readUInt32BigEndian() -> UInt32? {
        guard let b = read(4) else { return nil }
        return UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
    }

    mutating func readUInt32LittleEndian() -> UInt32? {
        guard let b = read(4) else { return nil }
        return UInt32(b[3]) << 24 | UInt32(b[2]) << 16 | UInt32(b[1]) << 8 | UInt32(b[0])
    }
}
