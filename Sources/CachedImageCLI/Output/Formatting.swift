import Foundation

/// Number, size and duration formatting for the command line's human-readable output, fixed to
/// one style (commas, decimal megabytes) whatever the machine's locale.
enum Formatting {
    /// `1480` → `"1,480"`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// `24_100_000` → `"24.1 MB"`; decimal units, like Finder and most download tools.
    static func bytes(_ value: Int) -> String {
        let magnitude = Double(value)
        switch magnitude {
        case ..<1_000: return "\(value) B"
        case ..<1_000_000: return decimal(magnitude / 1_000) + " KB"
        case ..<1_000_000_000: return decimal(magnitude / 1_000_000) + " MB"
        default: return decimal(magnitude / 1_000_000_000) + " GB"
        }
    }

    /// `50_000_000` → `"50 Mbit/s"`, `780_000` → `"780 kbit/s"`.
    static func bitRate(_ bitsPerSecond: Int) -> String {
        let value = Double(bitsPerSecond)
        switch value {
        case ..<1_000_000: return decimal(value / 1_000) + " kbit/s"
        default: return decimal(value / 1_000_000) + " Mbit/s"
        }
    }

    /// Seconds → `"40 µs"`, `"2.5 ms"`, `"85 ms"`, `"3.2 s"`.
    static func duration(_ seconds: Double) -> String {
        let milliseconds = seconds * 1_000
        switch milliseconds {
        case ..<1: return String(format: "%.0f µs", milliseconds * 1_000)
        case ..<10: return String(format: "%.1f ms", milliseconds)
        case ..<1_000: return String(format: "%.0f ms", milliseconds)
        default: return String(format: "%.1f s", seconds)
        }
    }

    /// `0.623` → `"62%"`.
    static func percent(_ ratio: Double) -> String {
        String(format: "%.0f%%", ratio * 100)
    }

    /// A ratio such as `7.04` → `"7.0x"`.
    static func factor(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0fx", value) : String(format: "%.1fx", value)
    }

    /// `Date` → `"2026-11-22 01:02:03 UTC"`.
    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }

    /// A duration in seconds as a rough age: `"45 s"`, `"12 min"`, `"3 h"`, `"2 days"`.
    static func age(_ seconds: Double) -> String {
        let seconds = max(0, seconds)
        switch seconds {
        case ..<90: return "\(Int(seconds)) s"
        case ..<(90 * 60): return "\(Int(seconds / 60)) min"
        case ..<(36 * 3_600): return "\(Int(seconds / 3_600)) h"
        default: return "\(Int(seconds / 86_400)) days"
        }
    }

    private static func decimal(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }
}
