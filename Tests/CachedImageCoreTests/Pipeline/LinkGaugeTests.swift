import Foundation
import Testing
@testable import CachedImageCore

/// The link rule on timelines of its own (issue 51): what the transfers say about the link, how
/// many downloads it needs, which count and which step aside. Times are the gauge's inputs.
@Suite("LinkGauge: the link measured from the transfers")
struct LinkGaugeTests {
    /// Feeds `transfers` bodies arriving together at `rate` bytes per second (shared equally) from
    /// `start` for `seconds`, in steps of `step`; each was sent `roundTrip` before `start`.
    private func share(
        _ gauge: inout LinkGauge, ids: [Int], rate: Double, roundTrip: TimeInterval,
        length: Int, start: TimeInterval, seconds: TimeInterval, step: TimeInterval = 0.01
    ) {
        for id in ids {
            gauge.sent(id, conditional: false, at: start - roundTrip)
            gauge.head(id, status: 200, expectedLength: length, at: start)
        }
        var now = start
        while now < start + seconds - step / 2 {
            now += step
            for id in ids { gauge.received(Int(rate * step / Double(ids.count)), of: id, at: now) }
        }
    }

    @Test("a throughput-bound link (3G: 97.5 KB/s, 200 ms) needs two downloads; a latency-bound one (LTE) holds none back")
    func concurrencyFollowsTheLink() {
        var slow = LinkGauge()
        #expect(slow.concurrency(maximum: 12) == nil, "nothing measured: the queue's maximum")
        share(&slow, ids: Array(0..<12), rate: 97_500, roundTrip: 0.2, length: 100_000, start: 0.2, seconds: 0.8)
        #expect(slow.concurrency(maximum: 12) == 2)
        #expect(slow.counts(0, at: 1.0), "an image of 100 KB holds a 3G link for many round trips")

        var fast = LinkGauge()
        share(&fast, ids: Array(0..<12), rate: 6_250_000, roundTrip: 0.1, length: 100_000, start: 0.1, seconds: 0.7)
        #expect((fast.concurrency(maximum: 12) ?? 0) >= 7, "LTE carries 625 KB a round trip: several images in flight")
        var lte = LinkGauge()
        share(&lte, ids: Array(0..<4), rate: 6_250_000, roundTrip: 0.1, length: 5_000_000, start: 0.1, seconds: 0.7)
        lte.sent(10, conditional: false, at: 0.8)
        lte.head(10, status: 200, expectedLength: 100_000, at: 0.9)
        #expect(!lte.counts(10, at: 0.9), "an image the link carries within a round trip never holds the queue back")
    }

    @Test("transfers held back by the server (a link with room they do not take) raise the concurrency back; a faster transfer lifts the ceiling")
    func serverLimitedTransfersRaiseTheConcurrency() {
        var gauge = LinkGauge()
        // Twelve responses at 30 KB/s each (the server's pace) on a fast link: 360 KB/s in all,
        // which the gauge first takes for the link.
        share(&gauge, ids: Array(0..<12), rate: 360_000, roundTrip: 0.1, length: 1_000_000, start: 0.1, seconds: 0.8)
        #expect(gauge.concurrency(maximum: 12) == 2, "360 KB/s and 100 ms: two of these images fill it")
        for id in 0..<12 { gauge.ended(id, complete: false, at: 0.9) }
        // Two of them again: 60 KB/s, far below the 360 KB/s the link carried.
        share(&gauge, ids: [20, 21], rate: 60_000, roundTrip: 0.1, length: 1_000_000, start: 1.0, seconds: 0.8)
        #expect(abs((gauge.transferCeiling ?? 0) - 30_000) < 100, "30 KB/s each")
        #expect(gauge.concurrency(maximum: 12) == 12, "as many as the capacity takes at 30 KB/s each")
        // The same two now get 200 KB/s each: not held back at 30 KB/s.
        for id in [20, 21] { gauge.ended(id, complete: false, at: 1.8) }
        share(&gauge, ids: [30, 31], rate: 400_000, roundTrip: 0.1, length: 1_000_000, start: 1.9, seconds: 0.8)
        #expect(gauge.transferCeiling == nil)
        #expect(gauge.concurrency(maximum: 12) == 2)
    }

