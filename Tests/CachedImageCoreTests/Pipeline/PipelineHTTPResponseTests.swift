import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageFixtures
import Testing
@testable import CachedImageCore

/// `ImageResponse.httpResponse`: the response an image came from, as a cache presents it.
@Suite("Pipeline: the HTTP response behind an image")
struct PipelineHTTPResponseTests {
    @Test("network, memory, disk and relaunch present the stored fields; a cached one with its current Age")
    func presentedFromEverySource() async throws {
        try await withScriptedFixture { fixture throws in
            fixture.servePNG("/h.png", headers: [
                "Cache-Control": "max-age=3600", "X-Custom": "1", "Connection": "x-hop", "X-Hop": "dropped", "Age": "10",
            ])
            let pipeline = fixture.makePipeline()
            let url = fixture.url("/h.png")
            let network = try #require(try await pipeline.image(for: ImageRequest(url: url)).httpResponse)
            #expect(network.statusCode == 200)
            #expect(network.value(forHTTPHeaderField: "x-custom") == "1")
            #expect(network.value(forHTTPHeaderField: "Content-Type") == "image/png")
            #expect(network.value(forHTTPHeaderField: "X-Hop") == nil)
            #expect(network.value(forHTTPHeaderField: "Connection") == nil)
            #expect(network.value(forHTTPHeaderField: "Age") == "10")

            fixture.clock.advance(by: 95.5)
            let memory = try await pipeline.image(for: ImageRequest(url: url))
            #expect(memory.source == .memory)
            #expect(memory.httpResponse?.value(forHTTPHeaderField: "X-Custom") == "1")
            #expect(memory.httpResponse?.value(forHTTPHeaderField: "Age") == "105")

            let disk = try await pipeline.image(for: ImageRequest(url: url, options: .skipMemoryCache))
            #expect(disk.source == .disk)
            #expect(disk.httpResponse?.value(forHTTPHeaderField: "Age") == "105")

            let relaunched = try await fixture.makePipeline().image(for: ImageRequest(url: url))
            #expect(relaunched.source == .disk)
            #expect(relaunched.httpResponse?.value(forHTTPHeaderField: "X-Custom") == "1")
        }
    }

    @Test("field names match whatever the case of their ASCII letters, and nothing else; a stored Age in any case is replaced")
    func fieldNamesIgnoreASCIICase() {
        #expect(CachedHTTPResponse.isSameFieldName("Content-Type", "content-TYPE"))
        #expect(CachedHTTPResponse.isSameFieldName("ETag", "etag"))
        #expect(!CachedHTTPResponse.isSameFieldName("X-A", "X_A"))
        #expect(!CachedHTTPResponse.isSameFieldName("X@", "X`")) // 0x40 and 0x60 differ by the case bit, but are not letters
        #expect(!CachedHTTPResponse.isSameFieldName("Age", "Ages"))
        #expect(!CachedHTTPResponse.isSameFieldName("Äge", "äge")) // non-ASCII bytes compare exactly

        let stored = CachedHTTPResponse(statusCode: 200, headerFields: ["age": "3", "X-Kept": "k"])
        let presented = stored.withAge(41.9)
        #expect(presented.headerFields == ["Age": "41", "X-Kept": "k"])
        #expect(presented.value(forHTTPHeaderField: "AGE") == "41")
        #expect(stored.withAge(-1).headerFields["Age"] == "0")
    }

    @Test("a 304's fields update the stored ones, except Content-Length (RFC 9111 3.2, 4.3.4)")
    func notModifiedUpdatesTheFields() async throws {
        try await withScriptedFixture { fixture throws in
            let png = ImageFixtures.png(width: 64, height: 48, seed: 1)
            fixture.server.serve("/u.png") { sent in
                if sent.header("If-None-Match") == "\"u\"" {
                    return ScriptedResponse.status(304, headers: [
                        "ETag": "\"u\"", "Cache-Control": "max-age=7200", "x-custom": "2", "Content-Length": "5",
                    ])
                }
                return .ok(png, contentType: "image/png", headers: [
                    "ETag": "\"u\"", "Cache-Control": "max-age=60", "X-Custom": "1", "X-Kept": "k", "Content-Length": "\(png.count)",
                ])
            }
            let pipeline = fixture.makePipeline()
            let url = fixture.url("/u.png")
            _ = try await pipeline.image(for: ImageRequest(url: url))
            fixture.clock.advance(by: 120)
            let revalidated = try await pipeline.image(for: ImageRequest(url: url))
            #expect(revalidated.source == .revalidated)
            let http = try #require(revalidated.httpResponse)
            #expect(http.statusCode == 200)
            #expect(http.value(forHTTPHeaderField: "X-Custom") == "2")
            #expect(http.headerFields.keys.filter { $0.lowercased() == "x-custom" }.count == 1)
            #expect(http.value(forHTTPHeaderField: "X-Kept") == "k")
            #expect(http.value(forHTTPHeaderField: "Cache-Control") == "max-age=7200")
            #expect(http.value(forHTTPHeaderField: "Content-Length") == "\(png.count)")

            let disk = try await fixture.makePipeline().image(for: ImageRequest(url: url))
            #expect(disk.source == .disk)
            #expect(disk.httpResponse?.value(forHTTPHeaderField: "X-Custom") == "2")
        }
    }

    @Test("a file URL has no HTTP response")
    func fileURL() async throws {
        try await withScriptedFixture { fixture throws in
            let file = fixture.directory.deletingLastPathComponent().appendingPathComponent("h29-\(UUID().uuidString).png")
            try ImageFixtures.png(width: 4, height: 4, seed: 3).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let pipeline = fixture.makePipeline { $0.allowedSchemes.insert("file") }
            #expect(try await pipeline.image(for: ImageRequest(url: file)).httpResponse == nil)
        }
    }
}
