import Foundation
import Testing
@testable import CachedImageCore

@Suite("HTTP dates")
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT.
    let reference = Date(timeIntervalSince1970: 784_111_777)
    /// Some moment in 2025, used as "now" for two-digit years.
    let now2025 = Date(timeIntervalSince1970: 1_750_000_000)

    @Test func parsesIMFFixdate() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == reference)
    }

    @Test func parsesRFC850() {
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now2025) == reference)
    }

    @Test func parsesAsctime() {
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == reference)
        #expect(HTTPDate.parse("Sun Nov 06 08:49:37 1994") == reference)
    }

    @Test func rfc850TwoDigitYearsFollowTheFiftyYearRule() throws {
        // 2030 is less than 50 years after 2025; 2094 would be more, so it means 1994.
        let soon = try #require(HTTPDate.parse("Monday, 01-Jan-30 00:00:00 GMT", now: now2025))
        #expect(soon == Date(timeIntervalSince1970: 1_893_456_000))
        let past = try #require(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now2025))
        #expect(past == reference)
    }

    @Test func isLenientWhereHarmless() {
        #expect(HTTPDate.parse("sun, 06 nov 1994 08:49:37 gmt") == reference)
        #expect(HTTPDate.parse("  Sun,  6 Nov 1994 08:49:37 GMT  ") == reference)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 UTC") == reference)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 +0000") == reference)
        #expect(HTTPDate.parse("06 Nov 1994 08:49:37 GMT") == reference)
        // The weekday is not cross-checked.
        #expect(HTTPDate.parse("Mon, 06 Nov 1994 08:49:37 GMT") == reference)
    }

    @Test("strict (Expires): the three grammar forms in any letter case; UTC, extra spaces and a dashed four-digit year are invalid")
    func strictHoldsToTheGrammar() {
        for valid in [
            "Sun, 06 Nov 1994 08:49:37 GMT", "sun, 06 NOV 1994 08:49:37 gMT", "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994", "Sun, 6 Nov 1994 08:49:37 GMT",
        ] {
            #expect(HTTPDate.parse(valid, now: now2025, strict: true) == reference, "\(valid)")
        }
        for invalid in [
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 +0000", "Sun, 06 Nov 1994 08:49:37 Z",
            "Sun, 06  Nov  1994 08:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994  08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37GMT", "Sun, 06-Nov-1994 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT",
        ] {
            #expect(HTTPDate.parse(invalid, now: now2025, strict: true) == nil, "\(invalid)")
            #expect(HTTPDate.parse(invalid, now: now2025) != nil || invalid.hasPrefix("Sun 06"), "lenient still reads \(invalid)")
        }
    }

    @Test func leapDayAndEpochBoundaries() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Wed, 31 Dec 1969 23:59:59 GMT") == Date(timeIntervalSince1970: -1))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 12:00:00 GMT") == Date(timeIntervalSince1970: 951_825_600))
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == Date(timeIntervalSince1970: 253_402_300_799))
    }

    @Test(arguments: [
        "", "0", "-1", "garbage", "Sun, 06 Nov 1994", "Sun, 06 Nov 1994 08:49:37",
        "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT", "Thu, 29 Feb 2001 00:00:00 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 November 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 06 Nov 19945 08:49:37 GMT",
        "Sun, 06 Nov 0000 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT trailing",
        "Sunday, 06-Nov-994 08:49:37 GMT", "Sun Nov  6 08:49:37", "Sun Nov  6 8:49:37 1994",
        "Sun, 06 Nov 1994 08:49:37 GMT\u{0}", "Sün, 06 Nov 1994 08:49:37 GMT",
        String(repeating: "Sun, ", count: 100), "1994-11-06T08:49:37Z", "Sun,", ",,,", "Sun",
    ])
    func rejectsInvalidDates(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(reference) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_825_600.9)) == "Tue, 29 Feb 2000 12:00:00 GMT")
    }

    @Test func formattingExtremeDatesDoesNotCrash() {
        #expect(HTTPDate.format(.distantFuture) == "Mon, 01 Jan 4001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .infinity)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -.infinity)) == "Mon, 01 Jan 0001 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .nan)) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func formatThenParseRoundTripsAcrossCenturies() {
        // Every ~37 days from 1601 to 2400, covering leap years and century rules.
        var seconds: Int64 = -11_644_473_600
        while seconds < 13_569_465_600 {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
            seconds += 3_214_567
        }
    }

    @Test func isSafeToUseConcurrently() async {
        let expected = reference
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<500).allSatisfy { _ in
                        HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected
                            && HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT"
                    }
                }
            }
            for await ok in group { #expect(ok) }
        }
    }
}
