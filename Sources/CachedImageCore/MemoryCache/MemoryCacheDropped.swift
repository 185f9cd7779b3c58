/// Values that left ``MemoryCacheStorage`` during one operation (evicted, replaced, expired,
/// cleared), kept until ``MemoryCache`` has given up its lock and can release them.
///
/// The first value is stored inline and the rest in an array created only when needed, so the
/// usual case, one eviction per store, allocates nothing; an empty instance holds no reference
/// at all, so the hit path pays no retain or release for it.
@usableFromInline
struct MemoryCacheDropped<Value> {
    @usableFromInline var first: Value?
    @usableFromInline var others: [Value]?
    /// Whether nothing was dropped. A flag rather than `first == nil`: every lookup checks it,
    /// and comparing an optional `Value` with `nil` copies and destroys it, through the runtime's
    /// generic value witnesses for a value holding an existential (a `DecodedImage`).
    @usableFromInline var isEmpty = true

    @inlinable
    init() {}

    @inlinable
    mutating func append(_ value: Value) {
        if isEmpty {
            first = value
            isEmpty = false
        } else {
            appendOther(value)
        }
    }

    /// Out of line, so the common case stays small enough for callers to inline (the cache's hit
    /// path among them).
    @inlinable @inline(never)
    mutating func appendOther(_ value: Value) {
        if others == nil {
            others = [value]
        } else {
            others!.append(value)
        }
    }
}
