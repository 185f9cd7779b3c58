import CachedImageCore
import Foundation

/// Table 12: ThumbHash and BlurHash decode times (issue 38), against a straight port of the
/// reference decoders' loop (a cosine per pixel per component), in one process.
struct PlaceholderDecodeBench {
    let options: BenchOptions

    func run() throws {
        let iterations = options.pick(quick: 200, full: 2_000)
        let thumbHash = try ThumbHash(base64: "1QcSHQRnh493V4dIh4eXh1h4kJUI")
        let blurHashes = [("4x3", try BlurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj"))]
            + [("9x9", try BlurHash(Self.nineByNine))]
        var table = Table(
            "12. Placeholder hash decodes (median of \(iterations), µs per decode)",
            columns: ["hash", "output", "CachedImage", "per-pixel cosines (reference loop)", "speed-up"]
        )
        var sink = 0
        let thumbSize = thumbHash.imageSize
        let thumb = measure(iterations) { sink &+= Int(thumbHash.image().rgba[0]) }
        table.add(["ThumbHash (\(thumbHash.bytes.count) bytes)", "\(thumbSize)", Format.number(thumb / 1_000, 1), "-", "-"])
        for (name, hash) in blurHashes {
            for (width, height) in [(32, 32), (128, 128)] {
                let ours = measure(iterations) { sink &+= Int(hash.image(width: width, height: height).rgba[0]) }
                let naive = measure(max(20, iterations / (width * height / 1024))) {
                    sink &+= Int(Self.referenceLoop(hash, width: width, height: height)[0])
                }
                table.add([
                    "BlurHash \(name) components", "\(width)x\(height)", Format.number(ours / 1_000, 1),
                    Format.number(naive / 1_000, 1), Format.ratio(naive, to: ours),
                ])
            }
        }
        table.print(note: "Release build, wall clock on a shared machine (medians; rerun to compare). The reference loop is the Wolt decoder's structure ported to Swift: cos() for every pixel and component. CachedImage's decoder computes the cosines once per column and row and sums each row's components once. (sink \(sink % 2))")
    }

    private func measure(_ iterations: Int, _ body: () -> Void) -> Double {
        for _ in 0..<max(1, iterations / 10) { body() } // warm up
        var samples = Samples()
        for _ in 0..<iterations { samples.add(Stopwatch.time(body)) }
        return samples.median
    }

    /// A 9x9-component hash (made by the reference encoder).
    static let nineByNine = "|OHetVoysAkVg1s:b0sqbHozt8W.TKjGaBjeaZkCWqjuw^Wqb@jdaqnzo2ozx-SeT-jGU{jWV#kAazn,$7R.hpnmaxaOa#t7[aNvE5e.TDj=X9g0k8Nu1^j?epniW:eoagt6I@ofw0azobbEj0l3jaX8S2S}jZoeW;gbXh"

    /// The reference decoder's pixel loop over the hash's colours (read back from a 1-pixel-per-
    /// component decode would be circular, so the components are decoded here as the reference does).
    static func referenceLoop(_ hash: BlurHash, width: Int, height: Int) -> [UInt8] {
        let digits = Array(hash.string.utf8).map { Int(alphabet.firstIndex(of: $0)!) }
        let nx = hash.componentsX, ny = hash.componentsY
        let maximum = Double(digits[1] + 1) / 166
        var colors: [(Double, Double, Double)] = []
        for index in 0..<(nx * ny) {
            if index == 0 {
                let value = digits[2..<6].reduce(0) { $0 * 83 + $1 }
                colors.append((linear(value >> 16), linear((value >> 8) & 255), linear(value & 255)))
            } else {
                let value = digits[(4 + index * 2)..<(6 + index * 2)].reduce(0) { $0 * 83 + $1 }
                func ac(_ q: Int) -> Double { let v = Double(q - 9) / 9; return (v < 0 ? -1 : 1) * v * v * maximum }
                colors.append((ac(value / 361), ac((value / 19) % 19), ac(value % 19)))
            }
        }
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                var r = 0.0, g = 0.0, b = 0.0
                for j in 0..<ny {
                    for i in 0..<nx {
                        let basis = cos(Double.pi * Double(x * i) / Double(width)) * cos(Double.pi * Double(y * j) / Double(height))
                        let color = colors[i + j * nx]
                        r += color.0 * basis
                        g += color.1 * basis
                        b += color.2 * basis
                    }
                }
                let index = 4 * (y * width + x)
                pixels[index] = sRGB(r)
                pixels[index + 1] = sRGB(g)
                pixels[index + 2] = sRGB(b)
            }
        }
        return pixels
    }

    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    private static func linear(_ value: Int) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    private static func sRGB(_ value: Double) -> UInt8 {
        let v = max(0, min(1, value))
        return UInt8(v <= 0.0031308 ? v * 12.92 * 255 + 0.5 : (1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }
}
