import Foundation

/// Animated GIF, APNG and animated WebP files: real containers with real frames, whose frame
/// delays and loop counts the tests choose.
extension ImageFixtures {
    /// An animated GIF89a: one full-screen frame per entry of `delays` (in centiseconds, as GIF
    /// stores them; each frame shifts the checker pattern), with a `NETSCAPE2.0` loop extension
    /// holding `loopCount` (`nil` writes no extension: the GIF plays once).
    public static func animatedGIF(width: Int, height: Int, delays: [Int], loopCount: Int? = 0) -> Data {
        precondition((1...65_535).contains(width) && (1...65_535).contains(height), "GIF dimensions must be 1...65535")
        // Header, logical screen descriptor and the 4-entry global palette: 6 + 7 + 12 bytes.
        let prefixLength = 25
        var data = Data()
        for (index, delay) in delays.enumerated() {
            let single = GIFWriter.file(width: width, height: height) { x, y in
                UInt8((x / 8 + y / 8 + index) % 4)
            }
            if index == 0 {
                data.append(single.prefix(prefixLength))
                if let loopCount {
                    data.append(contentsOf: [0x21, 0xFF, 0x0B])
                    data.append(contentsOf: Array("NETSCAPE2.0".utf8))
                    data.append(contentsOf: [0x03, 0x01, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8 & 0xFF), 0x00])
                }
            }
            // Graphic control extension: disposal "leave", no transparency, the frame's delay.
            data.append(contentsOf: [0x21, 0xF9, 0x04, 0x04, UInt8(delay & 0xFF), UInt8(delay >> 8 & 0xFF), 0x00, 0x00])
            // The image descriptor and its LZW data, without the single file's trailer.
            data.append(single.subdata(in: (single.startIndex + prefixLength)..<(single.endIndex - 1)))
        }
        data.append(0x3B)
        return data
    }

    /// An APNG: one full-size RGB frame per entry of `delays` (`(numerator, denominator)`
    /// seconds, as `fcTL` stores them), played `plays` times (0: forever). The default image is
    /// the first frame, so viewers without APNG support show it.
    public static func apng(width: Int, height: Int, delays: [(UInt16, UInt16)], plays: Int = 0) -> Data {
        precondition(!delays.isEmpty, "an APNG has at least one frame")
        let frames = delays.indices.map { index in
            PNGWriter.storedZlibStream(frameScanlines(width: width, height: height, seed: UInt64(index)))
        }
        var data = PNGWriter.header(width: UInt32(width), height: UInt32(height), hasAlpha: false)
        PNGWriter.appendChunk("acTL", PNGWriter.bigEndian(UInt32(delays.count)) + PNGWriter.bigEndian(UInt32(plays)), to: &data)
        var sequence: UInt32 = 0
        for (index, delay) in delays.enumerated() {
            var fcTL = PNGWriter.bigEndian(sequence)
            fcTL += PNGWriter.bigEndian(UInt32(width)) + PNGWriter.bigEndian(UInt32(height))
            fcTL += PNGWriter.bigEndian(0) + PNGWriter.bigEndian(0)
            fcTL += [UInt8(delay.0 >> 8), UInt8(delay.0 & 0xFF), UInt8(delay.1 >> 8), UInt8(delay.1 & 0xFF)]
            fcTL += [0, 0] // Dispose: none; blend: source.
            PNGWriter.appendChunk("fcTL", fcTL, to: &data)
            sequence += 1
            if index == 0 {
                PNGWriter.appendChunk("IDAT", frames[0], to: &data)
            } else {
                PNGWriter.appendChunk("fdAT", PNGWriter.bigEndian(sequence) + frames[index], to: &data)
                sequence += 1
            }
        }
        PNGWriter.appendChunk("IEND", [], to: &data)
        return data
    }

    /// An animated WebP (`VP8X` + `ANIM` + one `ANMF` per entry of `durations`, in
    /// milliseconds), looping `loopCount` times (0: forever). Each frame is a lossless (`VP8L`)
    /// solid-colour image of the full canvas.
    public static func animatedWebP(width: Int, height: Int, durations: [Int], loopCount: Int = 0) -> Data {
        precondition((1...16_384).contains(width) && (1...16_384).contains(height), "WebP dimensions must be 1...16384")
        var chunks = Data()
        // VP8X: flags (animation), reserved, canvas width - 1 and height - 1 (24 bits each).
        appendRIFFChunk("VP8X", [0x02, 0, 0, 0] + littleEndian24(width - 1) + littleEndian24(height - 1), to: &chunks)
        // ANIM: background colour (BGRA), loop count (16 bits).
        appendRIFFChunk("ANIM", [0, 0, 0, 0, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8 & 0xFF)], to: &chunks)
        for (index, duration) in durations.enumerated() {
            var frame = [UInt8]()
            frame += littleEndian24(0) + littleEndian24(0) // Offset / 2.
            frame += littleEndian24(width - 1) + littleEndian24(height - 1)
            frame += littleEndian24(duration)
            frame.append(0x00) // Blend, dispose none.
            var image = Data()
            appendRIFFChunk("VP8L", solidVP8L(width: width, height: height, seed: index), to: &image)
            frame += Array(image)
            appendRIFFChunk("ANMF", frame, to: &chunks)
        }
        var data = Data("RIFF".utf8)
        data.append(contentsOf: littleEndian32(4 + chunks.count))
        data.append(contentsOf: Array("WEBP".utf8))
        data.append(chunks)
        return data
    }

    private static func frameScanlines(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        let rowLength = 1 + width * 3
        var scanlines = [UInt8](repeating: 0, count: rowLength * height)
        for y in 0..<height {
            for x in 0..<width {
                let pixel = y * rowLength + 1 + x * 3
                scanlines[pixel] = UInt8(truncatingIfNeeded: x &* 8 &+ Int(seed) &* 40)
                scanlines[pixel + 1] = UInt8(truncatingIfNeeded: y &* 8)
                scanlines[pixel + 2] = UInt8(truncatingIfNeeded: Int(seed) &* 90)
            }
        }
        return scanlines
    }

    /// A VP8L bitstream of one colour: every prefix code is a "simple" one-symbol code, so
    /// pixels take zero bits and the stream is just its header and five codes.
    static func solidVP8L(width: Int, height: Int, seed: Int) -> [UInt8] {
        var bits = [Bool]()
        func write(_ value: Int, _ count: Int) {
            for bit in 0..<count { bits.append(value >> bit & 1 == 1) }
        }
        write(width - 1, 14)
        write(height - 1, 14)
        write(0, 1) // No alpha.
        write(0, 3) // Version 0.
        write(0, 1) // No transform.
        write(0, 1) // No colour cache.
        write(0, 1) // No meta prefix codes.
        // Green, red, blue, alpha, distance: one 8-bit symbol each.
        let colour = [(seed * 70) & 0xFF, 0xE0, (seed * 30 + 40) & 0xFF, 0xFF, 0]
        for symbol in colour {
            write(1, 1) // Simple code.
            write(0, 1) // One symbol.
            write(1, 1) // 8-bit symbol.
            write(symbol, 8)
        }
        var bytes: [UInt8] = [0x2F]
        var byte: UInt8 = 0
        for (index, bit) in bits.enumerated() {
            if bit { byte |= 1 << UInt8(index % 8) }
            if index % 8 == 7 {
                bytes.append(byte)
                byte = 0
            }
        }
        if bits.count % 8 != 0 { bytes.append(byte) }
        return bytes
    }

    static func appendRIFFChunk(_ fourCC: String, _ payload: [UInt8], to data: inout Data) {
        data.append(contentsOf: Array(fourCC.utf8))
        data.append(contentsOf: littleEndian32(payload.count))
        data.append(contentsOf: payload)
        if payload.count % 2 == 1 { data.append(0) }
    }

    private static func littleEndian24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }

    static func littleEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }
}
