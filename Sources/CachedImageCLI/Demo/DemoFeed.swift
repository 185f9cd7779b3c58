import Foundation
import ImageFixtures
import ToolSupport

/// The demo's image feed: real PNG and JPEG files of varied sizes, generated in code from a seed
/// (no network, nothing committed).
///
/// About a fifth are PNG avatars (64-160 px), half JPEG thumbnails (240-480 px) and the rest
/// JPEG photos (640-1080 px wide), shuffled the way a social feed mixes them.
///
/// The feed grows: the first ``initialCount`` images are published on day 1; the week that
/// follows day 2 adds a batch of new images each day (``FeedImage/day``), which go to the top of
/// the feed. ``images`` holds them all, indexed by ``FeedImage/index``.
struct DemoFeed: Sendable {
    /// Every image ever published: day 1's feed first, then each day's batch.
    let images: [FeedImage]
    /// Images published on day 1 (the first `initialCount` of ``images``).
    let initialCount: Int
    /// Day 2's new versions (new bytes, new `ETag`) of about a tenth of the images, some of them
    /// on screen at launch; keyed by image index.
    let dayTwo: [Int: FeedImage]

    /// Day 1's feed.
    var initialImages: ArraySlice<FeedImage> {
        images.prefix(initialCount)
    }

    /// Images whose last path component repeats (avatars and photos), over every image published.
    var sharedNameCount: Int {
        Dictionary(grouping: images, by: { ($0.path as NSString).lastPathComponent }).values
            .filter { $0.count > 1 }.reduce(0) { $0 + $1.count }
    }

    /// The sum of day 1's image sizes: what downloading the initial feed once costs.
    var totalBytes: Int {
        initialImages.reduce(0) { $0 + $1.data.count }
    }

    /// The images published on `day` (day 1: the initial feed; days 3 and later: that day's
    /// batch), in feed order.
    func batch(publishedOn day: Int) -> ArraySlice<FeedImage> {
        guard let first = images.firstIndex(where: { $0.day == day }) else { return [] }
        let end = images[first...].firstIndex(where: { $0.day != day }) ?? images.endIndex
        return images[first..<end]
    }

    /// The feed as the app shows it on `day`, newest first: that day's batch on top, then the
    /// earlier days' batches, then day 1's feed. Image indices.
    func order(onDay day: Int) -> [Int] {
        var order: [Int] = []
        for published in stride(from: day, through: 1, by: -1) {
            order += batch(publishedOn: published).map(\.index)
        }
        return order
    }

    /// The bytes of every version the server publishes up to and including `day`: day 1's feed,
    /// day 2's changed versions, and each later day's batch.
    func publishedBytes(through day: Int) -> Int {
        let new = images.filter { $0.day <= day }.reduce(0) { $0 + $1.data.count }
        return new + (day >= 2 ? dayTwo.values.reduce(0) { $0 + $1.data.count } : 0)
    }

