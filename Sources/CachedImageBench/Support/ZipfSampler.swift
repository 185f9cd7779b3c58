import Foundation

/// Samples ranks `0..<n` with P(k) proportional to 1 / (k + 1)^alpha, by binary search in the
/// cumulative distribution.
struct ZipfSampler {
    private var cdf: [Double] = []

    init(count: Int, alpha: Double) {
        cdf.reserveCapacity(count)
        var sum = 0.0
        for rank in 1...count {
            sum += 1 / pow(Double(rank), alpha)
            cdf.append(sum)
        }
        for index in cdf.indices { cdf[index] /= sum }
    }

    func sample(_ rng: inout SplitMix) -> Int {
        let u = Double.random(in: 0..<1, using: &rng)
        var low = 0
        var high = cdf.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cdf[middle] < u { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
