import Foundation

/// Number formatting for the printed tables.
enum Format {
    static func number(_ value: Double, _ decimals: Int = 1) -> String {
        value.isFinite ? String(format: "%.\(decimals)f", value) : "-"
    }

    static func ratio(_ value: Double, to baseline: Double) -> String {
        guard value.isFinite, baseline.isFinite, value > 0 else { return "-" }
        return String(format: "%.2fx", value / baseline)
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
