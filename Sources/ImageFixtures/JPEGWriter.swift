import Foundation

/// Builds baseline JPEG files (SOF0, 8-bit YCbCr, no subsampling) with the example Huffman
/// tables of ITU-T T.81 Annex K and an all-ones quantisation table.
///
/// The writer takes DCT coefficients directly rather than pixels: each 8x8 block gets a DC value
/// (its flat colour) and optionally a few low AC coefficients (texture), so no forward DCT is
/// needed and the output still decodes to the intended picture in any decoder.
struct JPEGWriter {
    /// T.81 Table K.3: number of luminance DC codes of each length 1...16, and their symbols.
    static let dcCounts: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    static let dcSymbols: [UInt8] = Array(0...11)

    /// T.81 Table K.5: luminance AC code counts and symbols (run << 4 | size; 0x00 EOB, 0xF0 ZRL).
    static let acCounts: [UInt8] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
    static let acSymbols: [UInt8] = [
        0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51,
        0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1,
        0x15, 0x52, 0xD1, 0xF0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17, 0x18,
        0x19, 0x1A, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39,
        0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57,
        0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x73, 0x74, 0x75,
        0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x92,
        0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
        0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
        0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8,
        0xD9, 0xDA, 0xE1, 0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2,
        0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA,
    ]

    /// A canonical Huffman code: `codes[symbol]` is (bits, length), length 0 when absent.
    struct HuffmanTable {
        var codes = [(bits: UInt32, length: Int)](repeating: (0, 0), count: 256)

        /// Assigns canonical codes as T.81 Annex C does: increasing values within each length,
        /// shifting left when moving to the next length.
        init(counts: [UInt8], symbols: [UInt8]) {
            precondition(counts.reduce(0) { $0 + Int($1) } == symbols.count, "table size mismatch")
            var code: UInt32 = 0
            var next = 0
            for (lengthIndex, count) in counts.enumerated() {
                for _ in 0..<Int(count) {
                    codes[Int(symbols[next])] = (code, lengthIndex + 1)
                    code += 1
                    next += 1
                }
                code <<= 1
            }
        }
    }

    /// Collects entropy-coded bits most-significant first, stuffing a zero byte after each 0xFF.
    struct BitWriter {
        var bytes: [UInt8] = []
        private var accumulator: UInt32 = 0
        private var pending = 0

        /// Appends the low `count` bits of `bits` (at most 24), whole bytes at a time.
        mutating func write(_ bits: UInt32, count: Int) {
            guard count > 0 else { return }
            precondition(count <= 24, "at most 24 bits at once")
            accumulator = accumulator << UInt32(count) | (bits & ((1 << UInt32(count)) - 1))
            pending += count
            while pending >= 8 {
                pending -= 8
                emit(UInt8(truncatingIfNeeded: accumulator >> UInt32(pending)))
            }
            accumulator &= (1 << UInt32(pending)) - 1
        }

        /// Pads the last byte with one bits, as T.81 requires.
        mutating func flush() {
            if pending > 0 {
                write((1 << UInt32(8 - pending)) - 1, count: 8 - pending)
            }
        }

        private mutating func emit(_ byte: UInt8) {
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0x00) }
        }
    }

    /// One 8x8 block's quantised coefficients in zig-zag order: DC then up to 63 AC values.
    typealias Block = (dc: Int, ac: [Int])

    let dcTable = HuffmanTable(counts: JPEGWriter.dcCounts, symbols: JPEGWriter.dcSymbols)
    let acTable = HuffmanTable(counts: JPEGWriter.acCounts, symbols: JPEGWriter.acSymbols)

    /// The number of bits needed for `value`'s magnitude (T.81's SSSS category).
    static func category(_ value: Int) -> Int {
        var magnitude = abs(value)
        var bits = 0
        while magnitude > 0 {
            bits += 1
            magnitude >>= 1
        }
        return bits
    }

    /// `value` in `size` bits: as is when positive, `value - 1` in two's complement when negative.
    static func amplitudeBits(_ value: Int, size: Int) -> UInt32 {
        let adjusted = value >= 0 ? value : value + (1 << size) - 1
        return UInt32(truncatingIfNeeded: adjusted) & ((1 << UInt32(size)) - 1)
    }

    /// Writes a whole file. `blockAt(column, row, component)` supplies each block; component 0 is
    /// Y, 1 Cb, 2 Cr. DC values are level-shifted DCT outputs (-1024...1016 with the all-ones
    /// table); AC values must stay within -1023...1023 and all be non-zero.
    func file(width: Int, height: Int, blockAt: (Int, Int, Int) -> Block) -> Data {
        var data = Data([0xFF, 0xD8])
        // APP0 JFIF 1.01, no density units, 1:1, no thumbnail.
        data.append(contentsOf: [0xFF, 0xE0, 0x00, 0x10])
        data.append(contentsOf: Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00])
        // DQT: table 0, 8-bit precision, all ones.
        data.append(contentsOf: [0xFF, 0xDB, 0x00, 0x43, 0x00])
        data.append(contentsOf: [UInt8](repeating: 1, count: 64))
        // SOF0: 8-bit, height, width, three components with 1x1 sampling, all using table 0.
        data.append(contentsOf: [0xFF, 0xC0, 0x00, 0x11, 0x08])
        data.append(contentsOf: [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
        data.append(contentsOf: [0x03, 0x01, 0x11, 0x00, 0x02, 0x11, 0x00, 0x03, 0x11, 0x00])
        // DHT: DC table 0 and AC table 0.
        let dhtLength = 2 + 17 + Self.dcSymbols.count + 17 + Self.acSymbols.count
        data.append(contentsOf: [0xFF, 0xC4, UInt8(dhtLength >> 8), UInt8(dhtLength & 0xFF)])
        data.append(0x00)
        data.append(contentsOf: Self.dcCounts + Self.dcSymbols)
        data.append(0x10)
        data.append(contentsOf: Self.acCounts + Self.acSymbols)
        // SOS: three components, all on DC/AC table 0, spectral selection 0...63.
        data.append(contentsOf: [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, 0x3F, 0x00])

        var writer = BitWriter()
        writer.bytes.reserveCapacity(width * height / 16)
        var predictors = [0, 0, 0]
        let columns = (width + 7) / 8
        let rows = (height + 7) / 8
        for row in 0..<rows {
            for column in 0..<columns {
                for component in 0..<3 {
                    let block = blockAt(column, row, component)
                    encode(block, predictor: &predictors[component], into: &writer)
                }
            }
        }
        writer.flush()
        data.append(contentsOf: writer.bytes)
        data.append(contentsOf: [0xFF, 0xD9])
        return data
    }

    private func encode(_ block: Block, predictor: inout Int, into writer: inout BitWriter) {
        let difference = block.dc - predictor
        predictor = block.dc
        let dcSize = Self.category(difference)
        let dcCode = dcTable.codes[dcSize]
        writer.write(dcCode.bits, count: dcCode.length)
        writer.write(Self.amplitudeBits(difference, size: dcSize), count: dcSize)

        for value in block.ac.prefix(63) {
            // Every AC value is non-zero and consecutive, so each has run length 0.
            let size = Self.category(value)
            let code = acTable.codes[size]
            writer.write(code.bits, count: code.length)
            writer.write(Self.amplitudeBits(value, size: size), count: size)
        }
        if block.ac.count < 63 {
            let eob = acTable.codes[0x00]
            writer.write(eob.bits, count: eob.length)
        }
    }
}
