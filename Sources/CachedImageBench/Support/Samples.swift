/// Repeated measurements of one quantity, summarised as median, min and max.
struct Samples {
    private(set) var values: [Double] = []

    init(_ values: [Double] = []) { self.values = values }

    mutating func add(_ value: Double) { values.append(value) }

    var median: Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }

    /// The value at `fraction` (0...1) of the sorted samples, nearest rank.
    func percentile(_ fraction: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank))]
    }

    /// "median (min-max)" with the given number of decimals.
    func summary(_ decimals: Int = 1) -> String {
        "\(Format.number(median, decimals)) (\(Format.number(min, decimals))-\(Format.number(max, decimals)))"
    }
}
