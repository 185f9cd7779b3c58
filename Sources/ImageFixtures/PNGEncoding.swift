import Foundation

extension ImageFixtures {
    /// Encodes 8-bit RGB pixels (`width * height * 3` bytes, rows top to bottom) as a PNG with
    /// stored (uncompressed) deflate blocks: a real encoder for benchmarks and tests that need
    /// to write back an image they computed.
    public static func png(width: Int, height: Int, rgb: [UInt8]) -> Data {
        precondition(rgb.count == width * height * 3, "expected width * height * 3 bytes")
        let rowLength = width * 3
        var scanlines = [UInt8]()
        scanlines.reserveCapacity((rowLength + 1) * height)
        for y in 0..<height {
            scanlines.append(0)
            scanlines.append(contentsOf: rgb[(y * rowLength)..<((y + 1) * rowLength)])
        }
        return PNGWriter.file(width: width, height: height, hasAlpha: false, scanlines: scanlines)
    }
}
