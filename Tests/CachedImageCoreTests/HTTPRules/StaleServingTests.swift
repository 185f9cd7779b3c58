import Foundation
import Testing
@testable import CachedImageCore

@Suite("Serving stale: stale-if-error, stale-while-revalidate, no-cache, must-revalidate")
struct StaleServingTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    /// All entries below are stored at t0 with age 0 and (unless stated) a 60 s lifetime.
    func entry(_ cacheControl: String?, extra: [String: String] = [:]) throws -> CachedResponseMetadata {
        var fields = extra
        if let cacheControl { fields["Cache-Control"] = cacheControl }
        return try #require(CachedResponseMetadata(headers: HTTPHeaders(fields), requestTime: t0, responseTime: t0))
    }
    let h = HeuristicFreshness.default

    @Test func directivesAreStored() throws {
        let meta = try entry("max-age=60, stale-if-error=600, stale-while-revalidate=30")
        #expect(meta.staleIfError == 600)
        #expect(meta.staleWhileRevalidate == 30)
        #expect(!meta.noCache)
        #expect(try entry("no-cache").noCache)
        #expect(try entry(nil, extra: ["Pragma": "no-cache"]).noCache)
        #expect(try !entry("max-age=5", extra: ["Pragma": "no-cache"]).noCache)
    }

    @Test func transportFailuresMayServeStaleUnlessForbidden() throws {
        let plain = try entry("max-age=60")
        #expect(plain.mayServeStale(afterError: .transport, at: t0 + 86_400 * 30, heuristic: h))
        #expect(try !entry("max-age=60, must-revalidate").mayServeStale(afterError: .transport, at: t0 + 61, heuristic: h))
        #expect(try !entry("no-cache").mayServeStale(afterError: .transport, at: t0, heuristic: h))
        #expect(try !entry("no-cache, stale-if-error=600").mayServeStale(afterError: .transport, at: t0 + 1, heuristic: h))
    }

    @Test func serverErrorsServeStaleOnlyWithinStaleIfError() throws {
        let plain = try entry("max-age=60")
        #expect(!plain.mayServeStale(afterError: .httpStatus(503), at: t0 + 61, heuristic: h))

        let allowed = try entry("max-age=60, stale-if-error=100")
        for status in [500, 502, 503, 504] {
            #expect(allowed.mayServeStale(afterError: .httpStatus(status), at: t0 + 60 + 99, heuristic: h))
            #expect(!allowed.mayServeStale(afterError: .httpStatus(status), at: t0 + 60 + 100, heuristic: h))
        }
        // Not "errors" for RFC 5861, and a 404 says the resource is gone.
        for status in [404, 410, 401, 403, 501, 429] {
            #expect(!allowed.mayServeStale(afterError: .httpStatus(status), at: t0 + 61, heuristic: h))
        }
        #expect(try !entry("max-age=60, stale-if-error=100, must-revalidate")
            .mayServeStale(afterError: .httpStatus(503), at: t0 + 61, heuristic: h))
    }

    @Test func aFreshEntryIsAlwaysUsableExceptNoCache() throws {
        let fresh = try entry("max-age=60, must-revalidate")
        #expect(fresh.mayServeStale(afterError: .httpStatus(404), at: t0 + 10, heuristic: h))
        #expect(fresh.mayServeWithoutNetwork(at: t0 + 10, heuristic: h))
    }

    @Test func cacheOnlyModeRefusesEntriesThatDemandRevalidation() throws {
        #expect(try entry("max-age=60").mayServeWithoutNetwork(at: t0 + 86_400, heuristic: h))
        #expect(try !entry("max-age=60, must-revalidate").mayServeWithoutNetwork(at: t0 + 60, heuristic: h))
        #expect(try !entry("no-cache").mayServeWithoutNetwork(at: t0, heuristic: h))
        // Heuristic entries follow the heuristic.
        let heuristic = try entry(nil, extra: ["Last-Modified": HTTPDate.format(t0 - 1_000)])
        #expect(heuristic.mayServeWithoutNetwork(at: t0 + 10_000, heuristic: h))
    }

    @Test func staleWhileRevalidateWindow() throws {
        let meta = try entry("max-age=60, stale-while-revalidate=30")
        #expect(!meta.isWithinStaleWhileRevalidate(at: t0 + 59, heuristic: h)) // Fresh: serve normally.
        #expect(meta.isWithinStaleWhileRevalidate(at: t0 + 60, heuristic: h))
        #expect(meta.isWithinStaleWhileRevalidate(at: t0 + 89, heuristic: h))
        #expect(!meta.isWithinStaleWhileRevalidate(at: t0 + 90, heuristic: h))
        #expect(try !entry("max-age=60").isWithinStaleWhileRevalidate(at: t0 + 61, heuristic: h))
        #expect(try !entry("max-age=60, stale-while-revalidate=30, must-revalidate").isWithinStaleWhileRevalidate(at: t0 + 61, heuristic: h))
        #expect(try !entry("no-cache, stale-while-revalidate=30").isWithinStaleWhileRevalidate(at: t0 + 1, heuristic: h))
    }

    @Test func notModifiedCacheControlReplacesTheStaleAllowances() throws {
        let stored = try entry("max-age=60, stale-if-error=600, stale-while-revalidate=30")
        let same = try #require(stored.revalidated(with: HTTPHeaders(["ETag": "\"x\""]), requestTime: t0, responseTime: t0))
        #expect(same.staleIfError == 600 && same.staleWhileRevalidate == 30)
        let replaced = try #require(stored.revalidated(with: HTTPHeaders(["Cache-Control": "max-age=5, no-cache"]), requestTime: t0, responseTime: t0))
        #expect(replaced.staleIfError == nil && replaced.staleWhileRevalidate == nil)
        #expect(replaced.noCache)
        let cleared = try #require(replaced.revalidated(with: HTTPHeaders(["Cache-Control": "max-age=5"]), requestTime: t0, responseTime: t0))
        #expect(!cleared.noCache)
        #expect(cleared.freshnessLifetime == 5)
    }
}
