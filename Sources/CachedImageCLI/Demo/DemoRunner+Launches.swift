import Foundation
import ToolSupport

/// The launches of ``DemoRunner``: a new client per launch, the phases it replays, what they
/// measured.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
extension DemoRunner {

    struct Context: Sendable {
        var server: FeedServer
        var options: DemoOptions
        var root: URL
        var urlCacheMemory: Int
        var urlCacheDisk: Int
        var clock: DemoClock
        let decodes = Protected<[DemoApproach: DecodeCounter]>([:])

        func decodeCounter(for approach: DemoApproach) -> DecodeCounter {
            decodes.withLock { counters in
                if let counter = counters[approach] { return counter }
                let counter = DecodeCounter()
                counters[approach] = counter
                return counter
            }
        }

        func directory(for approach: DemoApproach) -> URL {
            root.appendingPathComponent(approach.rawValue, isDirectory: true)
        }
    }

    func createDirectories(root: URL) throws {
        for approach in approaches {
            let directory = root.appendingPathComponent(approach.rawValue, isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw CLIError("could not create the demo's cache directory \(directory.path): \(error.localizedDescription)")
            }
        }
    }

    /// One phase of a launch: the steps it replays (image indices), and the week's day.
    struct Part {
        var phase: DemoPhase
        var steps: [[Int]]
        var day: Int?

        init(_ phase: DemoPhase, _ steps: [[Int]], day: Int? = nil) {
            self.phase = phase
            self.steps = steps
            self.day = day
        }
    }

    /// A view's place in the whole run: the same for every approach.
    struct ViewID: Hashable {
        var phase: DemoPhase
        var day: Int?
        var view: Int
    }

    /// What an approach's views measured in the phases with the server up: latencies by where
    /// the image came from, and each view's sample (to compare approaches on the same views).
    struct Samples {
        var bySource: [LoadSource: [Double]] = [:]
        var byView: [ViewID: SessionReplayer.Sample] = [:]
    }

    /// One process lifetime: a new client over the approach's directory, the given phases, then
    /// the client persists what it must and goes away.
    func runLaunch(
        _ approach: DemoApproach,
        parts: [Part],
        context: Context,
        samples: inout Samples
    ) async throws -> [PhaseReport] {
        let launchStart = MonotonicTime.now()
        let client = makeClient(approach, context: context)
        var reports: [PhaseReport] = []
        for part in parts {
            let phase = part.phase
            let steps = part.steps
            let phaseTitle = part.day.map { "\(phase == .week ? "week" : "week offline"), day \($0)" } ?? phase.title
            let total = steps.reduce(0) { $0 + $1.count }
            let bar = ProgressBar(
                label: "\(approach.title.padding(toLength: 16, withPad: " ", startingAt: 0)) \(phaseTitle)",
                total: total, isEnabled: showsProgress && StandardError.isTerminal
            )
            let requestsBefore = context.server.totalRequestCount
            let bytesBefore = context.server.bytesSent
            let conditionalBefore = context.server.conditionalCounts
            let decodesBefore = context.decodeCounter(for: approach).snapshot
            let phaseStart = MonotonicTime.now()
            let results = await SessionReplayer(server: context.server).replay(steps, client: client) { done in
                bar.update(completed: done)
            }
            let phaseEnd = MonotonicTime.now()
            bar.finish()

            var counts: [LoadSource: Int] = [:]
            var outdated = 0
            var wrong = 0
            var staleShown = 0
            for sample in results {
                if sample.staleFirst { staleShown += 1 }
                counts[sample.source, default: 0] += 1
                if sample.verdict == .outdated { outdated += 1 }
                if sample.verdict == .wrong { wrong += 1 }
                if !phase.isOffline {
                    samples.bySource[sample.source, default: []].append(sample.latency)
                    samples.byView[ViewID(phase: phase, day: part.day, view: sample.view)] = sample
                }
            }
            let firstShown = results.filter { $0.source != .failed }.map(\.finishedAt).min()
            let report = PhaseReport(
                phase: phase,
                day: part.day,
                views: results.count,
                memoryHits: counts[.memory] ?? 0,
                diskHits: counts[.disk] ?? 0,
                networkLoads: counts[.network] ?? 0,
                failures: counts[.failed] ?? 0,
                networkRequests: context.server.totalRequestCount - requestsBefore,
                bytesDownloaded: context.server.bytesSent - bytesBefore,
                timeToFirstImage: phase.startsLaunch ? firstShown.map { $0 - launchStart } : nil,
                duration: phaseEnd - phaseStart,
                outdatedShown: outdated,
                wrongShown: wrong,
                staleShown: staleShown,
                conditionalRequests: context.server.conditionalCounts.conditional - conditionalBefore.conditional,
                notModified: context.server.conditionalCounts.notModified - conditionalBefore.notModified,
                decodes: context.decodeCounter(for: approach).snapshot.count - decodesBefore.count,
                decodedBytes: context.decodeCounter(for: approach).snapshot.bytes - decodesBefore.bytes
            )
            reports.append(report)
            log("  \(approach.title.padding(toLength: 16, withPad: " ", startingAt: 0)) \(phaseTitle.padding(toLength: 28, withPad: " ", startingAt: 0)) "
                + "\(Formatting.count(report.views)) views, \(Formatting.count(report.networkRequests)) requests, "
                + "\(report.failures > 0 ? "\(Formatting.count(report.failures)) not shown, " : "")\(Formatting.duration(report.duration))")
        }
        await client.endLaunch()
        return reports
    }

