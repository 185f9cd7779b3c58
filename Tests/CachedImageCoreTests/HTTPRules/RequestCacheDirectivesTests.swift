import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CachedImageCore

@Suite("Request cache directives (RFC 9111 5.2.1, 5.4; URLRequest.cachePolicy)")
struct RequestCacheDirectivesTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    func directives(_ cacheControl: String? = nil, pragma: String? = nil, policy: URLRequest.CachePolicy = .useProtocolCachePolicy) -> RequestCacheDirectives {
        var request = URLRequest(url: URL(string: "https://example.com/a.png")!)
        request.cachePolicy = policy
        if let cacheControl { request.setValue(cacheControl, forHTTPHeaderField: "Cache-Control") }
        if let pragma { request.setValue(pragma, forHTTPHeaderField: "Pragma") }
        return RequestCacheDirectives(request)
    }

    /// A response stored at `t0` with `max-age` and an initial `Age`.
    func stored(maxAge: TimeInterval, age: TimeInterval = 0, mustRevalidate: Bool = false) -> CachedResponseMetadata {
        CachedResponseMetadata(storedAt: t0, initialAge: age, freshnessLifetime: maxAge, mustRevalidate: mustRevalidate)
    }

    func accepts(_ directives: RequestCacheDirectives, _ metadata: CachedResponseMetadata, after seconds: TimeInterval) -> Bool {
        let now = t0.addingTimeInterval(seconds)
        let fresh = metadata.isFresh(at: now, heuristic: .default)
        return directives.accepts(metadata, fresh: fresh, at: now, heuristic: .default)
    }

    @Test func aPlainRequestStatesNothing() {
        #expect(directives().isEmpty)
        #expect(directives("max-age=0").impliedOptions == .reloadRevalidatingCacheData)
        #expect(directives().impliedOptions == [])
    }

    @Test func noCacheAndPragmaAndMaxAgeZeroRevalidate() {
        #expect(directives("no-cache").impliedOptions == .reloadRevalidatingCacheData)
        #expect(directives("max-age=0").impliedOptions == .reloadRevalidatingCacheData)
        #expect(directives(pragma: "no-cache").impliedOptions == .reloadRevalidatingCacheData)
        // Pragma counts only without Cache-Control (RFC 9111 5.4).
        #expect(directives("max-stale", pragma: "no-cache").impliedOptions == [])
        #expect(directives(policy: .reloadRevalidatingCacheData).impliedOptions == .reloadRevalidatingCacheData)
    }

    @Test func cachePoliciesMapOntoOptions() {
        #expect(directives(policy: .reloadIgnoringLocalCacheData).impliedOptions == .reloadIgnoringLocalCacheData)
        #expect(directives(policy: .reloadIgnoringLocalAndRemoteCacheData).impliedOptions == .reloadIgnoringLocalCacheData)
        #expect(directives(policy: .returnCacheDataDontLoad).impliedOptions == .returnCacheDataDontLoad)
        #expect(directives(policy: .returnCacheDataElseLoad).acceptsAnyStoredResponse)
        #expect(directives(policy: .returnCacheDataElseLoad).constrainsFreshness)
    }

    @Test func maxAgeCapsTheStoredAge() {
        let request = directives("max-age=600")
        #expect(request.constrainsFreshness)
        #expect(accepts(request, stored(maxAge: 3600), after: 600))
        #expect(!accepts(request, stored(maxAge: 3600), after: 601))
        #expect(!accepts(request, stored(maxAge: 3600, age: 1800), after: 0))
    }

    @Test func minFreshDemandsFreshnessLeft() {
        let request = directives("min-fresh=1000")
        #expect(accepts(request, stored(maxAge: 1500), after: 500))
        #expect(!accepts(request, stored(maxAge: 1500), after: 501))
        #expect(!accepts(request, stored(maxAge: 1500, age: 1000), after: 0))
    }

    @Test func maxStaleAcceptsStaleUnlessMustRevalidate() {
        let bounded = directives("max-stale=1000")
        #expect(accepts(bounded, stored(maxAge: 1500, age: 2000), after: 0))
        #expect(accepts(bounded, stored(maxAge: 100), after: 1100))
        #expect(!accepts(bounded, stored(maxAge: 100), after: 1101))
        #expect(accepts(directives("max-stale"), stored(maxAge: 100), after: 1_000_000))
        #expect(!accepts(directives("max-stale"), stored(maxAge: 100, mustRevalidate: true), after: 200))
        #expect(!accepts(directives(), stored(maxAge: 100), after: 200))
    }

    @Test func returnCacheDataElseLoadAcceptsAnyAge() {
        #expect(accepts(directives(policy: .returnCacheDataElseLoad), stored(maxAge: 0, mustRevalidate: true), after: 1_000_000))
    }

    @Test func noStoreAndOnlyIfCachedAreRead() {
        #expect(directives("no-store").noStore)
        #expect(directives("no-store").impliedOptions == .reloadIgnoringLocalCacheData)
        #expect(directives("ONLY-IF-CACHED").onlyIfCached)
        #expect(!directives("no-store").constrainsFreshness)
    }

    @Test("delta-seconds with a fraction count as their integer part (as Safari and Firefox)")
    func decimalDeltaSeconds() {
        #expect(CacheControl("max-age=3600.0").maxAge == 3600)
        #expect(CacheControl("max-age=3600.5").maxAge == 3600)
        #expect(CacheControl("max-age=3600.").maxAge == 3600)
        // Not numbers: invalid, so stale (max-age) or ignored.
        #expect(CacheControl("max-age=.5").maxAge == 0)
        #expect(CacheControl("max-age=1.5x").maxAge == 0)
        #expect(CacheControl("max-age=1.2.3").maxAge == 0)
        #expect(CacheControl("max-age=-1").maxAge == 0)
        #expect(CacheControl("stale-if-error=60.9").staleIfError == 60)
        // `Age` stays strict: a decimal is invalid and ignored.
        let headers = HTTPHeaders(["Age": "7200.0"])
        #expect(CachedResponseMetadata.initialAge(headers: headers, requestTime: t0, responseTime: t0) == 0)
        #expect(CachedResponseMetadata.initialAge(headers: HTTPHeaders(["Age": "7200"]), requestTime: t0, responseTime: t0) == 7200)
    }
}
