import Foundation

/// The persisted copy of a ``DiskCache``'s index, so that opening the cache reads one file
/// instead of listing and `stat`ing every entry file.
///
/// A snapshot holds every record's file name, size and access date, least recently used first,
/// and the ``DiskCacheFileIO/DirectoryStamp`` of the cache directory when it was written. It is
/// trusted only when
/// - it is complete and intact (magic, version, length and checksum), and
/// - the directory's stamp (device, inode, modification time) is still the one it recorded: any
///   entry file created, replaced, renamed or deleted since, by anyone, changes the stamp, and
/// - the directory's change count (``DiskCacheDirectoryLock``) is still the one it recorded:
///   every cache, in any process, raises it before changing the directory, which a coarse
///   modification time could miss.
///
/// Otherwise the cache is opened from a directory listing, as without a snapshot. The cache also
/// deletes the snapshot before the first change it makes to the directory after writing it, so a
/// crash at any point leaves either a snapshot that matches the directory or none.
///
/// Layout (little-endian): `"CISN"`, version (`UInt32`), record count (`UInt64`), the directory
/// stamp (4 × 64 bits), the change count (`UInt64`), then per record the name's two words, the size (`Int64`) and the access
/// date (`Double` bits), and last the checksum of everything before it (``FastChecksum``).
enum DiskCacheIndexSnapshot {
    typealias Record = DiskCacheIndex.Record
    typealias Stamp = DiskCacheFileIO.DirectoryStamp

    static let magic: [UInt8] = Array("CISN".utf8)
    static let version: UInt32 = 2
    static let headerLength = 4 + 4 + 8 + 4 * 8 + 8
    static let recordLength = 4 * 8

    /// The snapshot's subdirectory of the cache directory, and its file name there.
    static let directoryName = "index"
    static let fileName = "snapshot"
    /// The change count's file, in the snapshot's subdirectory.
    static let changeCountFileName = "changes"

    /// The bytes of a snapshot of `records` (least recently used first) for a directory whose
    /// stamp is `stamp` and change count `changeCount`.
    static func encode(_ records: [Record], stamp: Stamp, changeCount: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerLength + records.count * recordLength + 8)
        bytes += magic
        append(version, to: &bytes)
        append(UInt64(records.count), to: &bytes)
        append(stamp.device, to: &bytes)
        append(stamp.inode, to: &bytes)
        append(stamp.seconds, to: &bytes)
        append(stamp.nanoseconds, to: &bytes)
        append(changeCount, to: &bytes)
        for record in records {
            append(record.name.high, to: &bytes)
            append(record.name.low, to: &bytes)
            append(Int64(record.size), to: &bytes)
            append(record.accessDate.timeIntervalSince1970.bitPattern, to: &bytes)
        }
        append(FastChecksum.checksum(bytes), to: &bytes)
        return bytes
    }

    /// The records of an intact snapshot whose stamp is `stamp` and change count `changeCount`,
    /// least recently used first, with generations `firstGeneration` and up; `nil` for anything else.
    static func decode(_ bytes: [UInt8], expecting stamp: Stamp, changeCount: UInt64, firstGeneration: UInt64) -> [Record]? {
        bytes.withUnsafeBytes { buffer -> [Record]? in
            guard buffer.count >= headerLength + 8, buffer.starts(with: magic) else { return nil }
            let checked = UnsafeRawBufferPointer(rebasing: buffer[..<(buffer.count - 8)])
            guard load(UInt64.self, buffer, at: buffer.count - 8) == FastChecksum.checksum(checked),
                  load(UInt32.self, buffer, at: 4) == version
            else { return nil }
            let count = load(UInt64.self, buffer, at: 8)
            guard count <= UInt64((buffer.count - headerLength - 8) / recordLength),
                  headerLength + Int(count) * recordLength + 8 == buffer.count,
                  Stamp(
                      device: load(UInt64.self, buffer, at: 16), inode: load(UInt64.self, buffer, at: 24),
                      seconds: load(Int64.self, buffer, at: 32), nanoseconds: load(Int64.self, buffer, at: 40)
                  ) == stamp,
                  load(UInt64.self, buffer, at: 48) == changeCount
            else { return nil }

            var records: [Record] = []
            records.reserveCapacity(Int(count))
            var total = 0
            for index in 0..<Int(count) {
                let offset = headerLength + index * recordLength
                let size = load(Int64.self, buffer, at: offset + 16)
                let seconds = Double(bitPattern: load(UInt64.self, buffer, at: offset + 24))
                guard size >= Int64(DiskCacheEntryFormat.minimumHeaderLength), size <= Int64(Int.max / 2),
                      seconds.isFinite
                else { return nil }
                guard DiskCacheIndex.fits(Int(size), onTop: total) else { return nil }
                total += Int(size)
                records.append(Record(
                    name: DiskCacheEntryName(high: load(UInt64.self, buffer, at: offset), low: load(UInt64.self, buffer, at: offset + 8)),
                    size: Int(size),
                    accessDate: Date(timeIntervalSince1970: seconds),
                    key: nil,
                    generation: firstGeneration + UInt64(index)
                ))
            }
            return records
        }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func load<T: FixedWidthInteger>(_: T.Type, _ buffer: UnsafeRawBufferPointer, at offset: Int) -> T {
        T(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
