import Foundation
import Testing
@testable import CachedImageCore

/// `ImagePipeline.shared`: replaceable once at launch, thread-safe, read by whatever defaults to
/// it when that starts.
@Suite("ImagePipeline.shared: the app's pipeline")
struct SharedPipelineTests {
    /// Counts the default pipelines a slot makes.
    private final class Made: @unchecked Sendable {
        private let lock = NSLock()
        private var pipelines: [ImagePipeline] = []
        var count: Int { lock.withLock { pipelines.count } }
        var identifiers: Set<ObjectIdentifier> { lock.withLock { Set(pipelines.map(ObjectIdentifier.init)) } }
        func make() -> ImagePipeline {
            let pipeline = ImagePipeline(configuration: Self.memoryOnly)
            lock.withLock { pipelines.append(pipeline) }
            return pipeline
        }
        static var memoryOnly: ImagePipeline.Configuration {
            var configuration = ImagePipeline.Configuration()
            configuration.diskCacheDirectory = nil
            return configuration
        }
    }

    @Test("the default pipeline is made on the first read, once; a replacement set first means none is made")
    func defaultMadeLazilyOnce() {
        let made = Made()
        var slot = SharedPipeline(makeDefault: made.make)
        #expect(made.count == 0)
        let first = slot.pipeline
        #expect(slot.pipeline === first)
        #expect(made.count == 1)

        let appPipeline = ImagePipeline(configuration: Made.memoryOnly)
        var replacedAtLaunch = SharedPipeline(makeDefault: made.make)
        replacedAtLaunch.replace(with: appPipeline)
        #expect(replacedAtLaunch.pipeline === appPipeline)
        #expect(made.count == 1, "the default pipeline (and its disk cache) is never made")
    }

    @Test("reads and replacements from many threads at once: every read is one of the pipelines set, one default at most")
    func concurrentAccess() async {
        let made = Made()
        let slot = Locked(SharedPipeline(makeDefault: made.make))
        let replacements = (0..<4).map { _ in ImagePipeline(configuration: Made.memoryOnly) }
        let reads = await withTaskGroup(of: [ObjectIdentifier].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var seen: [ObjectIdentifier] = []
                    for step in 0..<200 {
                        if worker % 2 == 0, step % 50 == 0 {
                            slot.withLock { $0.replace(with: replacements[(worker + step) % replacements.count]) }
                        }
                        seen.append(ObjectIdentifier(slot.withLock { $0.pipeline }))
                    }
                    return seen
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(made.count <= 1)
        let known = Set(replacements.map(ObjectIdentifier.init)).union(made.identifiers)
        #expect(reads.count == 1_600)
        #expect(reads.allSatisfy(known.contains))
    }

    @Test("set at launch, it is what loaders and prefetchers given no pipeline use; one made before keeps its own")
    @MainActor
    func replacementIsTheDefault() {
        let original = ImagePipeline.shared
        defer { ImagePipeline.shared = original }
        let before = ImagePrefetcher()
        let appPipeline = ImagePipeline(configuration: Made.memoryOnly)
        ImagePipeline.shared = appPipeline
        #expect(ImagePipeline.shared === appPipeline)
        #expect(ImagePrefetcher().pipeline === appPipeline)
        #expect(ImageLoader().pipeline === appPipeline)
        #expect(before.pipeline === original, "read when it was made: replace the pipeline before the first image loads")
    }
}
