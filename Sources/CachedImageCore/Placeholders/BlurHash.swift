import Foundation

/// A BlurHash: a short Base83 string (typically 20-30 characters) describing an image as a
/// few cosine components, which decodes to a blurred preview of any size. Feeds (Mastodon,
/// Unsplash, many CMSs) send it next to an image's URL so that an app can paint something before
/// any byte of the image arrives.
///
/// ```swift
/// let hash = try BlurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj")
/// let preview = hash.image(width: 32, height: 32)
/// ```
///
/// Decode small (32x32 is plenty) and let the view stretch it. The decoder follows the format's
/// reference implementation (Wolt's): its pixels match the reference within 1 per channel.
/// Malformed strings are refused with a ``PlaceholderHashError`` when the value is made.
package struct BlurHash: Sendable, Hashable {
    /// The hash as given.
    package let string: String
    /// The number of cosine components across (1...9).
    package let componentsX: Int
    /// The number of cosine components down (1...9).
    package let componentsY: Int
    /// Each component's linear-light red, green and blue, row by row (`componentsX` across),
    /// the AC components not yet scaled by the punch.
    private let components: [SIMD3<Double>]

    /// Reads a hash.
    ///
    /// - Throws: ``PlaceholderHashError/tooShort(length:minimum:)``,
    ///   ``PlaceholderHashError/invalidCharacter(_:offset:)``,
    ///   ``PlaceholderHashError/invalidComponentCount`` or
    ///   ``PlaceholderHashError/lengthMismatch(length:expected:)``.
    package init(_ string: String) throws {
        let length = string.count
        guard length >= 6 else { throw PlaceholderHashError.tooShort(length: length, minimum: 6) }
        var digits = [Int]()
        digits.reserveCapacity(length)
        for (offset, character) in string.enumerated() {
            guard let ascii = character.asciiValue, let digit = Self.digit(ascii) else {
                throw PlaceholderHashError.invalidCharacter(character, offset: offset)
            }
            digits.append(digit)
        }
        // Every character is ASCII from here on: bytes and characters count alike.
        let sizeFlag = digits[0]
        let componentsY = sizeFlag / 9 + 1
        let componentsX = sizeFlag % 9 + 1
        guard componentsY <= 9 else { throw PlaceholderHashError.invalidComponentCount }
        let expected = 4 + 2 * componentsX * componentsY
        guard digits.count == expected else { throw PlaceholderHashError.lengthMismatch(length: digits.count, expected: expected) }

        let maximum = Double(digits[1] + 1) / 166
        var components = [SIMD3<Double>]()
        components.reserveCapacity(componentsX * componentsY)
        let dc = Self.value(digits, 2..<6)
        components.append(SIMD3(Self.linear(dc >> 16), Self.linear((dc >> 8) & 255), Self.linear(dc & 255)))
        for index in 1..<(componentsX * componentsY) {
            let ac = Self.value(digits, (4 + index * 2)..<(6 + index * 2))
            let quantized = SIMD3(Double(ac / (19 * 19)), Double((ac / 19) % 19), Double(ac % 19))
            let unit = (quantized - 9) / 9
            components.append(SIMD3(Self.signSquare(unit.x), Self.signSquare(unit.y), Self.signSquare(unit.z)) * maximum)
        }
        self.string = string
        self.componentsX = componentsX
        self.componentsY = componentsY
        self.components = components
    }

    /// The image's average colour (the hash's DC component; opaque).
    package var averageColor: PlaceholderColor {
        let dc = components[0]
        return PlaceholderColor(red: Double(Self.sRGB(dc.x)) / 255, green: Double(Self.sRGB(dc.y)) / 255, blue: Double(Self.sRGB(dc.z)) / 255)
    }

    /// Decodes the preview at `width` by `height` pixels (opaque RGBA).
    ///
    /// - Parameters:
    ///   - width: The width in pixels (32 is plenty: the view stretches it).
    ///   - height: The height in pixels.
    ///   - punch: Scales the contrast of the components (the reference's parameter); 1 decodes
    ///     the hash as encoded.
    package func image(width: Int = 32, height: Int = 32, punch: Double = 1) -> PlaceholderImage {
        let width = max(0, width), height = max(0, height)
        let nx = componentsX, ny = componentsY
        let punch = max(1, punch)
        var colors = components
        for index in colors.indices.dropFirst() { colors[index] *= punch }
        // The cosines per column and per row, computed once rather than per pixel.
        var cosX = [Double](repeating: 0, count: width * nx)
        for x in 0..<width {
            for i in 0..<nx { cosX[x * nx + i] = cos(Double.pi * Double(x) * Double(i) / Double(width)) }
        }
        var cosY = [Double](repeating: 0, count: height * ny)
        for y in 0..<height {
            for j in 0..<ny { cosY[y * ny + j] = cos(Double.pi * Double(y) * Double(j) / Double(height)) }
        }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        // Per row, the components weighted by their row basis: one multiply-add per column term.
        var rowColors = [SIMD3<Double>](repeating: .zero, count: nx)
        colors.withUnsafeBufferPointer { colors in
            cosX.withUnsafeBufferPointer { cosX in
                rgba.withUnsafeMutableBufferPointer { rgba in
                    for y in 0..<height {
                        for i in 0..<nx {
                            var sum = SIMD3<Double>.zero
                            for j in 0..<ny { sum += colors[i + j * nx] * cosY[y * ny + j] }
                            rowColors[i] = sum
                        }
                        for x in 0..<width {
                            var color = SIMD3<Double>.zero
                            for i in 0..<nx { color += rowColors[i] * cosX[x * nx + i] }
                            let index = (y * width + x) * 4
                            rgba[index] = Self.sRGB(color.x)
                            rgba[index + 1] = Self.sRGB(color.y)
                            rgba[index + 2] = Self.sRGB(color.z)
                        }
                    }
                }
            }
        }
        return PlaceholderImage(width: width, height: height, rgba: rgba)
    }

    package static func == (lhs: BlurHash, rhs: BlurHash) -> Bool { lhs.string == rhs.string }
    package func hash(into hasher: inout Hasher) { hasher.combine(string) }

    // MARK: - The format's arithmetic

    /// The Base83 number the digits in `range` spell.
    private static func value(_ digits: [Int], _ range: Range<Int>) -> Int {
        var value = 0
        for index in range { value = value * 83 + digits[index] }
        return value
    }

    /// The Base83 digit of an ASCII character, `nil` for any other.
    private static func digit(_ character: UInt8) -> Int? {
        let value = Int(digitTable[Int(character)])
        return value < 83 ? value : nil
    }

    private static let digitTable: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        let alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~"
        for (index, character) in alphabet.utf8.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    private static func linear(_ value: Int) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    private static func sRGB(_ value: Double) -> UInt8 {
        let v = max(0, min(1, value))
        if v <= 0.0031308 { return UInt8(v * 12.92 * 255 + 0.5) }
        return UInt8((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }

    private static func signSquare(_ value: Double) -> Double { value < 0 ? -(value * value) : value * value }
}
