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

    @inlinable
    init() {}

    @inlinable
    var isEmpty: Bool { first == nil }

    @inlinable
    mutating func append(_ value: Value) {
        if first == nil {
            first = value
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
