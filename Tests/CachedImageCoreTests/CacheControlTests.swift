import Foundation
import Testing
@testable import CachedImageCore

@Suite("Cache-Control parsing")
struct CacheControlTests {
    @Test func parsesEveryDirective() {
        let cc = CacheControl(
            "max-age=60, s-maxage=120, no-store, no-cache, must-revalidate, proxy-revalidate, "
                + "immutable, private, public, stale-while-revalidate=30, stale-if-error=86400"
        )
        #expect(cc.maxAge == 60)
        #expect(cc.sharedMaxAge == 120)
        #expect(cc.noStore)
        #expect(cc.noCache)
        #expect(cc.mustRevalidate)
        #expect(cc.proxyRevalidate)
        #expect(cc.isImmutable)
        #expect(cc.isPrivate)
        #expect(cc.isPublic)
        #expect(cc.staleWhileRevalidate == 30)
        #expect(cc.staleIfError == 86_400)
    }

    @Test func emptyOrMissingMeansNoDirectives() {
        #expect(CacheControl(nil) == CacheControl())
        #expect(CacheControl("") == CacheControl())
        #expect(CacheControl(" , ,, ") == CacheControl())
    }

    @Test func toleratesCaseAndWhitespace() {
        let cc = CacheControl("  MAX-AGE = 60 ,\tNo-Store,Must-Revalidate  ")
        #expect(cc.maxAge == 60)
        #expect(cc.noStore)
        #expect(cc.mustRevalidate)
    }

    @Test func acceptsQuotedValues() {
        #expect(CacheControl("max-age=\"60\"").maxAge == 60)
        #expect(CacheControl("stale-if-error=\" 5 \"").staleIfError == 5)
    }

    @Test func noCacheWithFieldListCountsAsNoCache() {
        let cc = CacheControl("no-cache=\"Set-Cookie, X-Foo\", max-age=60")
        #expect(cc.noCache)
        // The comma inside the quotes does not split the directive list.
        #expect(cc.maxAge == 60)
        #expect(CacheControl("no-cache=Set-Cookie").noCache)
    }

    @Test func firstDuplicateWins() {
        #expect(CacheControl("max-age=10, max-age=1000").maxAge == 10)
        #expect(CacheControl("stale-while-revalidate=1, stale-while-revalidate=9").staleWhileRevalidate == 1)
    }

    @Test func invalidMaxAgeMeansStale() {
        #expect(CacheControl("max-age=abc").maxAge == 0)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl("max-age=1.5x").maxAge == 0)
        // A decimal counts as its integer part, as Safari and Firefox read it.
        #expect(CacheControl("max-age=1.5").maxAge == 1)
        #expect(CacheControl("max-age").maxAge == 0)
        #expect(CacheControl("max-age=").maxAge == 0)
    }

    @Test func invalidStaleExtensionsAreIgnored() {
        let cc = CacheControl("stale-while-revalidate=soon, stale-if-error")
        #expect(cc.staleWhileRevalidate == nil)
        #expect(cc.staleIfError == nil)
    }

    @Test func hugeValuesClampToTwoToTheThirtyOne() {
        let cc = CacheControl("max-age=99999999999999999999999999999999999, s-maxage=2147483649")
        #expect(cc.maxAge == 2_147_483_648)
        #expect(cc.sharedMaxAge == 2_147_483_648)
    }

    @Test func unknownDirectivesAreIgnored() {
        let cc = CacheControl("foo, bar=\"baz\", max-age=5, x-y=z")
        #expect(cc.maxAge == 5)
        #expect(!cc.noStore)
    }

    @Test(arguments: [
        "=", "==,=", "\"", "max-age=\"", "max-age=\"12", "no-store\"", ",,,=,,,", "\\", "max-age=\"\\",
        "max-age=\u{0}", "🤖=🤖, no-cache", String(repeating: "max-age=1,", count: 10_000),
        "max-age=\"60\"garbage, no-store",
    ])
    func garbageNeverCrashes(_ value: String) {
        _ = CacheControl(value)
    }

    @Test func garbageAroundValidDirectivesKeepsThem() {
        #expect(CacheControl("🤖=🤖, no-cache").noCache)
        #expect(CacheControl("max-age=\"60\"garbage, no-store").noStore)
        #expect(CacheControl("max-age=\"60\"garbage, no-store").maxAge == 60)
    }

    @Test func noStoreInsideAQuotedValueIsNotADirective() {
        #expect(!CacheControl("no-cache=\"no-store\"").noStore)
    }
}
