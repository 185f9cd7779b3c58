import Foundation

extension ImageFixtures {
    /// A small real PNG that is a pure function of `slot` and `version`: writers and verifiers in
    /// different processes (the crash test) or tasks (the soak test) agree on the exact bytes
    /// without sharing state. Sizes vary between about 1 and 12 KB.
    ///
    /// ```swift
    /// let bytes = ImageFixtures.versionedPNG(slot: 3, version: 17)
    /// #expect(entry.data == ImageFixtures.versionedPNG(slot: 3, version: 17))
    /// ```
    public static func versionedPNG(slot: Int, version: Int) -> Data {
        let width = 8 + (slot &* 7 &+ version) % 56
        let height = 8 + (version &* 3 &+ slot) % 40
        return png(width: width, height: height, seed: UInt64(truncatingIfNeeded: slot &* 1_000_003 &+ version))
    }
}
