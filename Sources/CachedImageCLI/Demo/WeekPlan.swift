import ImageFixtures

/// The week of use after day 2, planned from the feed: what each day's launch scrolls and what
/// the offline check at the end tries to show.
///
/// Each day the app opens on the top of the feed, where that day's batch of new images is, and
/// the user catches up: flicks down two to four rows at a time (seeded) through the batch and on
/// into the older images below it, a quarter of a batch's worth, and stops there. Older days'
/// images further down are not scrolled again. After the week, the offline check asks for each
/// image of the latest day's batch, a screen at a time.
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
                scroll: Self.scroll(window: window, options: options, day: day),
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

    /// A scroll down `window` (image indices, top first): the first screen, then two to four rows
    /// at a time until its last row is on screen. Every image appears exactly once.
    private static func scroll(window: [Int], options: DemoOptions, day: Int) -> [[Int]] {
        var random = SeededRandom(seed: (options.seed ^ 0x0DA1_7000) &+ UInt64(day))
        let columns = options.columns
        var shown = min(window.count, options.visibleRows * columns)
        var steps = [Array(window.prefix(shown))]
        while shown < window.count {
            let next = min(window.count, shown + Int.random(in: 2...4, using: &random) * columns)
            steps.append(Array(window[shown..<next]))
            shown = next
        }
        return steps.filter { !$0.isEmpty }
    }
}
