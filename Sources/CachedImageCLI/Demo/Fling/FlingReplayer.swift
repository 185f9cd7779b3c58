import Foundation
import LoopbackServer

/// Plays a ``FlingSession`` against one client in real time, one frame every 16 ms: cells
/// appear and disappear as the grid moves; then waits until every load has ended. Measures the
/// requests and bytes the server saw, loads that finished after their view had left, and the
/// decoded bytes alive at once (sampled every frame).
@available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
struct FlingReplayer: Sendable {
    let server: FeedServer
    let cellPixels: Int
    /// The link the server emulates during the fling.
    var link = LinkProfile.loopback
    /// The real time between frames.
    var frameInterval: Duration = .milliseconds(16)
    /// The longest wait for loads to end after the last frame.
    var drainLimit: Duration = .seconds(60)

    @MainActor
    func replay(_ session: FlingSession, client: any DemoClient, decodes: DecodeCounter) async -> FlingReport {
        let requestsBefore = server.totalRequestCount
        let bytesBefore = server.bytesSent
        var views: [Int: any FlingView] = [:]
        var peak = 0
        func sample() {
            let held = views.values.reduce(0) { $0 + ($1.heldImageIsCached ? 0 : $1.heldBytes) }
            peak = max(peak, client.decodedCacheBytes + decodes.inFlightBytes + held)
        }
        let scrollBackImages = Set(session.frames[min(session.scrollBackStart, session.frames.count)...].flatMap(\.appeared))
        var scrollBackRequestsBefore: [Int: Int] = [:]
        var stop = ContinuousClock.now
        for (index, frame) in session.frames.enumerated() {
            if index == session.scrollBackStart {
                for image in scrollBackImages { scrollBackRequestsBefore[image] = server.requestCount(for: server.feed.images[image]) }
            }
            for image in frame.disappeared {
                views[image]?.disappear()
            }
            for image in frame.appeared {
                let view = views[image] ?? {
                    let feedImage = server.feed.images[image]
                    let view = client.makeFlingView(feedImage, url: server.url(for: feedImage), cellPixels: cellPixels)
                    views[image] = view
                    return view
                }()
                view.appear()
            }
            stop = .now // the user stops on the last frame
            sample()
            try? await Task.sleep(for: frameInterval)
            sample()
        }
        let clock = ContinuousClock()
        let deadline = clock.now + drainLimit
        while views.values.contains(where: \.isLoading), clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
            sample()
        }
        sample()
        let scrollBackRequests = scrollBackImages.reduce(0) { total, image in
            total + server.requestCount(for: server.feed.images[image]) - (scrollBackRequestsBefore[image] ?? 0)
        }
        let stopScreenBytes = session.finalScreen.reduce(0) { $0 + server.current($1).data.count }
        let shownAfterStop = session.finalScreen.map { image in
            views[image]?.shownSince.map { max(0, ($0 - stop).seconds) }
        }
        return FlingReport(
            requests: server.totalRequestCount - requestsBefore,
            bytesDownloaded: server.bytesSent - bytesBefore,
            completedAfterLeaving: views.values.reduce(0) { $0 + $1.completedAfterLeaving },
            peakDecodedBytes: peak,
            appearances: session.appearances,
            scrollBackRequests: scrollBackRequests,
            finalScreenShown: session.finalScreen.filter { views[$0]?.showsImage ?? false }.count,
            finalScreen: session.finalScreen.count,
            link: link.name,
            stopScreenBytes: stopScreenBytes,
            stopToFirstImage: shownAfterStop.compactMap { $0 }.min(),
            stopToHalf: Self.time(untilShown: (shownAfterStop.count + 1) / 2, of: shownAfterStop),
            stopToComplete: shownAfterStop.contains(nil) ? nil : shownAfterStop.compactMap { $0 }.max(),
            physicalLimit: link.transferTime(ofBytes: stopScreenBytes).seconds
        )
    }

    /// When `count` of the cells had shown their image (`times`: each cell's, `nil` for never);
    /// `nil` when fewer ever did.
    static func time(untilShown count: Int, of times: [Double?]) -> Double? {
        let shown = times.compactMap { $0 }.sorted()
        guard count > 0, shown.count >= count else { return count == 0 ? 0 : nil }
        return shown[count - 1]
    }
}
