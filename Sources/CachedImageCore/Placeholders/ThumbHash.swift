import Foundation

/// A ThumbHash: a compact (about 25 bytes) description of an image that decodes to a blurred
/// preview, with its aspect ratio, its average colour and its alpha. Feeds send it Base64-encoded
/// next to an image's URL so that an app can paint something before any byte of the image
/// arrives.
///
/// ```swift
/// let hash = try ThumbHash(base64: "1QcSHQRnh493V4dIh4eXh1h4kJUI")
/// let preview = hash.image()          // at most 32x32 pixels, RGBA
/// let ratio = hash.aspectRatio        // width / height of the original, approximately
/// ```
///
/// The decoder follows the format's reference implementation (Evan Wallace's): its pixels match
/// the reference within 1 per channel. Malformed hashes are refused with a
/// ``PlaceholderHashError`` when the value is made, so ``image()`` cannot fail.
package struct ThumbHash: Sendable, Hashable {
    /// The hash's bytes.
    package let bytes: [UInt8]
    private let header: Header

    /// Reads a hash from its bytes.
    ///
    /// - Throws: ``PlaceholderHashError/tooShort(length:minimum:)``,
    ///   ``PlaceholderHashError/lengthMismatch(length:expected:)`` or
    ///   ``PlaceholderHashError/invalidComponentCount``.
    package init(bytes: some Sequence<UInt8>) throws {
        let bytes = Array(bytes)
        self.header = try Header(bytes)
        self.bytes = bytes
    }

    /// Reads a Base64-encoded hash (the standard or the URL-safe alphabet, with or without
    /// padding).
    ///
    /// - Throws: ``PlaceholderHashError/invalidBase64``, or what ``init(bytes:)`` throws.
    package init(base64 string: String) throws {
        var normalized = String(string.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        let remainder = normalized.utf8.count % 4
        if remainder == 1 { throw PlaceholderHashError.invalidBase64 }
        if remainder != 0 { normalized += String(repeating: "=", count: 4 - remainder) }
        guard let data = Data(base64Encoded: normalized) else { throw PlaceholderHashError.invalidBase64 }
        try self.init(bytes: data)
    }

    /// The original image's approximate aspect ratio (width / height), from the hash's header.
    package var aspectRatio: Double { Double(header.ratioX) / Double(header.ratioY) }

    /// Whether the original image has transparency.
    package var hasAlpha: Bool { header.hasAlpha }

    /// The original image's average colour (not premultiplied).
    package var averageColor: PlaceholderColor {
        let rgb = Self.rgb(l: header.lDC, p: header.pDC, q: header.qDC)
        return PlaceholderColor(
            red: max(0, min(1, rgb.r)), green: max(0, min(1, rgb.g)), blue: max(0, min(1, rgb.b)),
            alpha: header.aDC
        )
    }

    /// The size ``image()`` decodes to: 32 pixels on the longer side, the other from
    /// ``aspectRatio``.
    package var imageSize: PixelSize {
        let ratio = aspectRatio
        return PixelSize(
            width: Int((ratio > 1 ? 32 : 32 * ratio).rounded()),
            height: Int((ratio > 1 ? 32 / ratio : 32).rounded())
        )
    }

    /// Decodes the blurred preview: ``imageSize``, RGBA, not premultiplied.
    package func image() -> PlaceholderImage {
        let header = header
        var nibbles = NibbleReader(bytes: bytes, start: header.hasAlpha ? 6 : 5)
        let lAC = nibbles.channel(nx: header.lx, ny: header.ly, scale: header.lScale)
        let pAC = nibbles.channel(nx: 3, ny: 3, scale: header.pScale * 1.25)
        let qAC = nibbles.channel(nx: 3, ny: 3, scale: header.qScale * 1.25)
        let aAC = header.hasAlpha ? nibbles.channel(nx: 5, ny: 5, scale: header.aScale) : []

        let size = imageSize
        let (w, h) = (size.width, size.height)
        let nx = max(header.lx, header.hasAlpha ? 5 : 3)
        let ny = max(header.ly, header.hasAlpha ? 5 : 3)
        // cos(pi / w * (x + 0.5) * cx) for every column and coefficient, and likewise per row.
        var fxTable = [Double](repeating: 0, count: w * nx)
        for x in 0..<w {
            for cx in 0..<nx { fxTable[x * nx + cx] = cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
        }
        var fyTable = [Double](repeating: 0, count: h * ny)
        for y in 0..<h {
            for cy in 0..<ny { fyTable[y * ny + cy] = cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
        }

        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                var l = header.lDC, p = header.pDC, q = header.qDC, a = header.aDC
                let fx = x * nx, fy = y * ny
                var j = 0
                for cy in 0..<header.ly {
                    let fy2 = fyTable[fy + cy] * 2
                    var cx = cy == 0 ? 1 : 0
                    while cx * header.ly < header.lx * (header.ly - cy) {
                        l += lAC[j] * fxTable[fx + cx] * fy2
                        cx += 1
                        j += 1
                    }
                }
                j = 0
                for cy in 0..<3 {
                    let fy2 = fyTable[fy + cy] * 2
                    for cx in (cy == 0 ? 1 : 0)..<(3 - cy) {
                        let f = fxTable[fx + cx] * fy2
                        p += pAC[j] * f
                        q += qAC[j] * f
                        j += 1
                    }
                }
                if header.hasAlpha {
                    j = 0
                    for cy in 0..<5 {
                        let fy2 = fyTable[fy + cy] * 2
                        for cx in (cy == 0 ? 1 : 0)..<(5 - cy) {
                            a += aAC[j] * fxTable[fx + cx] * fy2
                            j += 1
                        }
                    }
                }
                let rgb = Self.rgb(l: l, p: p, q: q)
                let i = (y * w + x) * 4
                rgba[i] = Self.byte(rgb.r)
                rgba[i + 1] = Self.byte(rgb.g)
                rgba[i + 2] = Self.byte(rgb.b)
                rgba[i + 3] = Self.byte(a)
            }
        }
        return PlaceholderImage(width: w, height: h, rgba: rgba)
    }

    private static func rgb(l: Double, p: Double, q: Double) -> (r: Double, g: Double, b: Double) {
        let b = l - 2.0 / 3.0 * p
        let r = (3 * l - b + q) / 2
        return (r, r - q, b)
    }

    /// 0...1 to a byte, truncating as the reference's typed array does.
    private static func byte(_ value: Double) -> UInt8 {
        UInt8(max(0, 255 * min(1, value)))
    }

    package static func == (lhs: ThumbHash, rhs: ThumbHash) -> Bool { lhs.bytes == rhs.bytes }
    package func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

extension ThumbHash {
    /// The constants at the start of a hash.
    private struct Header: Sendable {
        let lDC, pDC, qDC, aDC: Double
        let lScale, pScale, qScale, aScale: Double
        let hasAlpha: Bool
        /// Luminance components across and down (at least 3).
        let lx, ly: Int
        /// The aspect ratio's terms, as the header stores them.
        let ratioX, ratioY: Int

        init(_ hash: [UInt8]) throws {
            guard hash.count >= 5 else { throw PlaceholderHashError.tooShort(length: hash.count, minimum: 5) }
            let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
            let header16 = Int(hash[3]) | Int(hash[4]) << 8
            hasAlpha = header24 >> 23 != 0
            let isLandscape = header16 >> 15 != 0
            ratioX = isLandscape ? (hasAlpha ? 5 : 7) : header16 & 7
            ratioY = isLandscape ? header16 & 7 : (hasAlpha ? 5 : 7)
            // Encoders write at least one component along each side.
            guard ratioX > 0, ratioY > 0 else { throw PlaceholderHashError.invalidComponentCount }
            lx = max(3, ratioX)
            ly = max(3, ratioY)
            let start = hasAlpha ? 6 : 5
            guard hash.count >= start else { throw PlaceholderHashError.tooShort(length: hash.count, minimum: start) }
            let count = Self.acCount(nx: lx, ny: ly) + 2 * Self.acCount(nx: 3, ny: 3) + (hasAlpha ? Self.acCount(nx: 5, ny: 5) : 0)
            let expected = start + (count + 1) / 2
            guard hash.count == expected else { throw PlaceholderHashError.lengthMismatch(length: hash.count, expected: expected) }

            lDC = Double(header24 & 63) / 63
            pDC = Double((header24 >> 6) & 63) / 31.5 - 1
            qDC = Double((header24 >> 12) & 63) / 31.5 - 1
            lScale = Double((header24 >> 18) & 31) / 31
            pScale = Double((header16 >> 3) & 63) / 63
            qScale = Double((header16 >> 9) & 63) / 63
            aDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
            aScale = Double(hash[5] >> 4) / 15
        }

        /// The number of AC coefficients of an `nx` by `ny` channel (the triangle the encoder keeps).
        static func acCount(nx: Int, ny: Int) -> Int {
            var count = 0
            for cy in 0..<ny {
                var cx = cy == 0 ? 1 : 0
                while cx * ny < nx * (ny - cy) {
                    count += 1
                    cx += 1
                }
            }
            return count
        }
    }

    /// Reads the AC coefficients, 4 bits each, low nibble first.
    private struct NibbleReader {
        let bytes: [UInt8]
        let start: Int
        var index = 0

        mutating func channel(nx: Int, ny: Int, scale: Double) -> [Double] {
            var ac: [Double] = []
            for cy in 0..<ny {
                var cx = cy == 0 ? 1 : 0
                while cx * ny < nx * (ny - cy) {
                    let byte = bytes[start + (index >> 1)]
                    let nibble = (byte >> ((UInt8(index & 1)) << 2)) & 15
                    ac.append((Double(nibble) / 7.5 - 1) * scale)
                    index += 1
                    cx += 1
                }
            }
            return ac
        }
    }
}
