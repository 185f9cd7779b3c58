import ImageFixtures

/// A replayable scroll session over a grid feed: each step is the set of cells that came on
/// screen, whose images are requested together (like a lazy grid creating cells).
///
/// The first launch scrolls down with a random walk that mostly moves forward one or two rows
/// and now and then goes back one to three rows (users re-read), until ``DemoOptions/traceLength``
/// cells have appeared; then it scrolls back to the top two rows at a time. The relaunch and the
/// offline launch replay the first scroll exactly.
struct ScrollSession: Sendable, Hashable {
    /// Cells that appeared, step by step (image indices, distinct within a step).
    var scroll: [[Int]]
    /// Scrolling back to the top afterwards, in the same launch.
    var backToTop: [[Int]]

    /// Cell appearances in ``backToTop``.
    var backToTopViews: Int { backToTop.reduce(0) { $0 + $1.count } }
    /// Cell appearances in ``scroll``.
    var scrollViewCount: Int { scroll.reduce(0) { $0 + $1.count } }
    /// Distinct images in ``scroll``: what a perfect cache downloads once.
    var uniqueImageCount: Int { Set(scroll.joined()).count }

    init(scroll: [[Int]], backToTop: [[Int]]) {
        self.scroll = scroll
        self.backToTop = backToTop
    }

    init(imageCount: Int, columns: Int, visibleRows: Int, viewCount: Int, seed: UInt64) {
        var random = SeededRandom(seed: seed ^ 0x5C_0011)
        let rows = (imageCount + columns - 1) / columns
        let maxTop = max(0, rows - visibleRows)
        func cells(top: Int) -> [Int] {
            Array(top * columns ..< min(imageCount, (top + visibleRows) * columns))
        }
        var top = 0
        var visible = cells(top: 0)
        var steps = [Array(visible.prefix(viewCount))]
        var views = steps[0].count
        var stuck = 0
        while views < viewCount, stuck < 1_000 {
            var delta = Double.random(in: 0..<1, using: &random) < 0.8
                ? Int.random(in: 1...2, using: &random)
                : -Int.random(in: 1...3, using: &random)
            if top + delta > maxTop || top + delta < 0 { delta = -delta }
            top = min(max(0, top + delta), maxTop)
            let now = cells(top: top)
            let appeared = now.filter { !visible.contains($0) }
            visible = now
            guard !appeared.isEmpty else {
                stuck += 1  // A feed that fits on one screen: nothing new can appear.
                continue
            }
            let step = Array(appeared.prefix(viewCount - views))
            steps.append(step)
            views += step.count
        }
        var back: [[Int]] = []
        while top > 0 {
            top = max(0, top - 2)
            let now = cells(top: top)
            back.append(now.filter { !visible.contains($0) })
            visible = now
        }
        self.init(scroll: steps, backToTop: back.filter { !$0.isEmpty })
    }
}
