import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Image bodies crafted to crash or stall the header parsers (`HostileImages`), fed the way the
/// pipeline meets them: its validator, a loopback response (with a `Content-Length`, and ended by
/// the connection's close), a file, a `data:` URL and a disk entry another process wrote. Each
/// gets a typed error; none traps, and the work each costs is linear in its length.
@Suite("Reliability: crafted image headers get a typed error, never a trap or a stall")
struct HostileImageTests {
    static let url = URL(string: "https://example.com/hostile")!

    static let inputs: [(name: String, data: Data, format: ImageFormat)] = [
        ("BigTIFF directory count that overflows", HostileImages.bigTIFFWithOverflowingDirectory, .tiff),
        ("icon bitmap whose rows overflow", HostileImages.icoWithOverflowingBitmap, .ico),
        ("icon entries sharing one endless PNG", HostileImages.icoSharingOnePNG(entries: 2_600, emptyChunks: 2_000), .ico),
    ]

    private static func validate(_ data: Data, _ transfer: ResponseValidator.Transfer) throws -> ImageInfo {
        try ResponseValidator(maximumPixelCount: 100_000_000).validate(
            data, url: url, contentType: nil, expectedLength: nil, transfer: transfer
        )
    }

    @Test("the container checks answer each input without trapping")
    func containerChecks() {
        for input in Self.inputs {
            #expect(ImageInfo(data: input.data)?.format == input.format, "\(input.name)")
            let check = ImageInfo.containerCheck(input.data, format: input.format)
            #expect(check != .complete, "\(input.name): \(check)")
        }
    }

    @Test("a close-delimited body is refused as truncated, one with its length announced as invalid or sized")
    func validator() throws {
        for input in Self.inputs {
            #expect(throws: ImagePipeline.Error.self, "\(input.name)") { try Self.validate(input.data, .mayBeCut) }
        }
        // Nothing in the first two says how large the image is.
        for input in Self.inputs.prefix(2) {
            #expect("\(input.name)", performing: { try Self.validate(input.data, .complete) }, throws: { error in
                guard case ImagePipeline.Error.invalidImage(_, input.format, _) = error else { return false }
                return true
            })
        }
    }

    @Test("every input the fuzzer kept as a regression (Fuzz/Regressions/image-headers) gets a verdict, never a trap")
    func fuzzRegressions() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Regressions/image-headers", isDirectory: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.count >= 2)
        for name in names {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            _ = ImageInfo(data: data)
            for format in ImageFormat.allCases {
                _ = ImageInfo.containerCheck(data, format: format)
            }
            #expect(throws: ImagePipeline.Error.self, "\(name)") { try Self.validate(data, .mayBeCut) }
        }
    }

    @Test("an icon's entries sharing one PNG are walked once: work linear in the body, whatever the directory")
    func sharedPNGIsWalkedOnce() {
        for (entries, chunks) in [(10, 10), (2_600, 2_000), (10_000, 8_000)] {
            let data = HostileImages.icoSharingOnePNG(entries: entries, emptyChunks: chunks)
            let (check, chunksRead) = HeaderBytes.with(data) { bytes in
                var chains = PNGChunkChains(bytes, remembering: true)
                return (ImageInfo.icoContainerCheck(bytes, chains: &chains), chains.chunksRead)
            }
            #expect(check != .complete)
            // Every chunk once, plus the first (remembered) chunk once more per later entry.
            #expect(chunksRead <= chunks + 1, "\(entries) entries x \(chunks) chunks read \(chunksRead) chunk headers")
        }
    }

    @Test("BigTIFF and TIFF directories placed at the end of any offset are refused, not read")
    func directoriesPastAnyOffset() {
        for offset in [Int.max, Int.max - 3, Int.max - 7, 1 << 62] {
            var bytes: [UInt8] = [0x49, 0x49, 0x2B, 0x00, 0x08, 0x00, 0x00, 0x00]
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: offset >> ($0 * 8)) }
            bytes += [UInt8](repeating: 0xFF, count: 32)
            let data = Data(bytes)
            #expect(ImageInfo(data: data)?.pixelSize == nil)
            #expect(ImageInfo.containerCheck(data, format: .tiff) != .complete)
        }
    }

    @Test("over a socket: each input, ended by the connection's close, is a truncated response")
    func overASocket() async throws {
        for input in Self.inputs {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: image/x-icon\r\nConnection: close\r\n\r\n"
            let server = try ConnectionDroppingServer(response: Data(head.utf8) + input.data, ending: .close)
            defer { server.shutdown() }
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("CachedImageHostileTests-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let pipeline = ImagePipeline.forTests(directory: directory, clock: ManualClock()) { _ in }
            do {
                _ = try await pipeline.image(for: server.url("/hostile"))
                Issue.record("\(input.name): accepted")
            } catch let error as ImagePipeline.Error {
                guard case .truncatedResponse = error else { Issue.record("\(input.name): \(error)"); continue }
            }
            pipeline.diskCache?.flush()
            #expect(pipeline.diskCache?.allEntries().isEmpty == true, "\(input.name): stored")
        }
    }

    @Test("from the loopback server (Content-Length announced), a data: URL and a file: a typed error, nothing stored")
    @available(macOS 14.0, *)
    func announcedFileAndDataURL() async throws {
        let fixture = try await PipelineFixture.start()
        let pipeline = fixture.makePipeline()
        let files = fixture.directory.appendingPathComponent("files", isDirectory: true)
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        for (index, input) in Self.inputs.prefix(2).enumerated() {
            fixture.server.serve("/hostile-\(index)", .ok(input.data, contentType: "image/tiff"))
            let file = files.appendingPathComponent("hostile-\(index)")
            try input.data.write(to: file)
            let dataURL = URL(string: "data:image/tiff;base64," + input.data.base64EncodedString())!
            for url in [fixture.url("/hostile-\(index)"), file, dataURL] {
                await #expect("\(input.name) from \(url.scheme ?? "")", performing: { try await pipeline.image(for: url) }, throws: { error in
                    guard case ImagePipeline.Error.invalidImage = error else { return false }
                    return true
                })
            }
        }
        pipeline.diskCache?.flush()
        #expect(pipeline.diskCache?.allEntries().isEmpty == true)
        await fixture.tearDown()
    }

    @Test("a disk entry another process wrote with these bodies is read without trapping")
    @available(macOS 14.0, *)
    func diskEntries() async throws {
        let fixture = try await PipelineFixture.start()
        let writer = fixture.makePipeline()
        let metadata = CachedResponseMetadata(storedAt: fixture.clock.now, freshnessLifetime: 3_600)
        for (index, input) in Self.inputs.enumerated() {
            writer.diskCache?.store(input.data, metadata: metadata, forKey: fixture.url("/entry-\(index)").absoluteString)
        }
        writer.diskCache?.flush()
        let reader = fixture.makePipeline()
        for (index, input) in Self.inputs.enumerated() {
            // Sized or not, the header decoder answers from the header alone: no trap, no request.
            let result = try? await reader.image(for: fixture.url("/entry-\(index)"))
            #expect(result.map { $0.source == .disk } ?? true, "\(input.name)")
            #expect(fixture.server.requestCount(for: "/entry-\(index)") <= 1)
        }
        await fixture.tearDown()
    }
}

