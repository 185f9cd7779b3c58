import Foundation
import Testing
@testable import CachedImageCore

@Suite("Progressive preview decisions")
struct ProgressivePreviewPolicyTests {
    private let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("a preview needs a new complete scan")
    func newScan() {
        var schedule = ProgressivePreviewPolicy.Schedule(ProgressivePreviewPolicy(maximumPreviewCount: 5, minimumInterval: 0))
        #expect(!schedule.shouldPreview(completedScans: 0, isFinal: false, now: start))
        #expect(schedule.shouldPreview(completedScans: 1, isFinal: false, now: start))
        schedule.didPreview(scans: 1, at: start)
        #expect(!schedule.shouldPreview(completedScans: 1, isFinal: false, now: start.addingTimeInterval(10)))
        #expect(schedule.shouldPreview(completedScans: 3, isFinal: false, now: start.addingTimeInterval(10)))
    }

    @Test("at most the maximum count per image")
    func maximumCount() {
        var schedule = ProgressivePreviewPolicy.Schedule(ProgressivePreviewPolicy(maximumPreviewCount: 2, minimumInterval: 0))
        for scans in 1...2 {
            #expect(schedule.shouldPreview(completedScans: scans, isFinal: false, now: start))
            schedule.didPreview(scans: scans, at: start)
        }
        #expect(!schedule.shouldPreview(completedScans: 3, isFinal: false, now: start))
        #expect(schedule.deliveredCount == 2)
        let off = ProgressivePreviewPolicy.Schedule(ProgressivePreviewPolicy(maximumPreviewCount: 0))
        #expect(!off.shouldPreview(completedScans: 1, isFinal: false, now: start))
    }

    @Test("no sooner than the minimum interval after the previous one, on the injected clock")
    func minimumInterval() {
        let clock = ManualClock(start)
        var schedule = ProgressivePreviewPolicy.Schedule(ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0.5))
        #expect(schedule.shouldPreview(completedScans: 1, isFinal: false, now: clock.now))
        schedule.didPreview(scans: 1, at: clock.now)
        clock.advance(by: 0.4)
        #expect(!schedule.shouldPreview(completedScans: 2, isFinal: false, now: clock.now))
        clock.advance(by: 0.1)
        #expect(schedule.shouldPreview(completedScans: 2, isFinal: false, now: clock.now))
    }

    @Test("never once the whole image has arrived")
    func neverAfterFinal() {
        let schedule = ProgressivePreviewPolicy.Schedule(ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0))
        #expect(!schedule.shouldPreview(completedScans: 10, isFinal: true, now: start))
    }

    @Test("negative settings are clamped")
    func clamped() {
        let policy = ProgressivePreviewPolicy(maximumPreviewCount: -1, minimumInterval: -3)
        #expect(policy.maximumPreviewCount == 0 && policy.minimumInterval == 0)
    }
}
