import Foundation
import LoopbackServer
import ToolSupport

/// What ``DemoRunner`` measures across approaches: the like-for-like disk views, disk use and
/// budgets, the fling.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
extension DemoRunner {
    /// The views for a like-for-like comparison of disk reads: those CachedImage served from its
    /// disk cache where every approach showed the server's current bytes. Each approach's own disk
    /// row counts different views (CachedImage reads its disk only when its memory cache misses),
    /// and a view where an approach showed an older version or another URL's file (the documents
    /// directory's shared file names) read other bytes. `nil` when CachedImage did not run.
    static func sameBytesDiskViews(_ samples: [DemoApproach: Samples]) -> [ViewID]? {
        guard let reference = samples[.cachedImage]?.byView else { return nil }
        return reference.compactMap { id, sample in
            guard sample.source == .disk else { return nil }
            let sameBytes = samples.values.allSatisfy { other in
                other.byView[id].map { $0.source != .failed && $0.verdict == .current } ?? false
            }
            return sameBytes ? id : nil
        }
    }

    /// Latency percentiles of `samples` on `views`.
    static func latency(of samples: [ViewID: SessionReplayer.Sample], on views: [ViewID]) -> LatencySummary? {
        LatencySummary(views.compactMap { samples[$0]?.latency })
    }

    /// The disk budget `approach` enforces, in bytes; `nil` when it has none.
    func diskBudget(_ approach: DemoApproach, context: Context) -> Int? {
        switch approach {
        case .cachedImage: context.options.diskLimit
        case .asyncImage: context.urlCacheDisk
        case .documentsDirectory: nil
        case .nsCache: 0
        }
    }

    /// Bytes of the regular files under `directory` (what the approach left on disk).
    static func diskUsage(of directory: URL) -> Int {
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else {
            return 0
        }
        var total = 0
        for case let file as URL in files {
            let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values?.isRegularFile == true { total += values?.fileSize ?? 0 }
        }
        return total
    }

    func log(_ line: String) {
        if showsProgress { StandardError.line(line) }
    }

    /// The fling for `approach`: a new client over an empty directory of its own, the
    /// ``FlingSession`` replayed frame by frame; `nil` when ``DemoOptions/flingRows`` is 0.
    /// On the demo's link, or on `link` with no server latency but the link's (the demo's link
    /// comes back afterwards).
    func runFling(_ approach: DemoApproach, context: Context, on link: LinkProfile? = nil) async throws -> FlingReport? {
        guard options.flingRows > 0 else { return nil }
        let server = context.server
        let demoLink = server.link
        if let link { server.setLink(link, latency: .zero) }
        defer { if link != nil { server.setLink(demoLink.profile, latency: demoLink.latency) } }
        let directory = context.root.appendingPathComponent("\(approach.rawValue)-fling", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CLIError("could not create the fling's cache directory \(directory.path): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let decodes = DecodeCounter()
        let client = makeClient(approach, context: context, directory: directory, decodes: decodes)
        let session = FlingSession(
            imageCount: options.imageCount, columns: options.columns, visibleRows: options.visibleRows, rows: options.flingRows
        )
        let replayer = FlingReplayer(server: server, cellPixels: options.cellPixels, link: server.link.profile)
        let linkBytesBefore = server.linkBytes
        let report = await replayer.replay(session, client: client, decodes: decodes)
        await client.endLaunch()
        if link != nil { log("    the link carried \(Formatting.bytes(server.linkBytes - linkBytesBefore))") }
        let complete = report.stopToComplete.map { Formatting.duration($0) } ?? "never"
        log("  \(approach.title.padding(toLength: 16, withPad: " ", startingAt: 0)) fling (\(report.link)): \(Formatting.count(report.appearances)) views, "
            + "\(Formatting.count(report.requests)) requests, \(Formatting.bytes(report.bytesDownloaded)), stop screen complete after \(complete) "
            + "(limit \(Formatting.duration(report.physicalLimit))), \(Formatting.bytes(report.peakDecodedBytes)) decoded at most")
        return report
    }
}
