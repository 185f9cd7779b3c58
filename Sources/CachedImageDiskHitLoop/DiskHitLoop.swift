@_spi(Benchmarks) import CachedImageCore
import Foundation
import ImageFixtures
import ToolSupport

/// The disk hit and the relaunch, one operation at a time, over a prepared directory: what
/// `scripts/diskhit-guard.sh` counts instructions of, and what the `ratios` mode times.
///
/// `prepare` stores the photos and thumbnails in `DIR/cache` (a `DiskCache`) and the same bytes
/// as plain files in `DIR/documents`. The operations:
/// - `hit`: `pipeline.image(for:)` of a photo, memory cache off (every request a disk hit, 7a);
/// - `task`: `pipeline.imageTask(with:).response`, the same;
/// - `relaunch`: a new `ImagePipeline` on the directory, then its first `image(for:)` (7b);
/// - `firstframe`: a new `ImagePipeline`, then `firstFrameImage(for:)` of a thumbnail (the
///   synchronous read of a view's first frame after opening the cache);
/// - `screen`: a new `ImagePipeline` (memory cache on, as an app's) and a screen of 12 cells,
///   photos and thumbnails, loading together in a task group (7d, and the demo's relaunch);
/// - `documents` / `documentsthumb` / `documentsscreen`: the documents directory's bare read of
///   the same photo, thumbnail or screen of files and the same decode, the baselines of the
///   ratios;
/// - `create`: a new `ImagePipeline` on the directory and nothing else (what opening costs, to
///   profile).
///
/// Entries carry what a download stores: validators, a lifetime and the response's header fields.
struct DiskHitLoop: Sendable {
    static let photoCount = 16
    static let thumbnailCount = 16
    static let targetSize = PixelSize(width: 600, height: 600)
    static let operations = ["hit", "task", "relaunch", "firstframe", "screen", "documents", "documentsthumb", "documentsscreen", "create"]
    static let screenCells = 12

    let cacheDirectory: URL
    let documents: RawFileStore
    let decoder = HeaderImageDecoder()
    let photos = (0..<photoCount).map { URL(string: "https://images.example/feed/\($0).jpg")! }
    let thumbnails = (0..<thumbnailCount).map { URL(string: "https://images.example/users/\($0)/avatar.png")! }

    init(directory: URL) {
        cacheDirectory = directory.appendingPathComponent("cache")
        documents = RawFileStore(existingDirectory: directory.appendingPathComponent("documents"), writing: .inPlace)
    }

    /// The documents directory's file name for a URL (unique here, unlike the demo's last path
    /// component).
    static func fileName(_ url: URL) -> String { url.path.replacingOccurrences(of: "/", with: "_") }

