import Foundation
import ImageFixtures
import LoopbackServer
@testable import CachedImageCore

/// A loopback server, a temporary cache directory and a clock: everything a pipeline
/// integration test needs. Call `tearDown()` at the end.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
struct PipelineFixture {
    let server: LoopbackServer
    let directory: URL
    let clock = ManualClock()

    static func start() async throws -> PipelineFixture {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CachedImageTests-\(UUID().uuidString)", isDirectory: true)
        return PipelineFixture(server: try await LoopbackServer.start(), directory: directory)
    }

    /// A pipeline over the fixture's directory and clock; each call is a "launch".
    func makePipeline(_ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        .forTests(directory: directory, clock: clock, configure)
    }

    /// Serves a real PNG at `path` and returns its bytes.
    @discardableResult
    func servePNG(
        _ path: String,
        width: Int = 64,
        height: Int = 48,
        seed: UInt64 = 1,
        headers: [String: String] = [:],
        latency: Duration = .zero
    ) -> Data {
        let png = ImageFixtures.png(width: width, height: height, seed: seed)
        server.serve(path, .ok(png, contentType: "image/png", headers: headers, latency: latency))
        return png
    }

    func url(_ path: String) -> URL { server.url(path) }

    func tearDown() async {
        await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
