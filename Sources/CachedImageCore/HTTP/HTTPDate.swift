import Foundation

/// Parses and formats HTTP dates (RFC 9110 5.6.7) without `DateFormatter`: a hand-written,
/// allocation-free, locale-independent parser that is safe to call from any thread.
///
/// Accepted forms (all in GMT):
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT` (the only form servers should send)
/// - RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit year, see ``parse(_:now:strict:)``)
/// - asctime: `Sun Nov  6 08:49:37 1994`
///
/// Parsing is lenient where it is harmless: names are case-insensitive, the weekday is not
/// checked against the date (and may be omitted), the day may have one digit, extra spaces are
/// skipped, and `UTC`/`UT`/`Z`/`+0000` are accepted for `GMT`. Anything else gives `nil`.
///
/// `Expires` is parsed `strict`: RFC 9111 5.3 makes an invalid `Expires` mean "already expired",
/// so a date outside the grammar must not make a response fresh. Strict parsing keeps the
/// case-insensitive names, but takes one space where the grammar has one, only `GMT`, and a
/// two-digit year in the dashed (RFC 850) form.
enum HTTPDate {
    /// Parses an HTTP date, or returns `nil` when `string` is not one.
    ///
    /// - Parameter now: the reference for RFC 850 two-digit years, which are placed in the
    ///   current century unless that is more than 50 years in the future (then the previous
    ///   century). `nil` means the current date, read only when such a year is met.
    static func parse(_ string: String, now: Date? = nil, strict: Bool = false) -> Date? {
        // Real dates are under 40 bytes; refusing long input bounds the work on garbage.
        guard !string.isEmpty, string.utf8.count <= 64 else { return nil }
        if let result = string.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0, now: now, strict: strict) }) {
            return result
        }
        return Array(string.utf8).withUnsafeBufferPointer { parse(bytes: $0, now: now, strict: strict) }
    }

    /// Formats `date` as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// Fractional seconds are dropped; dates outside the years 1-9999 are clamped into them.
    static func format(_ date: Date) -> String {
        let raw = date.timeIntervalSince1970
        let clamped = raw.isNaN ? 0 : min(max(raw.rounded(.down), minimumSeconds), maximumSeconds)
        let seconds = Int64(clamped)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        let weekday = Int(floorDivide(days + 4, 7).remainder) // 1970-01-01 was a Thursday (4).

        var out: [UInt8] = []
        out.reserveCapacity(29)
        out.append(contentsOf: weekdayNames[weekday])
        out.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")])
        appendDigits(Int64(day), width: 2, to: &out)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: monthNames[Int(month) - 1])
        out.append(UInt8(ascii: " "))
        appendDigits(year, width: 4, to: &out)
        out.append(UInt8(ascii: " "))
        appendDigits(secondOfDay / 3_600, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, width: 2, to: &out)
        out.append(contentsOf: Array(" GMT".utf8))
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Parsing

    private static func parse(bytes: UnsafeBufferPointer<UInt8>, now: Date?, strict: Bool) -> Date? {
        var scanner = Scanner(bytes: bytes, strict: strict)
        scanner.skipSpaces()

        // Optional weekday, then either "," (IMF-fixdate / RFC 850) or " " (asctime).
        if scanner.peekIsLetter {
            let weekdayLength = scanner.skipLetters()
            guard weekdayLength >= 2, weekdayLength <= 9 else { return nil }
            if scanner.consume(UInt8(ascii: ",")) {
                guard scanner.separator(required: false) else { return nil }
                return parseDayFirst(&scanner, now: now)
            }
            return parseAsctime(&scanner)
        }
        return parseDayFirst(&scanner, now: now)
    }

    /// `06 Nov 1994 08:49:37 GMT` or `06-Nov-94 08:49:37 GMT`.
    private static func parseDayFirst(_ scanner: inout Scanner, now: Date?) -> Date? {
        guard let day = scanner.number(minDigits: 1, maxDigits: 2) else { return nil }
        let dashed = scanner.consume(UInt8(ascii: "-"))
        if !dashed { guard scanner.separator(required: true) else { return nil } }
        guard let month = scanner.month() else { return nil }
        let year: Int64
        if dashed {
            guard scanner.consume(UInt8(ascii: "-")) else { return nil }
            let start = scanner.index
            guard let value = scanner.number(minDigits: 2, maxDigits: 4) else { return nil }
            switch scanner.index - start {
            case 2: year = expandTwoDigitYear(value, now: now ?? Date())
            case 4 where !scanner.strict: year = value
            default: return nil
            }
        } else {
            guard scanner.separator(required: true),
                  let value = scanner.number(minDigits: 4, maxDigits: 4) else { return nil }
            year = value
        }
        guard scanner.separator(required: true), let time = scanner.timeOfDay() else { return nil }
        guard scanner.separator(required: false), scanner.zone(), scanner.atEndAfterSpaces() else { return nil }
        return makeDate(year: year, month: month, day: day, secondOfDay: time)
    }

    /// `Nov  6 08:49:37 1994` (after the weekday).
    private static func parseAsctime(_ scanner: inout Scanner) -> Date? {
        guard scanner.skipSpaces() > 0, let month = scanner.month(),
              scanner.skipSpaces() > 0, let day = scanner.number(minDigits: 1, maxDigits: 2),
              scanner.skipSpaces() > 0, let time = scanner.timeOfDay(),
              scanner.skipSpaces() > 0, let year = scanner.number(minDigits: 4, maxDigits: 4)
        else { return nil }
        scanner.skipSpaces()
        _ = scanner.zone() // Not part of asctime, but harmless when present.
        guard scanner.atEndAfterSpaces() else { return nil }
        return makeDate(year: year, month: month, day: day, secondOfDay: time)
    }

    private static func makeDate(year: Int64, month: Int64, day: Int64, secondOfDay: Int64) -> Date? {
        guard year >= 1, year <= 9_999, day >= 1, day <= daysInMonth(month, year: year) else {
            return nil
        }
        let days = days(fromCivilYear: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + secondOfDay))
    }

    /// RFC 9110 5.6.7: a two-digit year more than 50 years in the future means the most recent
    /// past year with the same last two digits.
    private static func expandTwoDigitYear(_ twoDigits: Int64, now: Date) -> Int64 {
        let nowSeconds = now.timeIntervalSince1970
        let safeSeconds = nowSeconds.isNaN ? 0 : min(max(nowSeconds, minimumSeconds), maximumSeconds)
        let currentYear = civil(fromDays: floorDivide(Int64(safeSeconds), 86_400).quotient).year
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, days since 1970-01-01)

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    private static let minimumSeconds: TimeInterval = -62_135_596_800
    private static let maximumSeconds: TimeInterval = 253_402_300_799

    private static func isLeapYear(_ year: Int64) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    private static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given date, counting years from March so that the leap day
    /// falls at the end of each 400-year cycle's year.
    private static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let cycle = floorDivide(marchYear, 400).quotient
        let yearOfCycle = marchYear - cycle * 400                          // 0...399
        let monthFromMarch = month > 2 ? month - 3 : month + 9              // 0...11
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1           // 0...365
        let dayOfCycle = yearOfCycle * 365 + yearOfCycle / 4 - yearOfCycle / 100 + dayOfYear
        return cycle * 146_097 + dayOfCycle - 719_468 // 719468 = days from 0000-03-01 to 1970-01-01
    }

    /// The inverse of ``days(fromCivilYear:month:day:)``.
    private static func civil(fromDays daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSinceEpoch + 719_468
        let cycle = floorDivide(shifted, 146_097).quotient
        let dayOfCycle = shifted - cycle * 146_097                          // 0...146096
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1_460 + dayOfCycle / 36_524
            - dayOfCycle / 146_096) / 365                                   // 0...399
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153                      // 0...11
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }

    private static func appendDigits(_ value: Int64, width: Int, to out: inout [UInt8]) {
        var digits: [UInt8] = []
        var rest = value
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        if digits.count < width {
            out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits.count))
        }
        out.append(contentsOf: digits.reversed())
    }

    private static let weekdayNames: [[UInt8]] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        .map { Array($0.utf8) }
    fileprivate static let monthNames: [[UInt8]] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ].map { Array($0.utf8) }

    // MARK: - Scanner

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Whether to hold to the grammar (``HTTPDate/parse(_:now:strict:)``).
        let strict: Bool
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, strict: Bool) {
            self.bytes = bytes
            self.strict = strict
        }

        /// The space between two parts of a day-first date: exactly one when strict; otherwise
        /// any number, at least one when `required`.
        mutating func separator(required: Bool) -> Bool {
            let count = skipSpaces()
            return strict ? count == 1 : (count > 0 || !required)
        }

        var peekIsLetter: Bool {
            index < bytes.count && Self.isLetter(bytes[index])
        }

        @discardableResult
        mutating func skipSpaces() -> Int {
            let start = index
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
            return index - start
        }

        mutating func skipLetters() -> Int {
            let start = index
            while index < bytes.count, Self.isLetter(bytes[index]) { index += 1 }
            return index - start
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
            var value: Int64 = 0
            var count = 0
            while index < bytes.count, count < maxDigits,
                  bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                index += 1
                count += 1
            }
            // A further digit means the field is too long (e.g. a 5-digit year).
            if index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                return nil
            }
            return count >= minDigits ? value : nil
        }

        /// A three-letter English month abbreviation, case-insensitive; returns 1...12.
        mutating func month() -> Int64? {
            guard index + 3 <= bytes.count else { return nil }
            let a = bytes[index] | 0x20, b = bytes[index + 1] | 0x20, c = bytes[index + 2] | 0x20
            for (offset, name) in HTTPDate.monthNames.enumerated()
            where name[0] | 0x20 == a && name[1] | 0x20 == b && name[2] | 0x20 == c {
                index += 3
                // "Nov" must not be the start of a longer word such as "November".
                if peekIsLetter { return nil }
                return Int64(offset + 1)
            }
            return nil
        }

        /// `HH:MM:SS` as seconds since midnight; a leap second (`:60`) is accepted.
        mutating func timeOfDay() -> Int64? {
            guard let hour = number(minDigits: 2, maxDigits: 2), hour <= 23,
                  consume(UInt8(ascii: ":")),
                  let minute = number(minDigits: 2, maxDigits: 2), minute <= 59,
                  consume(UInt8(ascii: ":")),
                  let second = number(minDigits: 2, maxDigits: 2), second <= 60
            else { return nil }
            return hour * 3_600 + minute * 60 + second
        }

        /// `GMT`; when not strict also `UTC`, `UT`, `Z`, `+0000` or `-0000`.
        mutating func zone() -> Bool {
            let start = index
            if !strict, consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-")) {
                if let offset = number(minDigits: 4, maxDigits: 4), offset == 0 { return true }
                index = start
                return false
            }
            let length = skipLetters()
            guard length > 0 else { return false }
            var word: UInt32 = 0
            for i in start..<index { word = word << 8 | UInt32(bytes[i] | 0x20) }
            switch (length, word) {
            case (3, 0x67_6D_74): // gmt
                return true
            case (3, 0x75_74_63), (2, 0x75_74), (1, 0x7A): // utc, ut, z: outside the grammar
                if !strict { return true }
            default:
                break
            }
            index = start
            return false
        }

        mutating func atEndAfterSpaces() -> Bool {
            skipSpaces()
            return index == bytes.count
        }

        private static func isLetter(_ byte: UInt8) -> Bool {
            (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
        }
    }
}
