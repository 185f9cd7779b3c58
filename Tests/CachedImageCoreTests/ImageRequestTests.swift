import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CachedImageCore

@Suite("ImageRequest")
struct ImageRequestTests {
    @Test("the cache key defaults to the URL and can be overridden")
    func cacheKey() {
        let url = URL(string: "https://cdn.example.com/a.png?signature=abc")!
        #expect(ImageRequest(url: url).cacheKey == url.absoluteString)
        let shared = ImageRequest(url: url, cacheKey: "a.png")
        #expect(shared.cacheKey == "a.png")
        #expect(shared.url == url)
    }

    @Test("a request made from a URL is keyed as it is until its URLRequest changes; the hint never affects equality")
    func plainRequestsKeyedAsTheyAre() {
        let url = URL(string: "https://cdn.example.com/a.png")!
        let resolver = RequestResolver(allowedSchemes: ["https"], isNetworkConstrained: { false }, diskCache: nil, identityHeaderFields: ["authorization"])
        let plain = ImageRequest(url: url)
        #expect(plain.urlRequestIsPlain.value)
        #expect(resolver.keyed(plain) == plain)
        #expect(plain == ImageRequest(urlRequest: URLRequest(url: url)), "equal to the same request made from a URLRequest")

        var revalidating = plain
        revalidating.urlRequest.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        #expect(!revalidating.urlRequestIsPlain.value)
        #expect(resolver.keyed(revalidating).options.contains(.reloadRevalidatingCacheData))

        var signedIn = plain
        signedIn.urlRequest.setValue("Bearer a", forHTTPHeaderField: "Authorization")
        #expect(resolver.keyed(signedIn).cacheKey != plain.cacheKey, "identity headers still key it")

        var reloading = plain
        reloading.urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        #expect(resolver.keyed(reloading).options.contains(.reloadIgnoringLocalCacheData))
    }

    @Test("a nil URL stays nil, like AsyncImage(url: nil)")
    func nilURL() {
        let request = ImageRequest(url: nil)
        #expect(request.url == nil)
        #expect(request.cacheKey == ImageRequest.missingURL.absoluteString)
    }

    @Test("priorities are ordered from veryLow to veryHigh")
    func priorityOrder() {
        #expect(ImageRequest.Priority.allCases.sorted() == [.veryLow, .low, .normal, .high, .veryHigh])
    }

    @Test("the target size keys the decoded image, not the bytes")
    func targetSizeKeys() {
        let url = URL(string: "https://example.com/a.png")!
        let small = ImageRequest(url: url, targetPixelSize: PixelSize(width: 10, height: 10))
        let large = ImageRequest(url: url, targetPixelSize: PixelSize(width: 500, height: 500))
        #expect(ImageCacheKey(small) != ImageCacheKey(large))
        #expect(DataTaskKey(small) == DataTaskKey(large))
        #expect(ImageTaskKey(small) != ImageTaskKey(large))
    }

    @Test("memory-only options do not split the shared download; cache options do")
    func dataTaskKeyOptions() {
        let url = URL(string: "https://example.com/a.png")!
        let plain = ImageRequest(url: url)
        #expect(DataTaskKey(plain) == DataTaskKey(ImageRequest(url: url, options: .skipMemoryCache)))
        #expect(DataTaskKey(plain) != DataTaskKey(ImageRequest(url: url, options: .returnCacheDataDontLoad)))
        #expect(DataTaskKey(plain) != DataTaskKey(ImageRequest(url: url, options: .reloadIgnoringLocalCacheData)))
    }

    @Test("fitting never upscales and keeps the aspect ratio")
    func fitting() {
        let photo = PixelSize(width: 4000, height: 3000)
        #expect(photo.fitted(into: PixelSize(width: 900, height: 900)) == PixelSize(width: 900, height: 675))
        #expect(PixelSize(width: 50, height: 20).fitted(into: PixelSize(width: 900, height: 900)) == PixelSize(width: 50, height: 20))
        #expect(PixelSize(width: 20_000, height: 20_000).pixelCount == 400_000_000)
        #expect(PixelSize(width: .max, height: 2).pixelCount == .max)
    }
}
