import Testing
@testable import CachedImageCLI

@Suite("Scroll session")
struct ScrollSessionTests {
    @Test("The same seed replays the same session; the trace length is exact")
    func deterministic() {
        let a = ScrollSession(imageCount: 300, columns: 3, visibleRows: 4, viewCount: 600, seed: 1)
        let b = ScrollSession(imageCount: 300, columns: 3, visibleRows: 4, viewCount: 600, seed: 1)
        let c = ScrollSession(imageCount: 300, columns: 3, visibleRows: 4, viewCount: 600, seed: 2)
        #expect(a == b)
        #expect(a != c)
        #expect(a.scrollViewCount == 600)
    }

    @Test("Each step requests distinct cells; the user revisits and ends back at the top")
    func shape() throws {
        let session = ScrollSession(imageCount: 90, columns: 3, visibleRows: 4, viewCount: 200, seed: 3)
        for step in session.scroll + session.backToTop {
            #expect(Set(step).count == step.count)
            #expect(step.allSatisfy { (0..<90).contains($0) })
        }
        #expect(session.uniqueImageCount < session.scrollViewCount)  // Some cells were seen twice.
        #expect(session.scroll.first == Array(0..<12))
        let lastStep = try #require(session.backToTop.last)
        #expect(lastStep.contains(0))
    }

    @Test("A feed that fits on one screen ends after the first step")
    func tinyFeed() {
        let session = ScrollSession(imageCount: 5, columns: 3, visibleRows: 4, viewCount: 100, seed: 1)
        #expect(session.scroll == [[0, 1, 2, 3, 4]])
        #expect(session.backToTop.isEmpty)
    }
}
