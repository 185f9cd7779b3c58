/// The week of use after day 2, planned from the feed: what each day's launch scrolls and what
/// the offline check at the end tries to show.
///
/// Each day the app opens on the top of the feed, where that day's batch of new images is, and
/// the user scrolls down (the same random walk as ``ScrollSession``) until every new image has
/// been on screen; below the batch lie a quarter as many older images, which the walk reaches
/// less often and the days before are never scrolled again. After the week, the offline check
/// asks for each image of the latest day's batch, a screen at a time.
struct WeekPlan: Sendable {
    /// One day's launch.
    struct Day: Sendable {
        /// The simulated day (3, 4, …).
        var day: Int
        /// Cells that appeared, step by step (image indices).
        var scroll: [[Int]]
        /// The day's new images (image indices), all of which ``scroll`` shows.
        var newImages: [Int]

        /// Cell appearances in ``scroll``.
        var views: Int { scroll.reduce(0) { $0 + $1.count } }
        /// Distinct images in ``scroll``.
        var distinctImages: Int { Set(scroll.joined()).count }
    }

    var days: [Day]
    /// The latest day's images, a screen (columns x visible rows) at a time.
    var offlineCheck: [[Int]]

    /// The latest day's number, if the week has any day.
    var latestDay: Int? { days.last?.day }
    /// Images the offline check asks for.
    var offlineCheckImages: Int { offlineCheck.reduce(0) { $0 + $1.count } }

    /// Older images below each day's batch: a quarter of a batch (at least one row).
    static func olderImagesPerDay(options: DemoOptions) -> Int {
        max(options.columns, options.newImagesPerDay / 4)
    }

    init(feed: DemoFeed, options: DemoOptions) {
        var days: [Day] = []
        for day in stride(from: 3, to: 3 + options.weekDays, by: 1) {
            let order = feed.order(onDay: day)
            let newImages = feed.batch(publishedOn: day).map(\.index)
            let window = Array(order.prefix(newImages.count + Self.olderImagesPerDay(options: options)))
            days.append(Day(
                day: day,
                scroll: Self.scroll(window: window, newCount: newImages.count, options: options, day: day),
                newImages: newImages
            ))
        }
        self.days = days
        let screen = options.columns * options.visibleRows
        let latest = days.last?.newImages ?? []
        offlineCheck = stride(from: 0, to: latest.count, by: screen).map { start in
            Array(latest[start..<min(latest.count, start + screen)])
        }
    }

    /// A scroll over `window` (feed positions, top first) long enough for its first `newCount`
    /// images to have appeared: twice as many views as images, like the first launch's default,
    /// lengthened by half the window at a time if the walk has not reached them all yet.
    private static func scroll(window: [Int], newCount: Int, options: DemoOptions, day: Int) -> [[Int]] {
        var viewCount = 2 * window.count
        while true {
            let session = ScrollSession(
                imageCount: window.count, columns: options.columns, visibleRows: options.visibleRows,
                viewCount: viewCount, seed: options.seed &+ UInt64(day)
            )
            let seen = Set(session.scroll.joined())
            if (0..<newCount).allSatisfy(seen.contains) || viewCount >= 16 * window.count {
                return session.scroll.map { step in step.map { window[$0] } }
            }
            viewCount += max(1, window.count / 2)
        }
    }
}