    /// Times to the first image of ``DemoOptions/relaunchProbes`` more relaunches that show only
    /// the first screen: each a new client over a copy of the approach's directory (so the
    /// session's own caches, counts and decodes are left as they were), as one relaunch is a
    /// single, noisy sample.
    func relaunchProbes(_ approach: DemoApproach, firstScreen: [Int], context: Context) async throws -> [Double] {
        guard options.relaunchProbes > 0, !firstScreen.isEmpty else { return [] }
        let copy = context.root.appendingPathComponent("\(approach.rawValue)-relaunch-probes", isDirectory: true)
        try? FileManager.default.removeItem(at: copy)
        do {
            try FileManager.default.copyItem(at: context.directory(for: approach), to: copy)
        } catch {
            throw CLIError("could not copy the demo's cache directory for the relaunch probes: \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: copy) }
        var times: [Double] = []
        for _ in 0..<options.relaunchProbes {
            let launchStart = MonotonicTime.now()
            let client = makeClient(approach, context: context, directory: copy, decodes: DecodeCounter())
            let results = await SessionReplayer(server: context.server).replay([firstScreen], client: client) { _ in }
            if let first = results.filter({ $0.source != .failed }).map(\.finishedAt).min() {
                times.append(first - launchStart)
            }
            await client.endLaunch()
        }
        return times
    }

    func makeClient(
        _ approach: DemoApproach,
        context: Context,
        directory: URL? = nil,
        decodes: DecodeCounter? = nil
    ) -> any DemoClient {
        let directory = directory ?? context.directory(for: approach)
        let decodes = decodes ?? context.decodeCounter(for: approach)
        switch approach {
        case .cachedImage:
            return PipelineDemoClient(
                directory: directory, options: context.options, link: context.server.link.profile, clock: context.clock,
                decodes: decodes
            )
        case .asyncImage:
            return URLCacheDemoClient(
                directory: directory, memoryCapacity: context.urlCacheMemory, diskCapacity: context.urlCacheDisk,
                server: context.server, cellPixels: context.options.cellPixels, clock: context.clock,
                decodes: decodes
            )
        case .documentsDirectory:
            return DocumentsDirectoryDemoClient(
                directory: directory, cellPixels: context.options.cellPixels, decodes: decodes
            )
        case .nsCache:
            return NSCacheDemoClient(
                memoryLimit: context.options.memoryLimit, cellPixels: context.options.cellPixels,
                decodes: decodes
            )
        }
    }
}
