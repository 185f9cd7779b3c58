import Foundation
import ImageFixtures
import ToolSupport

/// The demo's image feed: real PNG and JPEG files of varied sizes, generated in code from a seed
/// (no network, nothing committed).
///
/// About a fifth are PNG avatars (64-160 px), half JPEG thumbnails (240-480 px) and the rest
/// JPEG photos (640-1080 px wide), shuffled the way a social feed mixes them.
struct DemoFeed: Sendable {
    let images: [FeedImage]
    /// Day 2's new versions (new bytes, new `ETag`) of about a tenth of the images, some of them
    /// on screen at launch; keyed by image index.
    let dayTwo: [Int: FeedImage]

    /// Images whose last path component repeats (avatars and photos).
    var sharedNameCount: Int {
        Dictionary(grouping: images, by: { ($0.path as NSString).lastPathComponent }).values
            .filter { $0.count > 1 }.reduce(0) { $0 + $1.count }
    }

    /// The sum of all image sizes: what downloading the whole feed once costs.
    var totalBytes: Int {
        images.reduce(0) { $0 + $1.data.count }
    }

    /// Generates `count` images, using every core; `progress` is called with the number done.
    static func generate(count: Int, seed: UInt64, progress: @escaping @Sendable (Int) -> Void = { _ in }) async -> DemoFeed {
        var random = SeededRandom(seed: seed)
        let plans = (0..<count).map { index in plan(index: index, random: &random) }
        // Day 2: the first two cells (on screen at launch), the first thumbnail (a unique file
        // name, so a name collision cannot hide the change) and a seeded tenth of the rest change.
        var changing = Set((0..<min(2, count)))
        if let thumbnail = plans.first(where: { $0.kind == .thumbnail }) { changing.insert(thumbnail.index) }
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
        return DemoFeed(images: images, dayTwo: dayTwo)
    }

    /// What to generate for one cell.
    private struct Plan: Sendable {
        var index: Int
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
                index: index, kind: kind, path: path, data: data, contentType: contentType,
                etag: "\"\(String(seed, radix: 16))-\(data.count)\"", width: width, height: height
            )
        }
    }

    private static func plan(index: Int, random: inout SeededRandom) -> Plan {
        let roll = Int.random(in: 0..<100, using: &random)
        let seed = random.next()
        switch roll {
        case ..<20:
            let side = Int.random(in: 64...160, using: &random)
            return Plan(index: index, kind: .avatar, width: side, height: side, detail: 0, seed: seed)
        case ..<70:
            let width = Int.random(in: 240...480, using: &random)
            let aspect = [1.0, 0.75, 1.333][Int.random(in: 0..<3, using: &random)]
            return Plan(index: index, kind: .thumbnail, width: width, height: Int(Double(width) * aspect),
                        detail: Int.random(in: 6...14, using: &random), seed: seed)
        default:
            let width = Int.random(in: 640...1_080, using: &random)
            let aspect = [0.75, 0.667, 1.25][Int.random(in: 0..<3, using: &random)]
            return Plan(index: index, kind: .photo, width: width, height: Int(Double(width) * aspect),
                        detail: Int.random(in: 4...10, using: &random), seed: seed)
        }
    }
}
