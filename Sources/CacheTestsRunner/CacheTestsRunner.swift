import CachedImageCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// `cachedimage-cache-tests`: the client side of the public HTTP caching test suite
// (http-tests/cache-tests) for `ImagePipeline`, driven by `scripts/cache-tests/run.mjs`.
//
// It reads one JSON command per line on standard input and answers each with one JSON line on
// standard output, in any order (commands run concurrently):
//
//     {"id": 1, "test": "<uuid>", "url": "http://...", "method": "GET", "headers": [["A", "1"]], "cache": "default"}
//     {"id": 1, "status": 200, "headers": {...}, "body": "<text>", "source": "disk"}
//
// Every test gets its own default pipeline (a new disk cache directory, the default memory
// cache), used only through the public API: `image(for:)` and `ImageResponse.httpResponse`.
// The origin wraps each body in a tiny PNG (a private `bdYx` chunk holds the original bytes),
// which this runner unwraps. `{"id": n, "done": "<uuid>"}` releases a test's pipeline.

struct Command: Decodable {
    var id: Int
    var test: String?
    var url: String?
    var method: String?
    var headers: [[String]]?
    var cache: String?
    var done: String?
}

struct Reply: Encodable {
    var id: Int
    var status: Int?
    var headers: [String: String]?
    var body: String?
    var source: String?
    var error: String?
}

/// One pipeline per test, each over its own temporary directory.
final class Pipelines: Sendable {
    private let pipelines = Mutex()
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cache-tests-\(ProcessInfo.processInfo.processIdentifier)")

    func pipeline(for test: String) -> ImagePipeline {
        pipelines.withLock { pipelines in
            if let pipeline = pipelines[test] { return pipeline }
            var configuration = ImagePipeline.Configuration()
            configuration.diskCacheDirectory = root.appendingPathComponent(test)
            let pipeline = ImagePipeline(configuration: configuration)
            pipelines[test] = pipeline
            return pipeline
        }
    }

    func release(_ test: String) {
        _ = pipelines.withLock { $0.removeValue(forKey: test) }
    }
}

/// A dictionary behind an `NSLock` (the runner needs nothing finer).
final class Mutex: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [String: ImagePipeline] = [:]

    func withLock<T>(_ body: (inout [String: ImagePipeline]) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Writes one reply line; lines never interleave.
enum Output {
    static let lock = NSLock()

    static func send(_ reply: Reply) {
        let data = (try? JSONEncoder().encode(reply)) ?? Data("{\"id\":\(reply.id),\"error\":\"encoding\"}".utf8)
        lock.lock()
        FileHandle.standardOutput.write(data + Data("\n".utf8))
        lock.unlock()
    }
}

/// The original body the origin wrapped in the PNG's `bdYx` chunk.
func unwrappedBody(_ png: Data?) -> String {
    guard let png else { return "" }
    let bytes = [UInt8](png)
    var index = 8
    while index + 8 <= bytes.count {
        let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
        let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
        let start = index + 8
        guard start + length <= bytes.count else { break }
        if type == "bdYx" { return String(decoding: bytes[start..<(start + length)], as: UTF8.self) }
        index = start + length + 4
    }
    return ""
}

/// `fetch`'s cache modes as the pipeline's public request options.
func apply(cacheMode: String?, to request: inout ImageRequest) {
    switch cacheMode {
    case "no-store": request.options.formUnion([.skipMemoryCache, .skipDiskCache])
    case "reload": request.urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
    case "no-cache": request.urlRequest.cachePolicy = .reloadRevalidatingCacheData
    case "force-cache": request.urlRequest.cachePolicy = .returnCacheDataElseLoad
    case "only-if-cached": request.urlRequest.cachePolicy = .returnCacheDataDontLoad
    default: break
    }
}

func run(_ command: Command, pipelines: Pipelines) async -> Reply {
    guard let test = command.test, let url = command.url.flatMap(URL.init(string:)) else {
        return Reply(id: command.id, error: "bad command")
    }
    var urlRequest = URLRequest(url: url)
    urlRequest.httpMethod = command.method ?? "GET"
    for pair in command.headers ?? [] where pair.count == 2 {
        urlRequest.addValue(pair[1], forHTTPHeaderField: pair[0])
    }
    var request = ImageRequest(urlRequest: urlRequest)
    apply(cacheMode: command.cache, to: &request)
    do {
        let response = try await pipelines.pipeline(for: test).image(for: request)
        return Reply(
            id: command.id,
            status: response.httpResponse?.statusCode ?? 200,
            headers: response.httpResponse?.headerFields ?? [:],
            body: unwrappedBody(response.image.data),
            source: response.source.rawValue
        )
    } catch ImagePipeline.Error.badStatusCode(_, let status) {
        return Reply(id: command.id, status: status, headers: [:], body: "", source: "network")
    } catch ImagePipeline.Error.notCached {
        // What a cache answers to `only-if-cached` without a stored response (RFC 9111 5.2.1.7).
        return Reply(id: command.id, status: 504, headers: [:], body: "", source: "none")
    } catch {
        return Reply(id: command.id, error: String(describing: error))
    }
}

@main
struct CacheTestsRunner {
    static func main() async {
        let pipelines = Pipelines()
        let decoder = JSONDecoder()
        await withTaskGroup(of: Void.self) { group in
            while let line = readLine() {
                guard let command = try? decoder.decode(Command.self, from: Data(line.utf8)) else { continue }
                if let done = command.done {
                    pipelines.release(done)
                    Output.send(Reply(id: command.id))
                    continue
                }
                group.addTask { Output.send(await run(command, pipelines: pipelines)) }
            }
        }
        try? FileManager.default.removeItem(at: pipelines.root)
    }
}
