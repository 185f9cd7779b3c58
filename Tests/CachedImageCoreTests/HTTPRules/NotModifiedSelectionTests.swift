import Foundation
import Testing
@testable import CachedImageCore

@Suite("304 validators select the stored entry (RFC 9111 4.3.4)")
struct NotModifiedSelectionTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    let lastModified = "Tue, 14 Nov 2023 22:00:00 GMT"

    func stored(etag: String?, lastModified: String? = nil) -> CachedResponseMetadata {
        CachedResponseMetadata(etag: etag, lastModified: lastModified, storedAt: t0, freshnessLifetime: 60)
    }

    func selects(_ entry: CachedResponseMetadata, _ fields: [String: String]) -> Bool {
        entry.isSelected(byNotModified: HTTPHeaders(fields))
    }

    @Test func strongETagMustMatchStrongly() {
        #expect(selects(stored(etag: "\"v1\""), ["ETag": "\"v1\""]))
        #expect(!selects(stored(etag: "\"v1\""), ["ETag": "\"v2\""]))
        #expect(!selects(stored(etag: "W/\"v1\""), ["ETag": "\"v1\""]))
        #expect(!selects(stored(etag: nil, lastModified: lastModified), ["ETag": "\"v1\""]))
    }

    @Test func weakETagMatchesWeakly() {
        #expect(selects(stored(etag: "W/\"v1\""), ["ETag": "W/\"v1\""]))
        #expect(selects(stored(etag: "\"v1\""), ["ETag": "W/\"v1\""]))
        #expect(!selects(stored(etag: "W/\"v1\""), ["ETag": "W/\"v2\""]))
        // Nothing stored under an ETag: Last-Modified decides.
        #expect(selects(stored(etag: nil, lastModified: lastModified), ["ETag": "W/\"v1\"", "Last-Modified": lastModified]))
        #expect(!selects(stored(etag: nil, lastModified: lastModified), ["ETag": "W/\"v1\"", "Last-Modified": "Wed, 15 Nov 2023 22:00:00 GMT"]))
    }

    @Test func lastModifiedMustBeTheSameInstant() {
        let entry = stored(etag: nil, lastModified: lastModified)
        #expect(selects(entry, ["Last-Modified": lastModified]))
        #expect(selects(entry, ["Last-Modified": "Tuesday, 14-Nov-23 22:00:00 GMT"]))
        #expect(!selects(entry, ["Last-Modified": "Tue, 14 Nov 2023 22:00:01 GMT"]))
        #expect(selects(stored(etag: nil, lastModified: "v7"), ["Last-Modified": "v7"]))
        #expect(!selects(stored(etag: nil, lastModified: "v7"), ["Last-Modified": "v8"]))
        // The stored entry had no Last-Modified (it was revalidated by ETag): accepted.
        #expect(selects(stored(etag: "\"v1\""), ["Last-Modified": lastModified]))
    }

    @Test func noValidatorsSelectTheOnlyEntry() {
        #expect(selects(stored(etag: "\"v1\""), [:]))
        #expect(selects(stored(etag: "\"v1\""), ["Cache-Control": "max-age=60", "ETag": ""]))
    }

    @Test func outcomeCombinesSelectionAndUpdate() throws {
        let entry = stored(etag: "\"v1\"")
        let updated = entry.applyingNotModified(
            HTTPHeaders(["ETag": "\"v1\"", "Cache-Control": "max-age=120"]), requestTime: t0 + 100, responseTime: t0 + 100
        )
        let expected = try #require(entry.revalidated(
            with: HTTPHeaders(["ETag": "\"v1\"", "Cache-Control": "max-age=120"]), requestTime: t0 + 100, responseTime: t0 + 100
        ))
        #expect(updated == .updated(expected))
        #expect(expected.freshnessLifetime == 120)
        #expect(entry.applyingNotModified(HTTPHeaders(["ETag": "\"v2\""]), requestTime: t0, responseTime: t0) == .refetch)
        #expect(entry.applyingNotModified(HTTPHeaders(["Cache-Control": "no-store"]), requestTime: t0, responseTime: t0) == .remove)
        #expect(entry.applyingNotModified(
            HTTPHeaders(["Vary": "*"]), requestHeaders: HTTPHeaders(), requestTime: t0, responseTime: t0
        ) == .remove)
    }
}
