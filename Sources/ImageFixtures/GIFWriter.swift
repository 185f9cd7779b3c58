import Foundation

/// Builds GIF89a files with a 4-colour global palette and LZW data that never grows past 3-bit
/// codes: a clear code is sent before every pair of pixels, so the decoder's table never fills.
enum GIFWriter {
    static let palette: [UInt8] = [
        0x1E, 0x88, 0xE5, // Blue.
        0xF4, 0xB4, 0x00, // Amber.
        0x43, 0xA0, 0x47, // Green.
        0xFA, 0xFA, 0xFA, // Near white.
    ]

    /// A GIF whose pixel at (x, y) uses palette index `indexAt(x, y)` (0...3).
    static func file(width: Int, height: Int, indexAt: (Int, Int) -> UInt8) -> Data {
        var data = Data("GIF89a".utf8)
        data.append(contentsOf: littleEndian(width) + littleEndian(height))
        // Global colour table present, 8 bits of colour resolution, 4 entries; background 0;
        // no aspect ratio.
        data.append(contentsOf: [0xF1, 0x00, 0x00])
        data.append(contentsOf: palette)
        // Image descriptor covering the screen, no local table, not interlaced.
        data.append(0x2C)
        data.append(contentsOf: littleEndian(0) + littleEndian(0) + littleEndian(width) + littleEndian(height))
        data.append(0x00)

        let minimumCodeSize: UInt8 = 2
        let clearCode: UInt32 = 4
        let endCode: UInt32 = 5
        var bits = LSBBitWriter()
        var pixelsSinceClear = 2
        for y in 0..<height {
            for x in 0..<width {
                if pixelsSinceClear == 2 {
                    bits.write(clearCode, count: 3)
                    pixelsSinceClear = 0
                }
                bits.write(UInt32(indexAt(x, y) & 0x03), count: 3)
                pixelsSinceClear += 1
            }
        }
        bits.write(endCode, count: 3)
        bits.flush()

        data.append(minimumCodeSize)
        var offset = 0
        while offset < bits.bytes.count {
            let end = min(offset + 255, bits.bytes.count)
            data.append(UInt8(end - offset))
            data.append(contentsOf: bits.bytes[offset..<end])
            offset = end
        }
        data.append(0x00) // Block terminator.
        data.append(0x3B) // Trailer.
        return data
    }

    private static func littleEndian(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
    }

    /// Packs codes least-significant bit first, as GIF's LZW data requires.
    private struct LSBBitWriter {
        var bytes: [UInt8] = []
        private var accumulator: UInt32 = 0
        private var pending: UInt32 = 0

        mutating func write(_ code: UInt32, count: UInt32) {
            accumulator |= code << pending
            pending += count
            while pending >= 8 {
                bytes.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                pending -= 8
            }
        }

        mutating func flush() {
            if pending > 0 {
                bytes.append(UInt8(accumulator & 0xFF))
                accumulator = 0
                pending = 0
            }
        }
    }
}