    /// Runs `operation` number `index` (which image it reads follows from `index`) and returns
    /// the decoded width, so nothing is optimised away.
    func perform(_ operation: String, _ index: Int, on pipeline: ImagePipeline?) async throws -> Int {
        switch operation {
        case "hit", "task":
            guard let pipeline else { preconditionFailure("\(operation) reads through one pipeline") }
            let request = ImageRequest(url: photos[index % photos.count], targetPixelSize: Self.targetSize)
            let response = operation == "task" ? try await pipeline.imageTask(with: request).response : try await pipeline.image(for: request)
            precondition(response.source == .disk, "expected a disk hit, got \(response.source)")
            return response.image.pixelSize.width
        case "relaunch":
            let fresh = makePipeline(keepsImages: false)
            let response = try await fresh.image(for: ImageRequest(url: photos[(index * 7) % photos.count], targetPixelSize: Self.targetSize))
            precondition(response.source == .disk, "expected a disk hit, got \(response.source)")
            return response.image.pixelSize.width
        case "firstframe":
            let fresh = makePipeline(keepsImages: true)
            let response = fresh.firstFrameImage(for: ImageRequest(url: thumbnails[(index * 7) % thumbnails.count]))
            guard let response, response.source == .disk else { preconditionFailure("expected a first frame from disk") }
            return response.image.pixelSize.width
        case "screen", "documentsscreen":
            let fresh = operation == "screen" ? makePipeline(keepsImages: true) : nil
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for cell in screen(index) {
                    group.addTask {
                        guard let fresh else { return try documentsHit(cell).pixelSize.width }
                        let response = try await fresh.image(for: ImageRequest(url: cell, targetPixelSize: Self.targetSize))
                        precondition(response.source == .disk, "expected a disk hit, got \(response.source)")
                        return response.image.pixelSize.width
                    }
                }
                return try await group.reduce(0, &+)
            }
        case "create":
            return makePipeline(keepsImages: false).diskCache == nil ? 0 : 1
        case "documents":
            return try documentsHit(photos[(index * 7) % photos.count]).pixelSize.width
        case "documentsthumb":
            return try documentsHit(thumbnails[(index * 7) % thumbnails.count]).pixelSize.width
        default:
            preconditionFailure("unknown operation \(operation)")
        }
    }

    /// Screen number `index`: 12 cells, every other one a photo, each screen a different mix.
    func screen(_ index: Int) -> [URL] {
        (0..<Self.screenCells).map { cell in
            let image = index * 5 + cell
            return cell % 2 == 0 ? photos[image % photos.count] : thumbnails[image % thumbnails.count]
        }
    }

    /// `count` operations after one warm-up pass over the images, untimed.
    ///
    /// `hit` and `task` load the cache's index after the warm-up: a steady disk hit finds its
    /// entry in the index. Left to itself, the index would load at the cache's 64th read, inside
    /// the counted operations of a long run and not of a short one, and the guard's difference
    /// of two runs would count a share of the load.
    func loop(_ operation: String, count: Int) async throws -> Int {
        let pipeline = ["hit", "task"].contains(operation) ? makePipeline(keepsImages: false) : nil
        var checksum = 0
        for index in 0..<(Self.photoCount + count) {
            if index == Self.photoCount, let pipeline { Self.loadIndex(of: pipeline) }
            checksum &+= try await perform(operation, index, on: pipeline)
        }
        return checksum
    }

    /// Waits for `pipeline`'s disk cache to load its index, which must come from the snapshot
    /// `prepare` wrote.
    static func loadIndex(of pipeline: ImagePipeline) {
        precondition(pipeline.diskCache?.indexSource == .snapshot, "expected the index to load from the prepared snapshot")
    }

    /// A new pipeline on the cache directory; without a memory cache unless `keepsImages`.
    func makePipeline(keepsImages: Bool) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCacheDirectory = cacheDirectory
        if !keepsImages { configuration.memoryCacheCostLimit = 0 }
        configuration.decoder = decoder
        return ImagePipeline(configuration: configuration)
    }

    func documentsHit(_ url: URL) throws -> DecodedImage {
        let data = try documents.read(Self.fileName(url))
        guard let info = ImageInfo(data: data) else { throw CocoaError(.fileReadCorruptFile) }
        return try decoder.decode(data, info: info, targetPixelSize: Self.targetSize)
    }

    /// Stores the photos (JPEGs of about 400 KB, as in bench 7a) and the thumbnails (PNGs of
    /// about 28 KB, under the first frame's 64 KB limit) in the disk cache with the metadata a
    /// download keeps, and as plain files in the documents directory; writes the index snapshot.
    func prepare() throws -> String {
        let documents = try RawFileStore(directory: documents.directory, writing: .inPlace)
        let cache = try DiskCache(directory: cacheDirectory)
        let photoBodies = (0..<Self.photoCount).map { index in
            ImageFixtures.jpeg(width: 480 + (index % 4) * 160, height: 360 + (index % 3) * 120, seed: UInt64(index), detail: 24)
        }
        let thumbnailBodies = (0..<Self.thumbnailCount).map { ImageFixtures.png(width: 96, height: 96, seed: UInt64($0)) }
        for (urls, bodies, type) in [(photos, photoBodies, "image/jpeg"), (thumbnails, thumbnailBodies, "image/png")] {
            for (url, body) in zip(urls, bodies) {
                cache.store(body, metadata: Self.metadata(contentType: type, length: body.count), forKey: url.absoluteString)
                try documents.write(body, as: Self.fileName(url))
            }
        }
        cache.flush()
        func average(_ bodies: [Data]) -> Int { bodies.reduce(0) { $0 + $1.count } / bodies.count / 1024 }
        return "\(photoBodies.count) photos (\(average(photoBodies)) KB average), \(thumbnailBodies.count) thumbnails (\(average(thumbnailBodies)) KB average)\n"
            + "checksum: \(DiskCache.checksumImplementation)"
    }

    /// What the pipeline keeps of a response from an image server: validators, a year's
    /// lifetime, the response's header fields.
    static func metadata(contentType: String, length: Int) -> CachedResponseMetadata {
        let etag = "\"v1-\(length)\"", lastModified = "Wed, 25 Nov 2026 08:00:00 GMT"
        return CachedResponseMetadata(
            contentType: contentType, etag: etag, lastModified: lastModified, storedAt: Date(), freshnessLifetime: 365 * 86_400,
            response: CachedHTTPResponse(statusCode: 200, headerFields: [
                "Content-Type": contentType, "Content-Length": String(length), "ETag": etag, "Last-Modified": lastModified,
                "Cache-Control": "public, max-age=31536000", "Date": "Thu, 26 Nov 2026 08:00:00 GMT", "Server": "LoopbackServer",
            ])
        )
    }
}
