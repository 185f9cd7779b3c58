import CachedImageCore
import Foundation
import ImageFixtures

/// A decoder and encoder that do real pixel work on Linux, where ImageIO does not exist, so the
/// thumbnail benchmark measures what a relaunch pays: every source pixel is read (the PNG's
/// stored deflate blocks are copied out, each scanline visited) and box-filtered down to the
/// target size, and the encoder writes the small bitmap back as a PNG. Handles the stored-deflate
/// RGB/RGBA PNGs `ImageFixtures` writes; other bytes throw.
struct PixelPNGCodec: ImageDecoding, ImageEncoding {
    struct Unsupported: Error {}

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        let (size, channels, raw) = try Self.inflate(data)
        let output = targetSize.map { size.fitted(into: $0) } ?? size
        let rgb = Self.boxFilter(raw, size: size, channels: channels, to: output)
        return DecodedImage(image: nil, data: Data(rgb), format: .png, pixelSize: output, cost: DecodedImage.bitmapCost(of: output))
    }

    func encode(_ image: DecodedImage) throws -> Data {
        guard let rgb = image.data, rgb.count == image.pixelSize.pixelCount * 3 else { throw Unsupported() }
        return ImageFixtures.png(width: image.pixelSize.width, height: image.pixelSize.height, rgb: Array(rgb))
    }

    /// The PNG's filtered scanlines (filter type 0 only), from its stored deflate blocks.
    private static func inflate(_ data: Data) throws -> (PixelSize, Int, [UInt8]) {
        let bytes = [UInt8](data)
        guard bytes.count > 33 else { throw Unsupported() }
        func be32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        let size = PixelSize(width: be32(16), height: be32(20))
        let channels = bytes[25] == 6 ? 4 : 3
        var stream = [UInt8]()
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = be32(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if type == "IDAT" { stream.append(contentsOf: bytes[(offset + 8)..<(offset + 8 + length)]) }
            offset += 12 + length
        }
        var raw = [UInt8]()
        raw.reserveCapacity((size.width * channels + 1) * size.height)
        var position = 2
        while position + 5 <= stream.count {
            let final = stream[position] & 1 == 1
            guard stream[position] & 0x06 == 0 else { throw Unsupported() }
            let length = Int(stream[position + 1]) | Int(stream[position + 2]) << 8
            raw.append(contentsOf: stream[(position + 5)..<(position + 5 + length)])
            position += 5 + length
            if final { break }
        }
        guard raw.count == (size.width * channels + 1) * size.height else { throw Unsupported() }
        return (size, channels, raw)
    }

    /// Averages each output pixel's block of source pixels (every source pixel is read once).
    private static func boxFilter(_ raw: [UInt8], size: PixelSize, channels: Int, to output: PixelSize) -> [UInt8] {
        let rowLength = size.width * channels + 1
        var sums = [UInt32](repeating: 0, count: output.width * output.height * 3)
        var counts = [UInt32](repeating: 0, count: output.width * output.height)
        raw.withUnsafeBufferPointer { raw in
            for y in 0..<size.height {
                let outY = y * output.height / size.height
                let row = y * rowLength + 1
                for x in 0..<size.width {
                    let out = outY * output.width + x * output.width / size.width
                    let pixel = row + x * channels
                    sums[out * 3] += UInt32(raw[pixel])
                    sums[out * 3 + 1] += UInt32(raw[pixel + 1])
                    sums[out * 3 + 2] += UInt32(raw[pixel + 2])
                    counts[out] += 1
                }
            }
        }
        var rgb = [UInt8](repeating: 0, count: sums.count)
        for index in 0..<counts.count where counts[index] > 0 {
            for channel in 0..<3 { rgb[index * 3 + channel] = UInt8(sums[index * 3 + channel] / counts[index]) }
        }
        return rgb
    }
}
