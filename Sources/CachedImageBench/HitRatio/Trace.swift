/// A sequence of key requests replayed against every eviction policy.
struct Trace {
    var name: String
    var requests: [Int]

    var uniqueKeys: Int { Set(requests).count }

    /// Independent Zipf(alpha) requests over `keys` keys; popularity is scattered over key ids.
    static func zipf(alpha: Double, keys: Int, requests: Int, seed: UInt64 = 42) -> Trace {
        var rng = SplitMix(seed: seed)
        let sampler = ZipfSampler(count: keys, alpha: alpha)
        var ids = Array(0..<keys)
        ids.shuffle(using: &rng)
        let trace = (0..<requests).map { _ in ids[sampler.sample(&rng)] }
        return Trace(name: "Zipf \(alpha)", requests: trace)
    }

    /// Scrolls down a feed of `feed` items and back up, over and over. With `hotShare > 0`, that
    /// share of requests instead picks from a Zipf(0.8) hot set of `hot` keys (avatars, icons).
    static func scroll(feed: Int, hot: Int, hotShare: Double, requests: Int, seed: UInt64 = 7) -> Trace {
        var rng = SplitMix(seed: seed)
        let sampler = ZipfSampler(count: Swift.max(1, hot), alpha: 0.8)
        var trace: [Int] = []
        trace.reserveCapacity(requests)
        var position = 0
        var step = 1
        while trace.count < requests {
            if hotShare > 0 && Double.random(in: 0..<1, using: &rng) < hotShare {
                trace.append(10_000_000 + sampler.sample(&rng))
                continue
            }
            trace.append(position)
            position += step
            if position == feed {
                position = feed - 1
                step = -1
            } else if position < 0 {
                position = 0
                step = 1
            }
        }
        let name = hotShare > 0
            ? "scroll down+up \(Format.grouped(feed)) items + \(Int(hotShare * 100))% Zipf hot set of \(Format.grouped(hot))"
            : "scroll down+up \(Format.grouped(feed)) items, nothing else"
        return Trace(name: name, requests: trace)
    }
}