    /// Generates day 1's `count` images and, for each of `weekDays` days after day 2 (days 3, 4,
    /// …), `newPerDay` more, using every core; `progress` is called with the number done.
    static func generate(
        count: Int,
        weekDays: Int = 0,
        newPerDay: Int = 0,
        seed: UInt64,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async -> DemoFeed {
        var random = SeededRandom(seed: seed)
        var plans = (0..<count).map { index in plan(index: index, day: 1, random: &random) }
        // The week's batches come from their own random sequence, so day 1's feed and day 2's
        // changes are the same whatever the week's size.
        var weekRandom = SeededRandom(seed: seed ^ 0x7EE_C0DE)
        for day in stride(from: 3, to: 3 + weekDays, by: 1) {
            for _ in 0..<newPerDay {
                plans.append(plan(index: plans.count, day: day, random: &weekRandom))
            }
        }
        // Day 2: the first two cells (on screen at launch), the first thumbnail (a unique file
        // name, so a name collision cannot hide the change) and a seeded tenth of the rest change.
        var changing = Set((0..<min(2, count)))
        if let thumbnail = plans.prefix(count).first(where: { $0.kind == .thumbnail }) { changing.insert(thumbnail.index) }
        var changeRandom = SeededRandom(seed: seed ^ 0xDA7_2)
        let target = max(changing.count, count / 10)
        while changing.count < target {
            changing.insert(Int.random(in: 0..<count, using: &changeRandom))
        }
        var changed: [Plan] = []
        for index in changing.sorted() {
            var plan = plans[index]
            plan.seed = plan.seed &+ 0x9E37_79B9_7F4A_7C15
            changed.append(plan)
        }
        let dayTwo = Dictionary(uniqueKeysWithValues: changed.map { ($0.index, $0.make()) })
        let done = Protected(0)
        let images = await withTaskGroup(of: FeedImage.self) { group in
            var images: [FeedImage] = []
            images.reserveCapacity(count)
            let workers = max(2, ProcessInfo.processInfo.activeProcessorCount)
            var next = 0
            func addNext() {
                guard next < plans.count else { return }
                let plan = plans[next]
                next += 1
                group.addTask { plan.make() }
            }
            for _ in 0..<workers { addNext() }
            while let image = await group.next() {
                images.append(image)
                progress(done.withLock { value in
                    value += 1
                    return value
                })
                addNext()
            }
            return images.sorted { $0.index < $1.index }
        }
        return DemoFeed(images: images, initialCount: count, dayTwo: dayTwo)
    }

    /// What to generate for one cell.
    private struct Plan: Sendable {
        var index: Int
        var day: Int
        var kind: FeedImage.Kind
        var width: Int
        var height: Int
        var detail: Int
        var seed: UInt64

        func make() -> FeedImage {
            let data: Data
            let contentType: String
            let fileExtension: String
            switch kind {
            case .avatar:
                data = ImageFixtures.png(width: width, height: height, seed: seed)
                contentType = "image/png"
                fileExtension = "png"
            case .thumbnail, .photo:
                data = ImageFixtures.jpeg(width: width, height: height, seed: seed, detail: detail)
                contentType = "image/jpeg"
                fileExtension = "jpg"
            }
            let path = switch kind {
            case .avatar: "/users/\(1_000 + index)/avatar.\(fileExtension)"
            case .thumbnail: "/feed/thumbnail-\(String(format: "%04d", index)).\(fileExtension)"
            case .photo: "/posts/\(index)/original.\(fileExtension)"
            }
            return FeedImage(
                index: index, day: day, kind: kind, path: path, data: data, contentType: contentType,
                etag: "\"\(String(seed, radix: 16))-\(data.count)\"", width: width, height: height
            )
        }
    }

    private static func plan(index: Int, day: Int, random: inout SeededRandom) -> Plan {
        let roll = Int.random(in: 0..<100, using: &random)
        let seed = random.next()
        switch roll {
        case ..<20:
            let side = Int.random(in: 64...160, using: &random)
            return Plan(index: index, day: day, kind: .avatar, width: side, height: side, detail: 0, seed: seed)
        case ..<70:
            let width = Int.random(in: 240...480, using: &random)
            let aspect = [1.0, 0.75, 1.333][Int.random(in: 0..<3, using: &random)]
            return Plan(index: index, day: day, kind: .thumbnail, width: width, height: Int(Double(width) * aspect),
                        detail: Int.random(in: 6...14, using: &random), seed: seed)
        default:
            let width = Int.random(in: 640...1_080, using: &random)
            let aspect = [0.75, 0.667, 1.25][Int.random(in: 0..<3, using: &random)]
            return Plan(index: index, day: day, kind: .photo, width: width, height: Int(Double(width) * aspect),
                        detail: Int.random(in: 4...10, using: &random), seed: seed)
        }
    }
}
