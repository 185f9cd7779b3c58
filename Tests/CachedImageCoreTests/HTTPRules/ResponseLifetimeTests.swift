import Foundation
import Testing
@testable import CachedImageCore

@Suite("Memory lifetime and negative caching from HTTP headers")
struct ResponseLifetimeTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    func metadata(_ fields: [String: String]) -> CachedResponseMetadata? {
        CachedResponseMetadata(headers: HTTPHeaders(fields), requestTime: t0, responseTime: t0 + 1)
    }

    func memory(_ fields: [String: String], honors: Bool = true, at now: Date? = nil) -> MemoryCacheLifetime {
        MemoryCacheLifetime.forResponse(metadata(fields), honorsHTTPFreshness: honors, heuristic: .default, at: now ?? t0 + 1)
    }

    // MARK: Memory

    @Test func noStoreAndUnreusableResponsesAreNeverKept() {
        #expect(memory(["Cache-Control": "no-store"]) == .doNotKeep)
        #expect(memory(["Cache-Control": "no-store"], honors: false) == .doNotKeep)
        #expect(memory(["Cache-Control": "max-age=60", "Vary": "Cookie"]) == .doNotKeep)
        #expect(memory(["Cache-Control": "max-age=60", "Vary": "*"], honors: false) == .doNotKeep)
    }

    @Test func noCacheAndZeroMaxAgeAreNotKept() {
        #expect(memory(["Cache-Control": "no-cache"]) == .doNotKeep)
        #expect(memory(["Cache-Control": "max-age=0"]) == .doNotKeep)
        #expect(memory(["Expires": "0"]) == .doNotKeep)
        #expect(memory(["Cache-Control": "max-age=60"], at: t0 + 1 + 59) == .doNotKeep) // Decoded after expiry.
    }

    @Test func freshResponsesExpireWhenTheyGoStale() {
        // Received at t0 + 1 with age 1 s: stale at t0 + 60.
        let lifetime = memory(["Cache-Control": "max-age=60, immutable"])
        #expect(lifetime == .until(t0 + 60))
        #expect(lifetime.allowsServing(at: t0 + 59.9))
        #expect(!lifetime.allowsServing(at: t0 + 60))
        #expect(memory(["Cache-Control": "max-age=60"], at: t0 + 31) == .until(t0 + 60))
        // Heuristic: modified 1000 s before Date → 100 s.
        let heuristic = memory(["Date": HTTPDate.format(t0 + 1), "Last-Modified": HTTPDate.format(t0 + 1 - 1_000)])
        #expect(heuristic == .until(t0 + 100))
    }

    @Test func ignoringHeadersKeepsStorableImagesWithoutLimit() {
        #expect(memory(["Cache-Control": "max-age=0"], honors: false) == .unlimited)
        #expect(memory(["Cache-Control": "no-cache"], honors: false) == .unlimited)
        #expect(MemoryCacheLifetime.unlimited.allowsServing(at: .distantFuture))
        #expect(!MemoryCacheLifetime.doNotKeep.allowsServing(at: t0))
    }

    // MARK: Failures

    func failure(_ status: Int, _ fields: [String: String] = [:], policy: FailureCachePolicy = .default) -> TimeInterval {
        policy.failureLifetime(statusCode: status, headers: fields, requestTime: t0, responseTime: t0)
    }

    @Test func defaultsByStatus() {
        #expect(failure(404) == 60)
        #expect(failure(410) == 60)
        #expect(failure(403) == 10)
        #expect(failure(429) == 10)
        #expect(failure(500) == 10)
        #expect(failure(503) == 10)
        #expect(failure(200) == 0)
        #expect(failure(304) == 0)
        #expect(failure(404, policy: .disabled) == 0)
        #expect(failure(503, policy: FailureCachePolicy(serverError: 3)) == 3)
    }

    @Test func retryAfterIsHonoured() {
        #expect(failure(503, ["Retry-After": "120"]) == 120)
        #expect(failure(429, ["Retry-After": " 5 "]) == 5)
        #expect(failure(503, ["Retry-After": "0"]) == 0)
        // An HTTP-date is relative to the response's Date (the server's clock).
        let serverNow = t0 - 3_600
        #expect(failure(503, ["Date": HTTPDate.format(serverNow), "Retry-After": HTTPDate.format(serverNow + 30)]) == 30)
        #expect(failure(503, ["Retry-After": HTTPDate.format(t0 + 45)]) == 45)
        #expect(failure(503, ["Retry-After": HTTPDate.format(t0 - 45)]) == 0)
        // Invalid values are ignored.
        #expect(failure(503, ["Retry-After": "soon"]) == 10)
        #expect(failure(503, ["Retry-After": "-5"]) == 10)
    }

    @Test func cacheControlOnTheErrorIsHonoured() {
        #expect(failure(404, ["Cache-Control": "max-age=30"]) == 30)
        #expect(failure(404, ["Cache-Control": "max-age=30", "Age": "10"]) == 20)
        #expect(failure(404, ["Cache-Control": "max-age=0"]) == 0)
        #expect(failure(404, ["Cache-Control": "no-cache"]) == 0)
        #expect(failure(404, ["Expires": HTTPDate.format(t0 + 90)]) == 90)
        // Both stated: the later retry time wins.
        #expect(failure(503, ["Cache-Control": "max-age=30", "Retry-After": "5"]) == 30)
        #expect(failure(503, ["Cache-Control": "max-age=5", "Retry-After": "40"]) == 40)
    }

    @Test func noStoreAndTheMaximumBound() {
        #expect(failure(404, ["Cache-Control": "no-store"]) == 0)
        #expect(failure(503, ["Cache-Control": "no-store", "Retry-After": "60"]) == 0)
        #expect(failure(503, ["Retry-After": "86400"]) == 600)
        #expect(failure(404, ["Cache-Control": "max-age=31536000"]) == 600)
        #expect(failure(503, ["Retry-After": "86400"], policy: FailureCachePolicy(maximum: 3_600)) == 3_600)
        #expect(failure(404, policy: FailureCachePolicy(notFound: 9_999, maximum: .nan)) == 0)
    }
}
