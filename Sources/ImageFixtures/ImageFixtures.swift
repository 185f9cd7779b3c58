import Foundation

/// Real, valid image files made in code, for tests, demo servers and benchmarks.
///
/// Every generator is deterministic: the same arguments always produce the same bytes, and
/// different seeds produce different bytes. The files decode in standard decoders (ImageIO,
/// libpng, libjpeg, giflib) to the requested size.
///
/// ```swift
/// let photo = ImageFixtures.jpeg(width: 640, height: 480, seed: 7)
/// let icon = ImageFixtures.png(width: 64, height: 64, seed: 1, hasAlpha: true)
/// let bomb = ImageFixtures.pngHeader(width: 20_000, height: 20_000) // Header only.
/// ```
public enum ImageFixtures {
    /// A PNG of pseudo-random noise over a colour gradient.
    ///
    /// The pixel data is stored uncompressed (zlib "stored" blocks), so the file is about
    /// `width * height * channels` bytes, like a photo-sized PNG; noise would not compress anyway.
    ///
    /// - Parameters:
    ///   - width: Pixels across, 1...0x7FFF_FFFF (keep `width * height` modest: it is allocated).
    ///   - height: Pixels down, 1...0x7FFF_FFFF.
    ///   - seed: Selects the noise and the gradient's hue.
    ///   - hasAlpha: `true` for 8-bit RGBA (colour type 6) with varying alpha, `false` for RGB.
    /// - Returns: A complete PNG with valid CRC-32 and Adler-32 checksums.
    public static func png(width: Int, height: Int, seed: UInt64 = 0, hasAlpha: Bool = false) -> Data {
        precondition((1...0x7FFF_FFFF).contains(width) && (1...0x7FFF_FFFF).contains(height),
                     "PNG dimensions must be 1...2^31-1")
        let channels = hasAlpha ? 4 : 3
        let rowLength = 1 + width * channels
        var random = SeededRandom(seed: seed)
        let hue = random.next()
        var scanlines = [UInt8](repeating: 0, count: rowLength * height)
        scanlines.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                let row = y * rowLength
                buffer[row] = 0 // Filter type None.
                let green = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1) &+ Int(hue >> 8 & 0xFF))
                for x in 0..<width {
                    let noise = random.next()
                    let red = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1) &+ Int(hue & 0xFF))
                    let pixel = row + 1 + x * channels
                    buffer[pixel] = red &+ UInt8(truncatingIfNeeded: noise & 0x3F)
                    buffer[pixel + 1] = green &+ UInt8(truncatingIfNeeded: noise >> 8 & 0x3F)
                    buffer[pixel + 2] = UInt8(truncatingIfNeeded: noise >> 16)
                    if hasAlpha {
                        buffer[pixel + 3] = 0xC0 | UInt8(truncatingIfNeeded: noise >> 24 & 0x3F)
                    }
                }
            }
        }
        return PNGWriter.file(width: width, height: height, hasAlpha: hasAlpha, scanlines: scanlines)
    }

    /// Just a PNG signature and `IHDR` chunk declaring `width` x `height` RGBA, with a correct
    /// CRC. For decompression-bomb tests: it claims a huge image without the bytes for one.
    ///
    /// - Parameters:
    ///   - width: Declared width, 1...0x7FFF_FFFF.
    ///   - height: Declared height, 1...0x7FFF_FFFF.
    public static func pngHeader(width: Int, height: Int) -> Data {
        precondition((1...0x7FFF_FFFF).contains(width) && (1...0x7FFF_FFFF).contains(height),
                     "PNG dimensions must be 1...2^31-1")
        return PNGWriter.header(width: UInt32(width), height: UInt32(height), hasAlpha: true)
    }

    /// A baseline JPEG (JFIF, 8-bit YCbCr 4:4:4, standard Huffman tables) made of 8x8 blocks of
    /// pseudo-random colour.
    ///
    /// - Parameters:
    ///   - width: Pixels across, 1...65535.
    ///   - height: Pixels down, 1...65535.
    ///   - seed: Selects the colours.
    ///   - detail: Non-zero AC coefficients per block, 0...63. 0 gives flat blocks and a tiny file
    ///     (a few bytes per block); higher values add texture and make the file larger, closer
    ///     to a photo (around 30 gives roughly 1-1.5 bytes per pixel).
    /// - Returns: A complete JPEG ending in `EOI`.
    public static func jpeg(width: Int, height: Int, seed: UInt64 = 0, detail: Int = 0) -> Data {
        precondition((1...65_535).contains(width) && (1...65_535).contains(height),
                     "JPEG dimensions must be 1...65535")
        precondition((0...63).contains(detail), "detail must be 0...63")
        var random = SeededRandom(seed: seed)
        let base = random.next()
        let columns = (width + 7) / 8
        let rows = (height + 7) / 8
        return JPEGWriter().file(width: width, height: height) { column, row, component in
            // Level-shifted sample value for the block, -128...127; DC = 8 x that.
            let level: Int
            switch component {
            case 0: // Luma: a diagonal ramp plus jitter.
                let ramp = (column * 160 / max(1, columns - 1) + row * 80 / max(1, rows - 1)) / 2
                level = min(127, max(-128, ramp - 60 + random.next(below: 48) - 24))
            case 1: level = Int(base & 0x7F) - 64 + random.next(below: 32) - 16
            default: level = Int(base >> 8 & 0x7F) - 64 + random.next(below: 32) - 16
            }
            var ac: [Int] = []
            ac.reserveCapacity(detail)
            for _ in 0..<detail {
                let magnitude = 1 + random.next(below: 24)
                ac.append(random.next(below: 2) == 0 ? magnitude : -magnitude)
            }
            return (dc: level * 8, ac: ac)
        }
    }

    /// A minimal valid GIF89a: one frame, a 4-colour palette, an 8x8 checker pattern.
    ///
    /// - Parameters:
    ///   - width: Pixels across, 1...65535.
    ///   - height: Pixels down, 1...65535.
    public static func gif(width: Int, height: Int) -> Data {
        precondition((1...65_535).contains(width) && (1...65_535).contains(height),
                     "GIF dimensions must be 1...65535")
        return GIFWriter.file(width: width, height: height) { x, y in
            UInt8((x / 8 + y / 8) % 4)
        }
    }
}
