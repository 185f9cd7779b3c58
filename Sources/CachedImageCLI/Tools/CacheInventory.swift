import Foundation
import CachedImageCore

/// `cachedimage stats`: what a cache directory holds: entries, sizes, ages, staleness, types.
struct CacheInventory: Sendable, Hashable, Codable {
    /// Entries and bytes of one content type.
    struct TypeCount: Sendable, Hashable, Codable {
        var contentType: String
        var entries: Int
        var bytes: Int
    }

    var directory: String
    var entries: Int
    /// Image bytes (bodies only).
    var imageBytes: Int
    /// Bytes the entry files take (headers included): what counts against the size limit.
    var fileBytes: Int
    /// When the oldest and newest entries were downloaded (or last revalidated).
    var oldestStored: Date?
    var newestStored: Date?
    /// Entries past their freshness lifetime: the next use revalidates or downloads them again.
    var staleEntries: Int
    /// Largest byte count first.
    var byContentType: [TypeCount]

    /// Reads the cache in `directory` (which must exist), judging staleness at `now` with the
    /// pipeline's default heuristic for responses without explicit freshness.
    static func read(directory: URL, now: Date = Date(), heuristic: HeuristicFreshness = CacheInventory.defaultHeuristic) throws -> CacheInventory {
        let cache = try CacheLocation.openExisting(directory)
        let infos = cache.allEntries()
        var types: [String: TypeCount] = [:]
        for info in infos {
            let type = info.metadata.contentType.map(Self.mediaType) ?? "unknown"
            types[type, default: TypeCount(contentType: type, entries: 0, bytes: 0)].entries += 1
            types[type]?.bytes += info.byteCount
        }
        return CacheInventory(
            directory: cache.directory.path,
            entries: infos.count,
            imageBytes: infos.reduce(0) { $0 + $1.byteCount },
            fileBytes: cache.totalSize,
            oldestStored: infos.map(\.metadata.storedAt).min(),
            newestStored: infos.map(\.metadata.storedAt).max(),
            staleEntries: infos.filter { !$0.metadata.isFresh(at: now, heuristic: heuristic) }.count,
            byContentType: types.values.sorted { ($0.bytes, $1.contentType) > ($1.bytes, $0.contentType) }
        )
    }

    /// How the pipeline judges responses without explicit freshness, by default.
    static var defaultHeuristic: HeuristicFreshness {
        if case .http(let heuristic) = ImagePipeline.Configuration().freshnessPolicy { return heuristic }
        return .default
    }

    /// `image/jpeg; charset=x` → `image/jpeg`.
    private static func mediaType(_ contentType: String) -> String {
        contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? contentType
    }

    /// The human-readable report.
    func render(now: Date = Date()) -> String {
        var lines = ["Cache:    \(directory)"]
        lines.append("Entries:  \(Formatting.count(entries)) (\(Formatting.bytes(imageBytes)) of images, \(Formatting.bytes(fileBytes)) on disk)")
        if let oldestStored, let newestStored {
            lines.append("Oldest:   \(Formatting.date(oldestStored)) (\(Formatting.age(now.timeIntervalSince(oldestStored))) ago)")
            lines.append("Newest:   \(Formatting.date(newestStored)) (\(Formatting.age(now.timeIntervalSince(newestStored))) ago)")
        }
        lines.append("Stale:    \(Formatting.count(staleEntries)) of \(Formatting.count(entries)) (revalidated or downloaded again on next use)")
        if !byContentType.isEmpty {
            lines.append("By type:")
            let width = byContentType.map(\.contentType.count).max() ?? 0
            for type in byContentType {
                let count = Formatting.count(type.entries)
                lines.append("  \(type.contentType.padding(toLength: width, withPad: " ", startingAt: 0))  "
                    + String(repeating: " ", count: max(0, 7 - count.count)) + count + "  " + Formatting.bytes(type.bytes))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
