import Foundation

/// Keeps the memory cache right for responses that vary (RFC 9111 4.1) without touching the
/// memory-hit path of those that do not.
///
/// A decoded image whose response had no `Vary` is kept under the request's plain
/// ``ImageCacheKey``. One whose response named `Vary` fields is kept under a *variant key*: the
/// plain key with a hash of the request's values for those fields (normalised as the disk cache
/// stores them: names lowercased, values by `VaryField.normalizedValue`, absent distinct from empty), and the field
/// names are recorded here per cache key. A lookup tries the plain key first, exactly as
/// before; only when it misses, and this cache key has a varying response in memory, does it
/// compute the request's variant key and try that. A request that sends other values gets
/// another key, so a mismatch is a miss.
///
/// The record is bounded: past ``capacity`` cache keys it is cleared, which only makes the
/// variant entries unreachable (misses), never serves a wrong one.
final class MemoryVariants: Sendable {
    private let names = Locked<[String: [String]]>([:])
    /// How many cache keys with a varying response are remembered at most.
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// The key `request`'s decoded image is kept under when its response varies on `vary`
    /// (the plain key when `vary` is empty), recording (or forgetting) the names for lookups.
    func storageKey(for request: ImageRequest, vary: [VaryField]) -> ImageCacheKey {
        let plain = ImageCacheKey(request)
        guard !vary.isEmpty else {
            // Usually nothing is recorded: skip the write when so.
            names.withLock { names in
                if names[request.cacheKey] != nil { names[request.cacheKey] = nil }
            }
            return plain
        }
        let fieldNames = vary.map(\.name)
        names.withLock { names in
            if names.count >= capacity, names[request.cacheKey] == nil { names.removeAll() }
            names[request.cacheKey] = fieldNames
        }
        // Values as stored (an entry written before the normalisation changed keeps its old
        // form), normalised as lookups normalise the request's.
        return Self.variantKey(plain, values: vary.map { VaryField(name: $0.name, value: VaryField.normalizedValue($0.value)) })
    }

    /// The variant key for `request` when its cache key has a varying response in memory;
    /// `nil` otherwise (the plain key is the only one).
    func lookupKey(for request: ImageRequest) -> ImageCacheKey? {
        guard let fieldNames = names.withLock({ $0[request.cacheKey] }) else { return nil }
        let sent = DataFetcher.sentHeaders(for: request)
        let values = fieldNames.map { VaryField(name: $0, value: VaryField.normalizedValue(sent[$0])) }
        return Self.variantKey(ImageCacheKey(request), values: values)
    }

    /// Forgets the varying fields of `cacheKey` (its variant entries become unreachable).
    func forget(_ cacheKey: String) {
        names.withLock { _ = $0.removeValue(forKey: cacheKey) }
    }

    /// Whether `key` is a variant key of `cacheKey`'s responses.
    static func isVariant(_ key: ImageCacheKey, of cacheKey: String) -> Bool {
        key.cacheKey.hasPrefix(cacheKey + variantMarker)
    }

    /// Between a variant key's cache key and the hash of its values.
    private static let variantMarker = "\u{1F}vary="

    private static func variantKey(_ plain: ImageCacheKey, values: [VaryField]) -> ImageCacheKey {
        let description = values.map { field in
            field.name + (field.value.map { "=" + $0 } ?? "") // Absent: no "=", so "" stays distinct.
        }.joined(separator: "\n")
        var key = plain
        key.cacheKey += variantMarker + KeyHasher.fileName(for: description)
        return key
    }
}
