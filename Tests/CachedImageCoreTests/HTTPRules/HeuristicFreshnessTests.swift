import Foundation
import Testing
@testable import CachedImageCore

@Suite("Heuristic freshness (RFC 9111 4.2.2)")
struct HeuristicFreshnessTests {
    /// Request sent at t0, response received one second later (initial age 1 s).
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    var t1: Date { t0 + 1 }

    func metadata(_ fields: [String: String], status: Int = 200) -> CachedResponseMetadata? {
        CachedResponseMetadata(headers: HTTPHeaders(fields), statusCode: status, requestTime: t0, responseTime: t1)
    }

    func modified(secondsAgo: TimeInterval) -> [String: String] {
        ["Date": HTTPDate.format(t1), "Last-Modified": HTTPDate.format(t1 - secondsAgo)]
    }

    @Test func tenPercentOfTheTimeSinceLastModified() throws {
        // The S3/nginx case: modified 2 hours ago → 12 minutes, not 7 days.
        let meta = try #require(metadata(modified(secondsAgo: 7_200)))
        #expect(meta.freshnessLifetime == nil)
        #expect(meta.lastModifiedAge == 7_200)
        #expect(meta.lifetime(heuristic: .default) == 720)
        #expect(meta.isFresh(at: t1 + 700, heuristic: .default))
        #expect(!meta.isFresh(at: t1 + 719, heuristic: .default))
        #expect(meta.staleness(at: t1 + 729, heuristic: .default) == 10)
    }

    @Test func capDefaultsToOneDay() throws {
        let meta = try #require(metadata(modified(secondsAgo: 365 * 86_400)))
        #expect(HeuristicFreshness.default == .lastModifiedFraction(0.1, cap: 86_400))
        #expect(meta.lifetime(heuristic: .default) == 86_400)
        #expect(meta.lifetime(heuristic: .lastModifiedFraction(0.1, cap: 3_600)) == 3_600)
        #expect(meta.lifetime(heuristic: .lastModifiedFraction(0.5, cap: 365 * 86_400)) == 182.5 * 86_400)
    }

    @Test func withoutLastModifiedTheCapOrTheGivenValueApplies() throws {
        let meta = try #require(metadata(["Date": HTTPDate.format(t1)]))
        #expect(meta.lastModifiedAge == nil)
        #expect(meta.lifetime(heuristic: .default) == 86_400)
        #expect(meta.lifetime(heuristic: .lastModifiedFraction(0.1, cap: 600, withoutLastModified: 0)) == 0)
        #expect(!meta.isFresh(at: t1, heuristic: .lastModifiedFraction(0.1, cap: 600, withoutLastModified: 0)))
        // An unparseable Last-Modified counts as none (the verbatim validator is still kept).
        let garbage = try #require(metadata(["Last-Modified": "yesterday"]))
        #expect(garbage.lastModified == "yesterday")
        #expect(garbage.lastModifiedAge == nil)
    }

    @Test func fixedIsTheOldFlatLifetime() throws {
        let meta = try #require(metadata(modified(secondsAgo: 7_200)))
        #expect(meta.lifetime(heuristic: .fixed(7 * 86_400)) == 7 * 86_400)
        #expect(meta.isFresh(at: t1 + 86_400, heuristic: .fixed(7 * 86_400))
            == meta.isFresh(at: t1 + 86_400, heuristicLifetime: 7 * 86_400))
    }

    @Test func explicitFreshnessBeatsTheHeuristic() throws {
        let meta = try #require(metadata(modified(secondsAgo: 365 * 86_400).merging(["Cache-Control": "max-age=10"]) { $1 }))
        #expect(meta.lifetime(heuristic: .default) == 10)
        #expect(!meta.isFresh(at: t1 + 10, heuristic: .default))
    }

    @Test func lastModifiedAfterDateGivesNoHeuristicLifetime() throws {
        let meta = try #require(metadata(["Date": HTTPDate.format(t1), "Last-Modified": HTTPDate.format(t1 + 3_600)]))
        #expect(meta.lastModifiedAge == 0)
        #expect(!meta.isFresh(at: t1, heuristic: .default))
    }

    @Test func missingDateUsesTheResponseTime() throws {
        let meta = try #require(metadata(["Last-Modified": HTTPDate.format(t1 - 1_000)]))
        #expect(meta.lastModifiedAge == 1_000)
    }

    @Test(arguments: [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501])
    func heuristicallyCacheableStatusesKeepTheHeuristic(_ status: Int) throws {
        let meta = try #require(metadata(modified(secondsAgo: 7_200), status: status))
        #expect(meta.freshnessLifetime == nil)
    }

    @Test(arguments: [302, 303, 307, 201, 400, 403, 500, 503])
    func otherStatusesWithoutFreshnessAreStaleAtOnce(_ status: Int) throws {
        let meta = try #require(metadata(modified(secondsAgo: 7_200), status: status))
        #expect(meta.freshnessLifetime == 0)
        #expect(!meta.isFresh(at: t1, heuristic: .fixed(86_400)))
        // `public` marks any response as heuristically cacheable; explicit freshness always counts.
        let publicMeta = try #require(metadata(["Cache-Control": "public"], status: status))
        #expect(publicMeta.freshnessLifetime == nil)
        let explicit = try #require(metadata(["Cache-Control": "max-age=60"], status: status))
        #expect(explicit.freshnessLifetime == 60)
    }

    @Test func hostileHeuristicValuesStayFinite() {
        for heuristic in [
            HeuristicFreshness.lastModifiedFraction(.nan, cap: 100), .lastModifiedFraction(-1, cap: 100),
            .lastModifiedFraction(0.1, cap: .nan), .lastModifiedFraction(0.1, cap: .infinity),
            .fixed(.nan), .fixed(-1), .fixed(.infinity),
        ] {
            for age in [nil, 0, 1e300, -5, .nan] as [TimeInterval?] {
                let lifetime = heuristic.lifetime(lastModifiedAge: age)
                #expect(lifetime >= 0 && lifetime <= 2_147_483_648, "\(heuristic) \(String(describing: age))")
            }
        }
    }

    @Test func notModifiedRecomputesTheLastModifiedAge() throws {
        let stored = try #require(metadata(modified(secondsAgo: 1_000).merging(["ETag": "\"v1\""]) { $1 }))
        let later = t1 + 9_000
        let refreshed = try #require(stored.revalidated(
            with: HTTPHeaders(["Date": HTTPDate.format(later)]), requestTime: later, responseTime: later
        ))
        #expect(refreshed.lastModifiedAge == 10_000)
        #expect(refreshed.lifetime(heuristic: .default) == 1_000)
    }
}
