import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("Pipeline: data: URLs load like downloads, without the network")
struct DataURLTests {
    @Test("base64 and percent-encoded data: URLs load through the pipeline, validated, kept in memory, never on disk or the network")
    func loads() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 12, height: 8, seed: 3)
            let pipeline = fixture.makePipeline()
            let base64 = try #require(URL(string: "data:image/png;base64," + png.base64EncodedString()))
            let response = try await pipeline.image(for: base64)
            #expect(response.image.pixelSize == PixelSize(width: 12, height: 8))
            #expect(response.image.data == png)
            #expect(pipeline.memoryCachedImage(for: ImageRequest(url: base64)) != nil)
            pipeline.diskCache?.flush()
            #expect(pipeline.diskCache?.entryCount == 0)

            let escaped = png.map { String(format: "%%%02X", $0) }.joined()
            let percent = try #require(URL(string: "data:," + escaped))
            #expect(try await pipeline.image(for: percent).image.data == png)
            #expect(fixture.server.requests(for: "").isEmpty)
        }
    }

    @Test("a data: URL is size-limited, and refused like a download when it is not an image")
    func refusals() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 64, height: 64, seed: 3)
            let pipeline = fixture.makePipeline { $0.maximumResponseBytes = 1_000 }
            let large = try #require(URL(string: "data:image/png;base64," + png.base64EncodedString()))
            await #expect { try await pipeline.image(for: large) } throws: { error in
                guard case .responseTooLarge(_, 1_000) = error as? ImagePipeline.Error else { return false }
                return true
            }
            let html = try #require(URL(string: "data:text/html,%3Chtml%3E"))
            await #expect { try await pipeline.image(for: html) } throws: { error in
                guard case .notAnImage(_, "text/html") = error as? ImagePipeline.Error else { return false }
                return true
            }
            let malformed = try #require(URL(string: "data:image/png;base64,%ZZ"))
            await #expect { try await pipeline.image(for: malformed) } throws: { error in
                guard case .invalidURL = error as? ImagePipeline.Error else { return false }
                return true
            }
            // Not allowed by the configuration: refused before anything is read.
            let disallowed = fixture.makePipeline { $0.allowedSchemes = ["https"] }
            let small = try #require(URL(string: "data:image/png;base64," + ImageFixtures.png(width: 2, height: 2).base64EncodedString()))
            await #expect(throws: ImagePipeline.Error.self) { try await disallowed.image(for: small) }
        }
    }

    @Test("a data: URL's media type selects a registered decoder")
    func mediaTypeSelectsDecoder() async throws {
        try await withScriptedFixture { fixture throws in
            let pipeline = fixture.makePipeline {
                $0.decoderRegistry.register(ToyDecoder(), name: "svg", mimeTypes: ["image/svg+xml"])
            }
            let url = try #require(URL(string: "data:image/svg+xml;charset=utf-8,TOY1%2030%2020"))
            #expect(try await pipeline.image(for: url).image.pixelSize == PixelSize(width: 30, height: 20))
        }
    }

    @Test("parsing: media type and parameters, base64 with whitespace and no padding, the size checked before decoding")
    func parsing() throws {
        let url = try #require(URL(string: "data:Image/GIF;name=x;base64,R0lG%20ODlh"))
        let parsed = try DataURL(url, maxBytes: nil)
        #expect(parsed.mediaType == "image/gif")
        #expect(parsed.data == Data("GIF89a".utf8))
        #expect(throws: DataURL.Failure.tooLarge) { try DataURL(url, maxBytes: 5) }
        #expect(throws: DataURL.Failure.malformed) { try DataURL(URL(string: "data:image/png")!, maxBytes: nil) }
        let comma = try DataURL(URL(string: "data:,a%2Cb")!, maxBytes: nil)
        #expect(comma.mediaType == nil)
        #expect(comma.data == Data("a,b".utf8))
    }
}
