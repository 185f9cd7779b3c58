import Foundation

/// Number formatting for the printed tables.
enum Format {
    static func number(_ value: Double, _ decimals: Int = 1) -> String {
        value.isFinite ? String(format: "%.\(decimals)f", value) : "-"
    }

    static func ratio(_ value: Double, to baseline: Double) -> String {
        guard value.isFinite, baseline.isFinite, value > 0 else { return "-" }
        let ratio = value / baseline
        return ratio < 0.01 ? String(format: "%.4fx", ratio) : String(format: "%.2fx", ratio)
    }

    /// Milliseconds, switching to microseconds below 0.1 ms.
    static func milliseconds(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        return value < 0.1 ? String(format: "%.2f µs", value * 1_000) : String(format: "%.2f ms", value)
    }

    static func percent(_ fraction: Double) -> String {
        String(format: "%.1f%%", fraction * 100)
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.reversed().enumerated() {
            if index > 0 && index % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return String(out.reversed())
    }
}
