import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import CachedImageCore

@Suite("HTTP freshness and revalidation")
struct HTTPFreshnessTests {
    /// Request sent at t0, response received one second later.
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    var t1: Date { t0 + 1 }
    var t1Header: String { HTTPDate.format(t1) }

    func metadata(_ fields: [String: String]) -> CachedResponseMetadata? {
        CachedResponseMetadata(headers: HTTPHeaders(fields), requestTime: t0, responseTime: t1)
    }

    // MARK: Headers

    @Test func headerLookupIsCaseInsensitive() {
        let headers = HTTPHeaders(["ETag": "\"a\"", "content-TYPE": " image/png "])
        #expect(headers["etag"] == "\"a\"")
        #expect(headers["ETAG"] == "\"a\"")
        #expect(headers["Content-Type"] == "image/png")
        #expect(headers["Missing"] == nil)
    }

    @Test func caseVariantDuplicatesAreCombined() {
        let headers = HTTPHeaders(["Cache-Control": "max-age=60", "cache-control": "no-store"])
        #expect(headers["cache-control"] == "max-age=60, no-store")
        #expect(metadata(["Cache-Control": "max-age=60", "cache-control": "no-store"]) == nil)
    }

    @Test func headersFromHTTPURLResponse() throws {
        let url = try #require(URL(string: "https://example.com/a.png"))
        let response = try #require(HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: ["Cache-Control": "max-age=60", "ETag": "\"v1\""]
        ))
        let headers = HTTPHeaders(response)
        #expect(headers["cache-control"] == "max-age=60")
        #expect(headers["etag"] == "\"v1\"")
    }

    // MARK: Storing

    @Test func capturesValidatorsAndContentType() throws {
        let meta = try #require(metadata([
            "Content-Type": "image/jpeg", "ETag": "W/\"abc\"",
            "Last-Modified": "Tue, 14 Nov 2023 22:00:00 GMT", "Cache-Control": "max-age=60",
        ]))
        #expect(meta.contentType == "image/jpeg")
        #expect(meta.etag == "W/\"abc\"")
        #expect(meta.lastModified == "Tue, 14 Nov 2023 22:00:00 GMT")
        #expect(meta.storedAt == t1)
    }

    @Test func noStoreIsNotStored() {
        #expect(metadata(["Cache-Control": "no-store"]) == nil)
        #expect(metadata(["Cache-Control": "max-age=600, NO-STORE"]) == nil)
    }

    @Test func maxAgeGivesLifetime() throws {
        let meta = try #require(metadata(["Cache-Control": "max-age=60", "Date": t1Header]))
        #expect(meta.freshnessLifetime == 60)
        #expect(meta.isFresh(at: t1 + 58, heuristicLifetime: 0))
        #expect(!meta.isFresh(at: t1 + 60, heuristicLifetime: 3_600))
    }

    @Test func maxAgeBeatsExpires() throws {
        let meta = try #require(metadata([
            "Cache-Control": "max-age=10", "Date": t1Header, "Expires": HTTPDate.format(t1 + 3_600),
        ]))
        #expect(meta.freshnessLifetime == 10)
        let withInvalidExpires = try #require(metadata(["Cache-Control": "max-age=10", "Expires": "0"]))
        #expect(withInvalidExpires.freshnessLifetime == 10)
    }

    @Test func expiresMinusDateGivesLifetime() throws {
        // The server clock is an hour behind ours: Expires - Date is still 300 s.
        let serverNow = t1 - 3_600
        let meta = try #require(metadata([
            "Date": HTTPDate.format(serverNow), "Expires": HTTPDate.format(serverNow + 300),
        ]))
        #expect(meta.freshnessLifetime == 300)
    }

    @Test func expiresWithoutDateUsesResponseTime() throws {
        let meta = try #require(metadata(["Expires": HTTPDate.format(t1 + 120)]))
        #expect(meta.freshnessLifetime == 120)
    }

    @Test func expiresInThePastIsStale() throws {
        let meta = try #require(metadata(["Date": t1Header, "Expires": HTTPDate.format(t1 - 100)]))
        #expect(meta.freshnessLifetime == 0)
        #expect(!meta.isFresh(at: t1, heuristicLifetime: 3_600))
    }

    @Test(arguments: [
        "0", "-1", "never", "", "Sun, 99 Nov 1994 08:49:37 GMT",
        // Outside the grammar (RFC 9111 5.3): invalid, so already expired, however far ahead.
        "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT",
    ])
    func invalidExpiresMeansStale(_ expires: String) throws {
        let meta = try #require(metadata(["Date": t1Header, "Expires": expires]))
        #expect(meta.freshnessLifetime == 0)
        #expect(!meta.isFresh(at: t1, heuristicLifetime: 3_600))
    }

    @Test func noCacheIsStoredButNeverFresh() throws {
        for value in ["no-cache", "no-cache, max-age=3600", "max-age=3600, no-cache=\"Set-Cookie\""] {
            let meta = try #require(metadata(["Cache-Control": value, "ETag": "\"x\""]))
            #expect(meta.freshnessLifetime == 0)
            #expect(!meta.isFresh(at: t1, heuristicLifetime: 3_600))
            #expect(meta.hasValidators)
        }
    }

    @Test func pragmaNoCacheAppliesOnlyWithoutCacheControl() throws {
        let pragmaOnly = try #require(metadata(["Pragma": "no-cache"]))
        #expect(pragmaOnly.freshnessLifetime == 0)
        let both = try #require(metadata(["Pragma": "no-cache", "Cache-Control": "max-age=60"]))
        #expect(both.freshnessLifetime == 60)
    }

    @Test func heuristicAppliesOnlyWhenTheServerIsSilent() throws {
        let silent = try #require(metadata(["Date": t1Header, "Cache-Control": "public"]))
        #expect(silent.freshnessLifetime == nil)
        #expect(silent.isFresh(at: t1 + 100, heuristicLifetime: 600))
        #expect(!silent.isFresh(at: t1 + 600, heuristicLifetime: 600))

        let explicit = try #require(metadata(["Date": t1Header, "Cache-Control": "max-age=5"]))
        #expect(!explicit.isFresh(at: t1 + 100, heuristicLifetime: 600))
    }

    @Test func mustRevalidateAndImmutableFlags() throws {
        let meta = try #require(metadata(["Cache-Control": "max-age=60, must-revalidate, immutable"]))
        #expect(meta.mustRevalidate)
        #expect(meta.isImmutable)
        // proxy-revalidate is for shared caches only.
        let proxy = try #require(metadata(["Cache-Control": "max-age=60, proxy-revalidate"]))
        #expect(!proxy.mustRevalidate)
        #expect(!proxy.isImmutable)
    }

    @Test func sMaxAgeIsIgnoredByAPrivateCache() throws {
        let meta = try #require(metadata(["Cache-Control": "s-maxage=3600"]))
        #expect(meta.freshnessLifetime == nil)
    }

    // MARK: Age

    @Test func ageHeaderMakesAResponseOlder() throws {
        let meta = try #require(metadata(["Cache-Control": "max-age=100", "Age": "90", "Date": t1Header]))
        // Age 90 + 1 s response delay.
        #expect(meta.initialAge == 91)
        #expect(meta.currentAge(at: t1 + 5) == 96)
        #expect(meta.isFresh(at: t1 + 8, heuristicLifetime: 0))
        #expect(!meta.isFresh(at: t1 + 9, heuristicLifetime: 0))
    }

    @Test func apparentAgeFromAnOldDateHeader() throws {
        let meta = try #require(metadata(["Cache-Control": "max-age=100", "Date": HTTPDate.format(t1 - 40)]))
        #expect(meta.initialAge == 40)
    }

    @Test func serverDateInTheFutureAddsNoAge() throws {
        let meta = try #require(metadata(["Cache-Control": "max-age=100", "Date": HTTPDate.format(t1 + 86_400)]))
        // Only the response delay counts.
        #expect(meta.initialAge == 1)
    }

    @Test func invalidOrCombinedAgeHeaders() throws {
        #expect(try #require(metadata(["Age": "-5"])).initialAge == 1)
        #expect(try #require(metadata(["Age": "abc"])).initialAge == 1)
        #expect(try #require(metadata(["Age": "10, 20"])).initialAge == 11)
        #expect(try #require(metadata(["Age": "999999999999999999999"])).initialAge == 2_147_483_648 + 1)
    }

    @Test func clockGoingBackwardsDoesNotProduceNegativeAges() throws {
        let backwards = try #require(CachedResponseMetadata(
            headers: HTTPHeaders(["Cache-Control": "max-age=60"]), requestTime: t1 + 10, responseTime: t1
        ))
        #expect(backwards.initialAge == 0)
        #expect(backwards.currentAge(at: t1 - 1_000) == 0)
        #expect(backwards.isFresh(at: t1 - 1_000, heuristicLifetime: 0))
    }

    @Test func hugeLifetimesStayFiniteAndFresh() throws {
        let meta = try #require(metadata(["Cache-Control": "max-age=999999999999999999999999"]))
        #expect(meta.freshnessLifetime == 2_147_483_648)
        #expect(meta.isFresh(at: t1 + 86_400 * 365 * 50, heuristicLifetime: 0))
        #expect(meta.currentAge(at: .distantFuture).isFinite)
        #expect(!meta.isFresh(at: .distantFuture, heuristicLifetime: 0))

        let farExpires = try #require(metadata(["Expires": "Fri, 31 Dec 9999 23:59:59 GMT"]))
        #expect(farExpires.freshnessLifetime == 2_147_483_648)
    }

    @Test func nonFiniteHeuristicIsHarmless() throws {
        let meta = try #require(metadata([:]))
        #expect(!meta.isFresh(at: t1, heuristicLifetime: .nan))
        #expect(!meta.isFresh(at: t1, heuristicLifetime: -5))
        #expect(meta.isFresh(at: t1, heuristicLifetime: .infinity))
    }

    @Test(arguments: [
        ["Cache-Control": "\"", "Expires": "\u{0}", "Date": "🤖", "Age": "\\"],
        ["Cache-Control": ",,,=,,", "Expires": "Sun, 06 Nov", "Date": "Sun, 06 Nov 1994 99:99:99 GMT"],
        ["Cache-Control": "max-age=\"", "Age": "", "ETag": "", "Last-Modified": ""],
        ["": "x", " ": "y", "Age": "1,,,,,"],
    ])
    func garbageHeadersNeverCrash(_ fields: [String: String]) throws {
        let meta = try #require(metadata(fields))
        #expect(meta.initialAge >= 0)
        #expect(meta.currentAge(at: t1 + 10).isFinite)
        #expect(meta.etag == nil)
        #expect(meta.lastModified == nil)
        _ = meta.revalidated(with: HTTPHeaders(fields), requestTime: t1, responseTime: t1 + 1)
    }

    // MARK: Validators

    @Test func conditionalHeadersComeFromValidators() throws {
        let both = try #require(metadata(["ETag": "\"v1\"", "Last-Modified": "Tue, 14 Nov 2023 22:00:00 GMT"]))
        #expect(both.hasValidators)
        #expect(both.conditionalHeaders() == [
            "If-None-Match": "\"v1\"", "If-Modified-Since": "Tue, 14 Nov 2023 22:00:00 GMT",
        ])

        let etagOnly = try #require(metadata(["ETag": "\"v1\""]))
        #expect(etagOnly.conditionalHeaders() == ["If-None-Match": "\"v1\""])

        let none = try #require(metadata(["Cache-Control": "max-age=60"]))
        #expect(!none.hasValidators)
        #expect(none.conditionalHeaders().isEmpty)
    }

    // MARK: 304 revalidation

    @Test func notModifiedRefreshExtendsFreshnessAndKeepsOldValidators() throws {
        let stored = try #require(metadata([
            "Cache-Control": "max-age=60", "ETag": "\"v1\"", "Content-Type": "image/png",
            "Last-Modified": "Tue, 14 Nov 2023 22:00:00 GMT",
        ]))
        let later = t1 + 3_600
        #expect(!stored.isFresh(at: later, heuristicLifetime: 0))

        let refreshed = try #require(stored.revalidated(
            with: HTTPHeaders(["Cache-Control": "max-age=120", "Date": HTTPDate.format(later)]),
            requestTime: later - 1, responseTime: later
        ))
        #expect(refreshed.etag == "\"v1\"")
        #expect(refreshed.lastModified == "Tue, 14 Nov 2023 22:00:00 GMT")
        #expect(refreshed.contentType == "image/png")
        #expect(refreshed.storedAt == later)
        #expect(refreshed.initialAge == 1)
        #expect(refreshed.freshnessLifetime == 120)
        #expect(refreshed.isFresh(at: later + 100, heuristicLifetime: 0))
        #expect(!refreshed.isFresh(at: later + 119, heuristicLifetime: 0))
    }

    @Test func notModifiedWithoutFreshnessKeepsStoredLifetime() throws {
        let stored = try #require(metadata(["Cache-Control": "max-age=60, must-revalidate", "ETag": "\"v1\""]))
        let later = t1 + 3_600
        let refreshed = try #require(stored.revalidated(
            with: HTTPHeaders(["ETag": "\"v2\""]), requestTime: later, responseTime: later
        ))
        #expect(refreshed.etag == "\"v2\"")
        #expect(refreshed.freshnessLifetime == 60)
        #expect(refreshed.mustRevalidate)
        #expect(refreshed.isFresh(at: later + 30, heuristicLifetime: 0))
    }

    @Test func notModifiedCacheControlReplacesFlags() throws {
        let stored = try #require(metadata(["Cache-Control": "max-age=60, must-revalidate, immutable"]))
        let refreshed = try #require(stored.revalidated(
            with: HTTPHeaders(["Cache-Control": "max-age=30"]), requestTime: t1, responseTime: t1 + 1
        ))
        #expect(!refreshed.mustRevalidate)
        #expect(!refreshed.isImmutable)
    }

    @Test func notModifiedCanMakeTheEntryNoCacheOrStaleViaExpires() throws {
        let stored = try #require(metadata(["Cache-Control": "max-age=60"]))
        let noCache = try #require(stored.revalidated(
            with: HTTPHeaders(["Cache-Control": "no-cache"]), requestTime: t1, responseTime: t1
        ))
        #expect(noCache.freshnessLifetime == 0)

        let expired = try #require(stored.revalidated(
            with: HTTPHeaders(["Expires": "0"]), requestTime: t1, responseTime: t1
        ))
        #expect(expired.freshnessLifetime == 0)
    }

    @Test func notModifiedAgeIsRecomputed() throws {
        let stored = try #require(metadata(["Cache-Control": "max-age=100", "Age": "50"]))
        #expect(stored.initialAge == 51)
        let refreshed = try #require(stored.revalidated(
            with: HTTPHeaders(["Age": "10"]), requestTime: t1 + 500, responseTime: t1 + 502
        ))
        #expect(refreshed.initialAge == 12)
        #expect(refreshed.currentAge(at: t1 + 510) == 20)
    }

    @Test func notModifiedNoStoreMeansDelete() throws {
        let stored = try #require(metadata(["Cache-Control": "max-age=60", "ETag": "\"v1\""]))
        #expect(stored.revalidated(
            with: HTTPHeaders(["Cache-Control": "no-store"]), requestTime: t1, responseTime: t1
        ) == nil)
    }

    @Test func metadataSurvivesCodableRoundTrip() throws {
        let meta = try #require(metadata(["Cache-Control": "max-age=60, immutable", "ETag": "\"v1\"", "Age": "3"]))
        let decoded = try JSONDecoder().decode(CachedResponseMetadata.self, from: JSONEncoder().encode(meta))
        #expect(decoded == meta)
    }
}
