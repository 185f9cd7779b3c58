import Foundation
import Testing
@testable import CachedImageCore

@Suite("Redirect hops restrict what is stored under the original URL")
struct RedirectFreshnessTests {
    /// The redirect is requested at t0 and arrives at t0 + 1; the final response arrives at t0 + 2.
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    func final(_ fields: [String: String]) throws -> CachedResponseMetadata {
        try #require(CachedResponseMetadata(headers: HTTPHeaders(fields), requestTime: t0 + 1, responseTime: t0 + 2))
    }

    func hop(_ status: Int, _ fields: [String: String] = [:]) -> RedirectHop {
        RedirectHop(statusCode: status, headers: HTTPHeaders(fields), requestTime: t0, responseTime: t0 + 1)
    }

    @Test(arguments: [302, 303, 307])
    func temporaryRedirectWithoutFreshnessMakesTheEntryStale(_ status: Int) throws {
        // The avatar: /users/42/picture → 302 → cdn/abc.jpg (a year, immutable).
        let target = try final(["Cache-Control": "max-age=31536000, immutable", "ETag": "\"abc\""])
        let stored = try #require(target.restricted(byRedirects: [hop(status, ["Location": "/cdn/abc.jpg"])], heuristic: .default))
        #expect(stored.freshnessLifetime == 0)
        #expect(!stored.isImmutable)
        #expect(!stored.isFresh(at: t0 + 2, heuristic: .default))
        #expect(stored.etag == "\"abc\"")
        #expect(target.isFresh(at: t0 + 86_400, heuristic: .default))
    }

    @Test(arguments: [301, 308])
    func permanentRedirectWithoutFreshnessDoesNotCap(_ status: Int) throws {
        let target = try final(["Cache-Control": "max-age=3600"])
        let stored = try #require(target.restricted(byRedirects: [hop(status)], heuristic: .default))
        #expect(stored.freshnessLifetime == 3_600)
        #expect(stored.isFresh(at: t0 + 3_000, heuristic: .default))
        // An immutable target behind a permanent redirect without `immutable` loses it.
        let immutable = try final(["Cache-Control": "max-age=3600, immutable"])
        #expect(try #require(immutable.restricted(byRedirects: [hop(status)], heuristic: .default)).isImmutable == false)
    }

    @Test func explicitHopFreshnessCapsTheLifetimeAtTheHopsExpiry() throws {
        let target = try final(["Cache-Control": "max-age=3600"])
        // The hop is 1 s old on arrival and stays fresh until t0 + 60.
        let stored = try #require(target.restricted(byRedirects: [hop(302, ["Cache-Control": "max-age=60"])], heuristic: .default))
        #expect(stored.isFresh(at: t0 + 59.5, heuristic: .default))
        #expect(!stored.isFresh(at: t0 + 60, heuristic: .default))
        // A hop that allows more than the target does not extend it.
        let longHop = try #require(target.restricted(byRedirects: [hop(307, ["Cache-Control": "max-age=99999"])], heuristic: .default))
        #expect(longHop.freshnessLifetime == 3_600)
        // A hop already stale on arrival (Age beyond max-age) gives 0.
        let staleHop = try #require(target.restricted(byRedirects: [hop(301, ["Cache-Control": "max-age=60", "Age": "100"])], heuristic: .default))
        #expect(staleHop.freshnessLifetime == 0)
    }

    @Test func expiresOnAHopCounts() throws {
        let target = try final(["Cache-Control": "max-age=3600"])
        let hopWithExpires = hop(302, ["Date": HTTPDate.format(t0 + 1), "Expires": HTTPDate.format(t0 + 121)])
        let stored = try #require(target.restricted(byRedirects: [hopWithExpires], heuristic: .default))
        #expect(stored.isFresh(at: t0 + 100, heuristic: .default))
        #expect(!stored.isFresh(at: t0 + 121, heuristic: .default))
    }

    @Test func aCappedHeuristicTargetGetsAnExplicitLifetime() throws {
        // Target modified 2 h ago: heuristic 720 s; hop allows 60 s; the smaller wins.
        let target = try final(["Date": HTTPDate.format(t0 + 2), "Last-Modified": HTTPDate.format(t0 + 2 - 7_200)])
        let capped = try #require(target.restricted(byRedirects: [hop(301, ["Cache-Control": "max-age=60"])], heuristic: .default))
        #expect(capped.freshnessLifetime == 59)
        let uncapped = try #require(target.restricted(byRedirects: [hop(301, ["Cache-Control": "max-age=99999"])], heuristic: .default))
        #expect(uncapped.freshnessLifetime == 720)
    }

    @Test func theMostRestrictiveOfSeveralHopsWins() throws {
        let target = try final(["Cache-Control": "max-age=3600, immutable, stale-if-error=600, stale-while-revalidate=60"])
        let hops = [
            hop(301, ["Cache-Control": "max-age=600, immutable, stale-if-error=100, stale-while-revalidate=30"]),
            hop(308, ["Cache-Control": "max-age=300, immutable, must-revalidate, stale-if-error=50"]),
        ]
        let stored = try #require(target.restricted(byRedirects: hops, heuristic: .default))
        #expect(stored.isImmutable)
        #expect(stored.mustRevalidate)
        #expect(stored.staleIfError == 50)
        #expect(stored.staleWhileRevalidate == nil) // The second hop does not allow it.
        #expect(!stored.isFresh(at: t0 + 300, heuristic: .default))
        #expect(stored.isFresh(at: t0 + 299, heuristic: .default))
    }

    @Test func noCacheOnAHopMeansRevalidateEveryTime() throws {
        let target = try final(["Cache-Control": "max-age=3600"])
        let stored = try #require(target.restricted(byRedirects: [hop(301, ["Cache-Control": "no-cache"])], heuristic: .default))
        #expect(stored.noCache)
        #expect(stored.freshnessLifetime == 0)
        #expect(!stored.mayServeWithoutNetwork(at: t0 + 2, heuristic: .default))
    }

    @Test func noStoreOrUnreusableVaryOnAHopForbidsStoring() throws {
        let target = try final(["Cache-Control": "max-age=3600"])
        #expect(target.restricted(byRedirects: [hop(301), hop(302, ["Cache-Control": "no-store"])], heuristic: .default) == nil)
        #expect(target.restricted(byRedirects: [hop(302, ["Vary": "*"])], heuristic: .default) == nil)
        #expect(target.restricted(byRedirects: [hop(302, ["Vary": "Cookie"])], heuristic: .default) == nil)
    }

    @Test func varyOfHopsIsMerged() throws {
        let request = HTTPHeaders(["Accept": "a", "X-Width": "3"])
        let target = try #require(CachedResponseMetadata(
            headers: HTTPHeaders(["Cache-Control": "max-age=60", "Vary": "Accept"]), requestHeaders: request,
            requestTime: t0 + 1, responseTime: t0 + 2
        ))
        let stored = try #require(target.restricted(
            byRedirects: [hop(301, ["Vary": "X-Width, Accept"])], requestHeaders: request, heuristic: .default
        ))
        #expect(stored.vary == [VaryField(name: "accept", value: "a"), VaryField(name: "x-width", value: "3")])
    }

    @Test func noHopsChangesNothing() throws {
        let target = try final(["Cache-Control": "max-age=3600, immutable", "ETag": "\"x\""])
        #expect(target.restricted(byRedirects: [], heuristic: .default) == target)
    }
}
