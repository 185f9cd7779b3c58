import Foundation
import ToolSupport

/// IMF-fixdate formatting for the demo server's `Date` and `Last-Modified` headers.
enum HTTPDateFormat {
    private static let formatter = Protected<DateFormatter>({
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }())

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func string(from date: Date) -> String {
        formatter.withLock { $0.string(from: date) }
    }

    /// Parses an IMF-fixdate, or `nil`.
    static func date(from string: String) -> Date? {
        formatter.withLock { $0.date(from: string.trimmingCharacters(in: .whitespaces)) }
    }
}
