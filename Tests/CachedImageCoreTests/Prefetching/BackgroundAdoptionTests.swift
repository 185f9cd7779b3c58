import Foundation
import Testing
@testable import CachedImageCore

/// Which requests wait for the adoption of staged background downloads: only those with an item
/// staged for their key, for that item.
@Suite("Background adoption waits", .timeLimit(.minutes(1)))
struct BackgroundAdoptionTests {
    static let staged = ImageRequest(url: URL(string: "https://example.com/staged.png")!)
    static let other = ImageRequest(url: URL(string: "https://example.com/other.png")!)
    static var stagedName: String { KeyHasher.fileName(for: staged.cacheKey) }

    @Test("a miss with nothing staged for its key, or that skips the disk cache, does not wait for the sweep; one with an item waits for that item only")
    func waitsOnlyForItsItem() async {
        let adoption = BackgroundAdoption()
        let listed = Gate()
        let release = Gate()
        let sweep = adoption.start {
            adoption.listed([Self.stagedName, "another"])
            listed.open()
            await release.wait() // The rest of a long sweep.
        }
        await listed.wait()

        #expect(await adoption.waitIfStaged(Self.other) == false, "nothing staged for it")
        var skipping = Self.staged
        skipping.options.insert(.skipDiskCache)
        #expect(await adoption.waitIfStaged(skipping) == false, "it does not read the disk cache")

        let waited = Locked<Bool?>(nil)
        let waiter = Task {
            let result = await adoption.waitIfStaged(Self.staged)
            waited.withLock { $0 = result }
        }
        #expect(await eventually { adoption.waitingCount == 1 })
        adoption.finished("another", adopted: nil)
        #expect(adoption.waitingCount == 1, "another item's end does not release it")
        adoption.finished(Self.stagedName, adopted: Self.staged.cacheKey)
        await waiter.value
        #expect(waited.withLock { $0 } == true)
        #expect(adoption.takeAdopted(Self.staged.cacheKey))
        #expect(!adoption.takeAdopted(Self.staged.cacheKey), "once")
        release.open()
        await sweep.value
    }

    @Test("a miss before the sweep listed the folder waits for the listing, then looks again")
    func waitsForTheListing() async {
        let adoption = BackgroundAdoption()
        let release = Gate()
        let sweep = adoption.start {
            await release.wait()
            adoption.listed(["another"])
        }
        let waited = Locked<Bool?>(nil)
        let waiter = Task {
            let result = await adoption.waitIfStaged(Self.other)
            waited.withLock { $0 = result }
        }
        #expect(await eventually { adoption.waitingCount == 1 })
        release.open()
        await waiter.value
        #expect(waited.withLock { $0 } == true)
        await sweep.value
        #expect(await adoption.waitIfStaged(Self.other) == false, "no sweep running")
    }
}