    @Test("TCP slow start (a rate doubling every round trip) is not taken for a slow link")
    func slowStartIsNotMeasured() {
        var gauge = LinkGauge()
        gauge.sent(0, conditional: false, at: 0)
        gauge.head(0, status: 200, expectedLength: 400_000, at: 0.1)
        // One transfer on a fast link: 14.6 KB in the first round trip, twice that in each next one.
        var now = 0.1
        var perRoundTrip = 14_600.0
        for _ in 0..<4 {
            for _ in 0..<10 {
                now += 0.01
                gauge.received(Int(perRoundTrip / 10), of: 0, at: now)
            }
            #expect(gauge.concurrency(maximum: 12) == nil, "still opening its window at \(now) s: not measured")
            perRoundTrip *= 2
        }
        // Once the window stops growing (the link's rate), the link is measured at that rate.
        for _ in 0..<80 {
            now += 0.01
            gauge.received(Int(perRoundTrip / 10), of: 0, at: now)
        }
        #expect((gauge.capacity ?? 0) >= perRoundTrip / 0.1 * 0.9, "the link's rate once the window stopped growing")
        #expect(gauge.concurrency(maximum: 12) != nil)
    }

    @Test("a conditional request counts only once a body arrives; a 304 teaches no image size")
    func revalidationsDoNotCount() {
        var gauge = LinkGauge()
        share(&gauge, ids: [0, 1], rate: 97_500, roundTrip: 0.2, length: 100_000, start: 0.2, seconds: 0.8)
        gauge.sent(5, conditional: true, at: 1.0)
        #expect(!gauge.counts(5, at: 1.0), "waiting for its answer")
        gauge.head(5, status: 304, expectedLength: nil, at: 1.2)
        #expect(!gauge.counts(5, at: 1.2), "a 304 is a head")
        let typical = gauge.typicalBytes
        gauge.ended(5, complete: true, at: 1.2)
        #expect(gauge.typicalBytes == typical)
        gauge.sent(6, conditional: true, at: 1.2)
        gauge.head(6, status: 200, expectedLength: 100_000, at: 1.4)
        gauge.received(1_000, of: 6, at: 1.41)
        #expect(gauge.counts(6, at: 1.41), "a changed image (200) is a whole image")
    }

    @Test("a transfer without progress for a while stops counting, and counts again when bytes come")
    func stalledTransfersStopCounting() {
        var gauge = LinkGauge()
        share(&gauge, ids: [0, 1], rate: 97_500, roundTrip: 0.2, length: 200_000, start: 0.2, seconds: 0.8)
        #expect(gauge.counts(0, at: 1.0))
        let stall = gauge.stallTime
        #expect(stall >= 0.8 && stall <= 1.0, "four round trips, at least a second")
        #expect(gauge.counts(0, at: 1.0 + stall * 0.9))
        #expect(!gauge.counts(0, at: 1.0 + stall + 0.05), "stalled")
        gauge.received(500, of: 0, at: 1.0 + stall + 0.1)
        #expect(gauge.counts(0, at: 1.0 + stall + 0.1))
    }

    @Test("over the limit, the least important, then the one with most to come, step aside; never one past halfway")
    func pausesPickTheLeastInvested() {
        var gauge = LinkGauge()
        share(&gauge, ids: Array(0..<4), rate: 97_500, roundTrip: 0.2, length: 100_000, start: 0.2, seconds: 0.8)
        #expect(gauge.concurrency(maximum: 12) == 2)
        let running: [(id: Int, priority: ImageRequest.Priority)] = [(0, .normal), (1, .normal), (2, .low), (3, .normal)]
        #expect(gauge.pauses(running: running, limit: 2) == [2, 3], "the off-screen one, then the latest visible")
        #expect(gauge.pauses(running: running, limit: 4).isEmpty)
        // One past halfway keeps going: the next candidate steps aside instead.
        gauge.received(60_000, of: 3, at: 1.01)
        #expect(gauge.pauses(running: running, limit: 2) == [2, 1])
        #expect(LinkGauge().pauses(running: running, limit: 1).isEmpty, "nothing measured: nobody pauses")
        // A large image with most of its bytes to come steps aside before smaller ones.
        gauge.head(0, status: 200, expectedLength: 300_000, at: 1.02)
        #expect(gauge.pauses(running: running, limit: 2) == [2, 0])
    }
}
