import Foundation
import ImageFixtures
@testable import CachedImageCore

/// Everything a pipeline or view-model unit test needs, with no server: a ``ScriptedServer`` as
/// the pipeline's data loader, a temporary cache directory and a manual clock. Use it through
/// ``withScriptedFixture(_:)``, which always removes the directory, even when the test throws.
struct ScriptedFixture: Sendable {
    let server = ScriptedServer()
    let directory: URL
    let clock = ManualClock()

    init() {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CachedImageUnitTests-\(UUID().uuidString)", isDirectory: true)
    }

    /// A pipeline over the fixture's loader, directory and clock; each call is a "launch".
    func makePipeline(_ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        .forTests(directory: directory, clock: clock, dataLoader: server, configure)
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

    /// Serves a real PNG at `path` that is sent only once `gate` opens, and returns its bytes.
    @discardableResult
    func serveHeldPNG(_ path: String, until gate: Gate) -> Data {
        let png = ImageFixtures.png(width: 64, height: 48, seed: 1)
        server.serve(path) { _ in
            await gate.wait()
            return .ok(png, contentType: "image/png")
        }
        return png
    }

    func url(_ path: String) -> URL { server.url(path) }
}

/// Runs `body` with a new ``ScriptedFixture`` and removes its cache directory afterwards,
/// whether `body` returns or throws.
func withScriptedFixture<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (ScriptedFixture) async throws -> T
) async throws -> T {
    let fixture = ScriptedFixture()
    defer {
        // A cache still open there (its pipeline kept alive a moment longer by a task) finishes
        // its queued work first: otherwise its index load or snapshot write recreates the
        // directory after it is removed.
        if let cache = try? DiskCache.shared(directory: fixture.directory) { cache.flush() }
        try? FileManager.default.removeItem(at: fixture.directory)
    }
    return try await body(fixture)
}