@Suite("Decoding: the TIFF check follows the strips and tiles its directory points at")
struct TIFFStripCompletenessTests {
    @Test("strip tables after the pixels: whole is complete; cut in the pixels or the tables is unterminated, refused when close-delimited", arguments: [false, true])
    func stripTablesLast(big: Bool) throws {
        let tiff = ImageFixtures.tiffWithStripTablesLast(width: 40, height: 30, rowsPerStrip: 4, big: big)
        #expect(ImageInfo(data: tiff)?.pixelSize == PixelSize(width: 40, height: 30))
        #expect(ImageInfo.containerCheck(tiff, format: .tiff) == .complete)
        let validator = ResponseValidator(maximumPixelCount: 100_000_000)
        let url = URL(string: "https://example.com/a.tiff")!
        for cut in [tiff.count / 2, tiff.count - 1] {
            let prefix = tiff.prefix(cut)
            guard case .unterminated = ImageInfo.containerCheck(prefix, format: .tiff) else {
                Issue.record("cut at \(cut) of \(tiff.count): \(ImageInfo.containerCheck(prefix, format: .tiff))")
                continue
            }
            #expect(throws: ImagePipeline.Error.self) {
                try validator.validate(prefix, url: url, contentType: nil, expectedLength: nil, transfer: .mayBeCut)
            }
        }
    }

    @Test("one strip, directory first or last, TIFF or BigTIFF: still complete, and cut in its pixels still unterminated")
    func singleStrip() {
        for big in [false, true] {
            for tiff in [ImageFixtures.tiff(width: 20, height: 10, big: big),
                         ImageFixtures.tiffWithStripTablesLast(width: 20, height: 10, rowsPerStrip: 10, big: big)] {
                #expect(ImageInfo.containerCheck(tiff, format: .tiff) == .complete)
                #expect(ImageInfo.containerCheck(tiff.prefix(tiff.count - 30), format: .tiff) != .complete)
            }
        }
    }
}
