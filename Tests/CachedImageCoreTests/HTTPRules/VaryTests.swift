import Foundation
import Testing
@testable import CachedImageCore

@Suite("Vary (RFC 9111 4.1)")
struct VaryTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    func metadata(vary: String?, request: [String: String]) -> CachedResponseMetadata? {
        var fields = ["Cache-Control": "max-age=600"]
        if let vary { fields["Vary"] = vary }
        return CachedResponseMetadata(
            headers: HTTPHeaders(fields), requestHeaders: HTTPHeaders(request), requestTime: t0, responseTime: t0
        )
    }

    @Test func storesTheNamedRequestValues() throws {
        let meta = try #require(metadata(vary: "Accept", request: ["Accept": "image/webp", "X-Other": "1"]))
        #expect(meta.vary == [VaryField(name: "accept", value: "image/webp")])
        #expect(meta.matches(requestHeaders: ["accept": "image/webp"]))
        #expect(meta.matches(requestHeaders: ["ACCEPT": "  image/webp ", "X-Other": "2"]))
        #expect(!meta.matches(requestHeaders: ["Accept": "image/png"]))
        #expect(!meta.matches(requestHeaders: [:]))
    }

    @Test func namesAreLowercasedSortedAndUnique() throws {
        let meta = try #require(metadata(
            vary: " X-Width ,Accept-Encoding, accept,ACCEPT", request: ["Accept": "a", "X-Width": " 300 "]
        ))
        #expect(meta.vary == [
            VaryField(name: "accept", value: "a"),
            VaryField(name: "accept-encoding", value: nil),
            VaryField(name: "x-width", value: "300"),
        ])
        #expect(meta.matches(requestHeaders: ["Accept": "a", "x-width": "300"]))
        #expect(!meta.matches(requestHeaders: ["Accept": "a", "x-width": "300", "Accept-Encoding": "gzip"]))
    }

    @Test func anAbsentHeaderIsNotAnEmptyOne() throws {
        let absent = try #require(metadata(vary: "X-Token", request: [:]))
        #expect(absent.vary == [VaryField(name: "x-token", value: nil)])
        #expect(absent.matches(requestHeaders: [:]))
        #expect(!absent.matches(requestHeaders: ["X-Token": ""]))

        let empty = try #require(metadata(vary: "X-Token", request: ["X-Token": ""]))
        #expect(empty.vary == [VaryField(name: "x-token", value: "")])
        #expect(empty.matches(requestHeaders: ["X-Token": " "]))
        #expect(!empty.matches(requestHeaders: [:]))
    }

    @Test("whitespace around list commas is not part of a value: `1, 2`, `1,2`, ` 1 , 2 ` match; other values do not")
    func listWhitespaceIsNormalised() throws {
        let meta = try #require(metadata(vary: "Foo", request: ["Foo": "1, 2"]))
        #expect(meta.vary == [VaryField(name: "foo", value: "1,2")])
        for same in ["1,2", " 1 , 2 ", "1,\t2"] {
            #expect(meta.matches(requestHeaders: ["Foo": same]), "\(same)")
        }
        for other in ["1 2", "12", "1,2,", "2, 1", "1;2"] {
            #expect(!meta.matches(requestHeaders: ["Foo": other]), "\(other)")
        }
        // An entry stored before values were normalised (its value kept as sent) still matches.
        var older = meta
        older.vary = [VaryField(name: "foo", value: " 1 , 2")]
        #expect(older.matches(requestHeaders: ["Foo": "1,2"]))
        #expect(VaryField.normalizedValue(nil) == nil)
        #expect(VaryField.normalizedValue(" a ") == "a")
        #expect(VaryField.normalizedValue(" , ") == ",")
    }

    @Test func noVaryMatchesEverything() throws {
        for vary in [nil, "", " , ,"] as [String?] {
            let meta = try #require(metadata(vary: vary, request: ["Accept": "a"]))
            #expect(meta.vary.isEmpty)
            #expect(meta.matches(requestHeaders: ["Accept": "b", "Cookie": "x"]))
        }
    }

    @Test(arguments: ["*", "Accept, *", "Cookie", "accept, COOKIE", "Cookie2"])
    func starAndUnobservableHeadersAreNeverStored(_ vary: String) {
        #expect(metadata(vary: vary, request: ["Accept": "a", "Cookie": "session=1"]) == nil)
    }

    @Test func anEntryVaryingOnCookieNeverMatches() {
        // Defence in depth: such an entry cannot be created from headers, but a crafted one is refused.
        var meta = CachedResponseMetadata(storedAt: t0)
        meta.vary = [VaryField(name: "cookie", value: nil)]
        #expect(!meta.matches(requestHeaders: [:]))
    }

    @Test func thePipelinesAcceptIsFixedAndCallerValuesWin() {
        let added = HTTPRequestDefaults.headers(applyingDefaultsTo: ["Authorization": "Bearer x"])
        #expect(added["Accept"] == HTTPRequestDefaults.accept)
        #expect(added["Authorization"] == "Bearer x")
        let own = HTTPRequestDefaults.headers(applyingDefaultsTo: ["accept": "image/png"])
        #expect(own == ["accept": "image/png"])
        #expect(!HTTPRequestDefaults.accept.contains("avif"))
    }

    @Test func defaultAcceptMatchesAcrossRequests() throws {
        let sent = HTTPRequestDefaults.headers(applyingDefaultsTo: [:])
        let meta = try #require(metadata(vary: "Accept", request: sent))
        #expect(meta.matches(requestHeaders: HTTPRequestDefaults.headers(applyingDefaultsTo: [:])))
        #expect(!meta.matches(requestHeaders: ["Accept": "*/*"]))
    }

    @Test func notModifiedVaryReplacesTheStoredFields() throws {
        let stored = try #require(metadata(vary: "Accept", request: ["Accept": "a"]))
        let refreshed = try #require(stored.revalidated(
            with: HTTPHeaders(["Vary": "X-Width"]), requestHeaders: HTTPHeaders(["X-Width": "2"]),
            requestTime: t0, responseTime: t0
        ))
        #expect(refreshed.vary == [VaryField(name: "x-width", value: "2")])
        #expect(stored.revalidated(
            with: HTTPHeaders(["Vary": "*"]), requestHeaders: HTTPHeaders(), requestTime: t0, responseTime: t0
        ) == nil)
        // Without the request headers a 304's Vary cannot be evaluated: the stored fields stay.
        let kept = try #require(stored.revalidated(with: HTTPHeaders(["Vary": "X-Width"]), requestTime: t0, responseTime: t0))
        #expect(kept.vary == stored.vary)
    }
}
