import Foundation
import Testing
@testable import CachedImageCore

/// Checks shared by the reliability suites.
enum ReliabilityChecks {
    /// After pending writes land, the disk cache is either empty (`expected == nil`) or holds
    /// exactly one entry, under `key`, whose bytes are `expected`: never a poisoned entry.
    static func expectDisk(
        of pipeline: ImagePipeline,
        key: String,
        holds expected: Data?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let diskCache = pipeline.diskCache else {
            Issue.record("the pipeline has no disk cache", sourceLocation: sourceLocation)
            return
        }
        diskCache.flush()
        if let expected {
            #expect(diskCache.entryCount == 1, sourceLocation: sourceLocation)
            #expect(diskCache.entry(forKey: key)?.data == expected, sourceLocation: sourceLocation)
        } else {
            #expect(diskCache.entryCount == 0, sourceLocation: sourceLocation)
            #expect(diskCache.totalSize == 0, sourceLocation: sourceLocation)
        }
        #expect(diskCache.totalSize == sizeOfEntryFiles(in: diskCache.directory), sourceLocation: sourceLocation)
    }

    /// The summed size of the entry files (hash-named) directly in `directory`.
    static func sizeOfEntryFiles(in directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter(KeyHasher.isFileName).reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
        }
    }
}

/// A retry sleeper that records each requested delay and returns at once (no real waiting).
final class RecordingSleeper: Sendable {
    private let delays = Locked<[TimeInterval]>([])

    var recorded: [TimeInterval] { delays.withLock { $0 } }

    var sleep: @Sendable (TimeInterval) async throws -> Void {
        { [delays] seconds in
            delays.withLock { $0.append(seconds) }
            try Task.checkCancellation()
        }
    }
}
