// Fuzz target "index-snapshots": the disk cache's persisted index (record count, directory stamp,
// change count, records, checksum), which any process that can write the cache directory may
// alter. The stamp and change count a reader expects are taken from the input itself, and a
// resealed copy (checksum made consistent) is read too, so the fuzzer reaches the records.
@testable import CachedImageCore
import Foundation

enum FuzzTarget {
    static func run(_ data: Data) {
        let bytes = [UInt8](data)
        read(bytes)
        if bytes.count >= DiskCacheIndexSnapshot.headerLength + 8 {
            var resealed = bytes
            let checksum = resealed.withUnsafeBytes { FastChecksum.checksum(UnsafeRawBufferPointer(rebasing: $0[..<(resealed.count - 8)])) }
            for index in 0..<8 { resealed[resealed.count - 8 + index] = UInt8(truncatingIfNeeded: checksum >> (index * 8)) }
            read(resealed)
        }
    }

    static func read(_ bytes: [UInt8]) {
        func word(_ offset: Int) -> UInt64 {
            guard offset + 8 <= bytes.count else { return 0 }
            return (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << ($1 * 8) }
        }
        let stamp = DiskCacheIndexSnapshot.Stamp(
            device: word(16), inode: word(24), seconds: Int64(bitPattern: word(32)), nanoseconds: Int64(bitPattern: word(40))
        )
        guard let records = DiskCacheIndexSnapshot.decode(bytes, expecting: stamp, changeCount: word(48), firstGeneration: 1) else {
            return
        }
        // What the cache then does with them: index them, and evict to a limit.
        var index = DiskCacheIndex()
        for record in records {
            index.upsert(record)
        }
        _ = index.evict(toFit: 1 << 20)
    }

    static func seeds() -> [String: Data] {
        let stamp = DiskCacheIndexSnapshot.Stamp(device: 2049, inode: 131_074, seconds: 1_700_000_000, nanoseconds: 5)
        var records: [DiskCacheIndex.Record] = []
        for index in 0..<4 {
            let name = DiskCacheEntryName(high: UInt64(index) &* 0x9E37_79B9_7F4A_7C15, low: UInt64(index) + 1)
            let accessDate = Date(timeIntervalSince1970: 1_700_000_000 + Double(index))
            records.append(DiskCacheIndex.Record(name: name, size: 1_000 * (index + 1), accessDate: accessDate, key: nil, generation: 0))
        }
        return [
            "empty": Data(DiskCacheIndexSnapshot.encode([], stamp: stamp, changeCount: 0)),
            "four": Data(DiskCacheIndexSnapshot.encode(records, stamp: stamp, changeCount: 7)),
        ]
    }
}
