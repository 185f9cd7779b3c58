import Foundation
import Testing
@testable import CachedImageCore

@Suite("Directives for shared caches only (a private cache, RFC 9111 5.2.2)")
struct PrivateCacheDirectiveTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    func metadata(_ cacheControl: String) throws -> CachedResponseMetadata {
        try #require(CachedResponseMetadata(
            headers: HTTPHeaders(["Cache-Control": cacheControl]), requestTime: t0, responseTime: t0
        ))
    }

    @Test func privateResponsesAreStoredAndFreshLikeAnyOther() throws {
        let meta = try metadata("private, max-age=60")
        #expect(meta.freshnessLifetime == 60)
        #expect(meta.isFresh(at: t0 + 59, heuristic: .default))
        #expect(MemoryCacheLifetime.forResponse(meta, honorsHTTPFreshness: true, heuristic: .default, at: t0) == .until(t0 + 60))
    }

    @Test func sMaxAgeAndProxyRevalidateAreIgnored() throws {
        let meta = try metadata("s-maxage=0, proxy-revalidate, max-age=60")
        #expect(meta.freshnessLifetime == 60)
        #expect(!meta.mustRevalidate)
        #expect(meta.mayServeStale(afterError: .transport, at: t0 + 600, heuristic: .default))
        // s-maxage alone gives no explicit lifetime: the heuristic applies.
        let sharedOnly = try metadata("s-maxage=31536000")
        #expect(sharedOnly.freshnessLifetime == nil)
        #expect(sharedOnly.lifetime(heuristic: .default) == HeuristicFreshness.defaultCap)
    }
}
