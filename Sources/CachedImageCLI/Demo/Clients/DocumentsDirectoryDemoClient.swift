import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ToolSupport

/// The "save it to the documents directory" approach: a file named after the URL's last path
/// component is read when it exists; otherwise the image is downloaded (no `URLCache`) and
/// written there. No memory cache, no expiry, no size limit.
final class DocumentsDirectoryDemoClient: DemoClient {
    private let files: RawFileStore
    private let session: URLSession
    private let cellPixels: Int
    private let decodes: DecodeCounter

    init(directory: URL, cellPixels: Int, decodes: DecodeCounter) {
        self.decodes = decodes
        self.files = RawFileStore(existingDirectory: directory, writing: .inPlace)
        self.session = URLSession(configuration: NaiveSession.configuration())
        self.cellPixels = cellPixels
    }

    func load(_ image: FeedImage, url: URL) async -> Shown {
        let file = url.lastPathComponent
        if let data = try? files.read(file) {
            guard let decoded = try? DemoDecoder.decode(data, cellPixels: cellPixels, counter: decodes) else { return .failed }
            return Shown(source: .disk, data: decoded.data)
        }
        do {
            let (data, response) = try await session.cancellableData(for: URLRequest(url: url))
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { return .failed }
            try files.write(data, as: file)
            let decoded = try DemoDecoder.decode(data, cellPixels: cellPixels, counter: decodes)
            return Shown(source: .network, data: decoded.data)
        } catch {
            return .failed
        }
    }

    func endLaunch() async {
        session.finishTasksAndInvalidate()
    }
}
