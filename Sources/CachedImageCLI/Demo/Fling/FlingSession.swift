/// A fast scroll through the feed, frame by frame: the grid moves one row per frame, so each
/// row is on screen for ``DemoOptions/visibleRows`` frames, through ``rows`` rows; then a short
/// scroll back (one screen) at the same speed, where the user stops.
///
/// Each frame lists the cells that came on screen and the cells that left it (image indices).
struct FlingSession: Sendable, Hashable {
    struct Frame: Sendable, Hashable {
        var appeared: [Int]
        var disappeared: [Int]
    }

    /// Frames of the fling down, then of the scroll back.
    var frames: [Frame]
    /// The index of the first frame of the scroll back.
    var scrollBackStart: Int
    /// Cells on screen when the user stops (what must be shown at the end).
    var finalScreen: [Int]

    /// Cell appearances over the whole fling.
    var appearances: Int { frames.reduce(0) { $0 + $1.appeared.count } }

    /// - Parameters:
    ///   - imageCount: Images in the feed.
    ///   - columns: Cells per row.
    ///   - visibleRows: Rows on screen at once.
    ///   - rows: How many rows the fling moves down (bounded by the feed).
    init(imageCount: Int, columns: Int, visibleRows: Int, rows: Int) {
        let totalRows = (imageCount + columns - 1) / columns
        let maxTop = max(0, totalRows - visibleRows)
        let bottom = min(max(0, rows), maxTop)
        func cells(top: Int) -> [Int] {
            Array(top * columns ..< min(imageCount, (top + visibleRows) * columns))
        }
        var visible = cells(top: 0)
        var frames = [Frame(appeared: visible, disappeared: [])]
        func move(to top: Int) {
            let now = cells(top: top)
            frames.append(Frame(appeared: now.filter { !visible.contains($0) }, disappeared: visible.filter { !now.contains($0) }))
            visible = now
        }
        if bottom > 0 {
            for top in 1...bottom { move(to: top) }
        }
        scrollBackStart = frames.count
        let back = max(0, bottom - visibleRows)
        if back < bottom {
            for top in stride(from: bottom - 1, through: back, by: -1) { move(to: top) }
        }
        self.frames = frames
        finalScreen = visible
    }
}
