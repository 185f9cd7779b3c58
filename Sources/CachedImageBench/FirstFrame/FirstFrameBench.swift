import CachedImageCore
import Foundation

/// Table 2: the synchronous first-frame lookup, `pipeline.memoryCachedImage(for:)`, with a realistic
/// request (a 70-character CDN URL and a target size), against the same lookup in `NSCache`.
struct FirstFrameBench {
    let options: BenchOptions

    var iterations: Int { options.pick(quick: 200_000, full: 1_000_000) }
    var rounds: Int { options.pick(quick: 5, full: 11) }

    func run() {
        let configuration = {
            var configuration = ImagePipeline.Configuration()
            configuration.diskCacheDirectory = nil
            return configuration
        }()
        let pipeline = ImagePipeline(configuration: configuration)
        let imageCount = 1_000
        let targetSize = PixelSize(width: 900, height: 900)
        let requests = (0..<imageCount).map { index in
            ImageRequest(
                url: URL(string: "https://cdn.example.com/photos/2026/11/feed-\(100_000 + index).jpg?w=900&q=80"),
                targetPixelSize: targetSize
            )
        }
        let image = DecodedImage(image: nil, data: nil, format: .jpeg, pixelSize: targetSize, cost: 1)
        let foundation = NSCache<NSString, Payload>()
        let payload = Payload(id: 1)
        for request in requests {
            pipeline.memoryCache?.setValue(image, forKey: ImageCacheKey(request), cost: 1)
            foundation.setObject(payload, forKey: request.cacheKey as NSString)
        }
        let foundationKeys = requests.map { $0.cacheKey as NSString }
        let missRequests = (0..<imageCount).map { index in
            ImageRequest(url: URL(string: "https://cdn.example.com/photos/2026/11/miss-\(100_000 + index).jpg?w=900&q=80"), targetPixelSize: targetSize)
        }
        let urls = requests.map { $0.url! }

        var hit = Samples()
        var miss = Samples()
        var building = Samples()
        var nsCache = Samples()
        let iterations = self.iterations
        for _ in 0..<rounds {
            var sink = 0
            hit.add(Stopwatch.time {
                for index in 0..<iterations {
                    sink &+= pipeline.memoryCachedImage(for: requests[index % imageCount])?.cost ?? 0
                }
            } / Double(iterations))
            miss.add(Stopwatch.time {
                for index in 0..<iterations {
                    sink &+= pipeline.memoryCachedImage(for: missRequests[index % imageCount])?.cost ?? 0
                }
            } / Double(iterations))
            building.add(Stopwatch.time {
                for index in 0..<iterations {
                    let request = ImageRequest(url: urls[index % imageCount], targetPixelSize: targetSize)
                    sink &+= pipeline.memoryCachedImage(for: request)?.cost ?? 0
                }
            } / Double(iterations))
            nsCache.add(Stopwatch.time {
                for index in 0..<iterations {
                    sink &+= foundation.object(forKey: foundationKeys[index % imageCount])?.id ?? 0
                }
            } / Double(iterations))
            blackHole(sink)
        }
        var table = Table(
            "2. Synchronous first-frame lookup: ns per call, median (min-max) of \(rounds) rounds of \(Format.grouped(iterations)) calls",
            columns: ["lookup", "ns/call", "vs NSCache object(forKey:)", "target"]
        )
        let target = "< 1,000 ns median"
        table.add(["`pipeline.memoryCachedImage(for:)` hit", hit.summary(), Format.ratio(hit.median, to: nsCache.median),
                   "\(target): \(hit.median < 1_000 ? "met" : "MISSED")"])
        table.add(["`pipeline.memoryCachedImage(for:)` miss", miss.summary(), Format.ratio(miss.median, to: nsCache.median), ""])
        table.add(["build `ImageRequest(url:targetPixelSize:)` + hit", building.summary(), Format.ratio(building.median, to: nsCache.median), ""])
        table.add(["NSCache `object(forKey:)` hit, same URL as NSString (baseline)", nsCache.summary(), "1.00x", ""])
        table.print(note: """
        1,000 cached images; requests like `https://cdn.example.com/photos/2026/11/feed-100000.jpg?w=900&q=80` \
        (\(requests[0].cacheKey.count) characters) with a 900x900 target size. The pipeline's lookup hashes \
        the cache key and target size, takes the memory cache's lock and counts the hit in its statistics.
        """)
    }
}
