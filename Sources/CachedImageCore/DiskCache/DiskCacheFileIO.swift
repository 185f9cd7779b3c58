#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// The POSIX file operations of the disk cache: whole-entry reads with verification,
/// header-only reads, atomic writes, directory listings with sizes and dates.
///
/// Plain `open`/`pread`/`write`/`rename` keep a verified read within a few percent of a raw
/// `Data(contentsOf:)` and let the body land directly in its final buffer (no copy).
enum DiskCacheFileIO {
    /// The outcome of reading one entry file.
    enum ReadResult {
        case hit(body: Data, metadata: CachedResponseMetadata, fileSize: Int)
        /// No file at that path.
        case notFound
        /// A valid file, but for a different key (a hash collision).
        case keyMismatch(fileSize: Int)
        /// Truncated, garbage, wrong magic or version, bad checksum or length.
        case corrupt
    }

    /// The outcome of reading only the header of an entry file.
    enum HeaderResult {
        case header(key: String, bodyLength: Int, metadata: CachedResponseMetadata)
        case notFound
        case corrupt
    }

    /// A regular file found in a directory listing.
    struct ListedFile {
        var name: String
        var size: Int
        var modificationDate: Date
        /// When its status last changed: for a temporary file, when it was written (its
        /// modification date is the entry's access date).
        var statusChangeDate: Date
    }

    // MARK: Reading

    /// Reads and fully verifies the entry file at `path` for `key`.
    ///
    /// One `pread` brings the whole file into a single buffer; the returned body is a view into
    /// that buffer (no copy), which is freed with the `Data`. Files larger than `maximumSize`
    /// are treated as corrupt without being read.
    static func readEntry(atPath path: String, key: String, maximumSize: Int) -> ReadResult {
        let descriptor = openForReading(path)
        guard descriptor >= 0 else { return isMissing(errno) ? .notFound : .corrupt }
        defer { close(descriptor) }
        guard let fileSize = size(of: descriptor),
              fileSize >= DiskCacheEntryFormat.minimumHeaderLength,
              fileSize <= maximumSize,
              let buffer = malloc(fileSize)
        else { return .corrupt }
        let file = UnsafeRawBufferPointer(start: buffer, count: fileSize)
        guard readFully(descriptor, into: buffer, count: fileSize, offset: 0),
              let header = DiskCacheEntryFormat.parseHeader(file, fileSize: fileSize)
        else {
            free(buffer)
            return .corrupt
        }
        guard DiskCacheEntryFormat.storedKey(of: header, in: file, equals: key) else {
            free(buffer)
            return .keyMismatch(fileSize: fileSize)
        }
        let headerLength = header.headerLength
        let body = UnsafeRawBufferPointer(rebasing: file[headerLength...])
        guard DiskCacheEntryFormat.bodyChecksum(body) == header.bodyChecksum else {
            free(buffer)
            return .corrupt
        }
        guard header.bodyLength > 0 else {
            free(buffer)
            return .hit(body: Data(), metadata: header.metadata, fileSize: fileSize)
        }
        let data = Data(
            bytesNoCopy: buffer + headerLength,
            count: header.bodyLength,
            deallocator: .custom { pointer, _ in free(pointer - headerLength) }
        )
        return .hit(body: data, metadata: header.metadata, fileSize: fileSize)
    }

    /// Reads and verifies only the header of the entry file at `path` (not the body).
    static func readHeader(atPath path: String) -> HeaderResult {
        let descriptor = openForReading(path)
        guard descriptor >= 0 else { return isMissing(errno) ? .notFound : .corrupt }
        defer { close(descriptor) }
        guard let fileSize = size(of: descriptor),
              let (headerBytes, header) = readHeader(descriptor, fileSize: fileSize),
              let key = headerBytes.withUnsafeBytes({ DiskCacheEntryFormat.storedKey(of: header, in: $0) })
        else { return .corrupt }
        return .header(key: key, bodyLength: header.bodyLength, metadata: header.metadata)
    }

    private static func readHeader(
        _ descriptor: Int32,
        fileSize: Int
    ) -> ([UInt8], DiskCacheEntryFormat.Header)? {
        guard fileSize >= DiskCacheEntryFormat.minimumHeaderLength else { return nil }
        var bytes = readBytes(descriptor, count: min(fileSize, DiskCacheEntryFormat.readAheadLength))
        guard let declared = bytes?.withUnsafeBytes({
            DiskCacheEntryFormat.declaredHeaderLength($0, fileSize: fileSize)
        }) else { return nil }
        if declared > (bytes?.count ?? 0) {
            bytes = readBytes(descriptor, count: declared)
        }
        guard let bytes,
              let header = bytes.withUnsafeBytes({ DiskCacheEntryFormat.parseHeader($0, fileSize: fileSize) })
        else { return nil }
        return (bytes, header)
    }

    private static func readBytes(_ descriptor: Int32, count: Int) -> [UInt8]? {
        var succeeded = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress {
                succeeded = readFully(descriptor, into: UnsafeMutableRawPointer(base), count: count, offset: 0)
            }
            initialized = succeeded ? count : 0
        }
        return succeeded ? bytes : nil
    }

    /// The whole regular file at `path`, or `nil` if it is missing, unreadable or larger than
    /// `maximumSize`.
    static func readFile(atPath path: String, maximumSize: Int) -> [UInt8]? {
        let descriptor = openForReading(path)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let fileSize = size(of: descriptor), fileSize <= maximumSize else { return nil }
        return readBytes(descriptor, count: fileSize)
    }

    /// Opens `path` read-only. On Linux the read does not update the file's access time: the
    /// cache never looks at it, and under `relatime` the first read after each write or touch
    /// (the touch sets the modification date) would otherwise dirty the inode and write the
    /// journal, about 2.6 µs of every disk hit in a `perf record` of the demo.
    private static func openForReading(_ path: String) -> Int32 {
        #if os(Linux)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | nonBlocking | noAccessTime)
        // Only the file's owner may ask for it: a file of another user's is read normally.
        guard descriptor < 0, errno == EPERM else { return descriptor }
        #endif
        return open(path, O_RDONLY | O_CLOEXEC | nonBlocking)
    }

    /// Added to every `open` of a file in the directory, which other processes may have
    /// replaced with something that is not a regular file: `O_NONBLOCK`, so that a FIFO opens
    /// at once (instead of waiting forever for a writer or reader) and is then refused as not a
    /// regular file; it changes nothing for regular files.
    static let nonBlocking = O_NONBLOCK

    /// Added to every `open` that creates or writes a file in the directory: the last path
    /// component must not be a symbolic link, so a link planted at a predictable temporary
    /// name cannot make the cache truncate and overwrite a file elsewhere.
    static let noFollow = O_NOFOLLOW

    #if os(Linux)
    /// `O_NOATIME`, which Glibc's Swift module does not export (it needs `_GNU_SOURCE`); the
    /// value of every Linux architecture Swift supports.
    private static let noAccessTime: Int32 = 0o1_000_000
    #endif

    /// `pread`s exactly `count` bytes; `false` on error or early end of file.
    private static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, offset: Int) -> Bool {
        var done = 0
        while done < count {
            let result = pread(descriptor, buffer + done, count - done, off_t(offset + done))
            if result > 0 {
                done += result
            } else if result < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    private static func size(of descriptor: Int32) -> Int? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, isRegularFile(info) else { return nil }
        return Int(clamping: info.st_size) // `off_t` is 64 bits; `Int` may be 32 (watchOS).
    }

    private static func isMissing(_ code: Int32) -> Bool {
        code == ENOENT || code == ENOTDIR
    }

    // MARK: Writing

    /// How a write's rename went (``writeEntry(header:body:modificationDate:temporaryPath:finalPath:commit:)``).
    enum Commit: Equatable {
        /// Renamed into place.
        case committed
        /// Not attempted: the operation was interrupted (the temporary file is removed).
        case interrupted
        /// The rename failed (the temporary file is removed); whatever is at the final path is
        /// left alone: it may be another process's newer entry.
        case failed(POSIXError)
    }

    /// Renames `temporaryPath` over `finalPath` through `commit` (the directory lock's
    /// ``DiskCacheDirectoryLock/commit(_:)``, which skips it when the operation was
    /// interrupted), removing the temporary file unless it was renamed.
    private static func commitRename(_ temporaryPath: String, over finalPath: String, commit: (() -> Int32) -> Int32?) -> Commit {
        let outcome = commit { rename(temporaryPath, finalPath) == 0 ? 0 : errno }
        guard outcome == 0 else {
            unlink(temporaryPath)
            return outcome.map { .failed(posixError($0)) } ?? .interrupted
        }
        return .committed
    }

    /// Writes `header` then `body` to `temporaryPath`, stamps its modification date, and
    /// renames it over `finalPath` through `commit`. The rename is the commit: until it happens
    /// the final path still holds the previous version (or nothing). The temporary file is
    /// removed on failure. Throws when the temporary file could not be written (nothing was
    /// renamed).
    static func writeEntry(
        header: [UInt8],
        body: Data,
        modificationDate: Date,
        temporaryPath: String,
        finalPath: String,
        commit: (() -> Int32) -> Int32?
    ) throws -> Commit {
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | nonBlocking | noFollow, 0o644)
        guard descriptor >= 0 else { throw posixError() }
        var failure = header.withUnsafeBytes { writeAll(descriptor, $0) }
        if failure == 0 { failure = body.withUnsafeBytes { writeAll(descriptor, $0) } }
        if failure == 0 {
            var times = [makeTimespec(modificationDate), makeTimespec(modificationDate)]
            if futimens(descriptor, &times) != 0 { failure = errno }
        }
        guard failure == 0 else {
            close(descriptor)
            unlink(temporaryPath)
            throw posixError(failure)
        }
        guard close(descriptor) == 0 else {
            let error = posixError()
            unlink(temporaryPath)
            throw error
        }
        return commitRename(temporaryPath, over: finalPath, commit: commit)
    }

    /// Writes `bytes` to `temporaryPath` and renames it over `finalPath` through `commit`, so
    /// `finalPath` holds either its previous content or all of `bytes`, never a part.
    static func writeAtomically(
        _ bytes: [UInt8], temporaryPath: String, finalPath: String, commit: (() -> Int32) -> Int32?
    ) throws -> Commit {
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | nonBlocking | noFollow, 0o644)
        guard descriptor >= 0 else { throw posixError() }
        let failure = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
        let closed = close(descriptor) == 0 ? 0 : errno
        guard failure == 0, closed == 0 else {
            unlink(temporaryPath)
            throw posixError(failure != 0 ? failure : closed)
        }
        return commitRename(temporaryPath, over: finalPath, commit: commit)
    }

    /// Writes all of `bytes`; returns 0 or the `errno` of the failure.
    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let base = bytes.baseAddress else { return 0 }
        var done = 0
        while done < bytes.count {
            let result = write(descriptor, base + done, bytes.count - done)
            if result > 0 {
                done += result
            } else if result < 0, errno == EINTR {
                continue
            } else {
                return result < 0 ? errno : EIO
            }
        }
        return 0
    }

    /// Sets the modification (and access) date of the file at `path`; `false` if that failed.
    @discardableResult
    static func setModificationDate(_ date: Date, atPath path: String) -> Bool {
        var times = [makeTimespec(date), makeTimespec(date)]
        return utimensat(AT_FDCWD, path, &times, 0) == 0
    }

    /// Deletes the file at `path`. A file that is already gone is not an error.
    static func removeFile(atPath path: String) throws {
        guard unlink(path) == 0 else {
            let code = errno
            if code == ENOENT { return }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    // MARK: Directories

    /// The regular files directly inside `path` with their sizes and modification dates, from
    /// `readdir` and `fstatat` only: no file is opened.
    static func listFiles(atPath path: String) throws -> [ListedFile] {
        let descriptor = openDirectory(atPath: path)
        guard descriptor >= 0 else { throw posixError() }
        guard let directory = fdopendir(descriptor) else {
            let error = posixError()
            close(descriptor)
            throw error
        }
        defer { closedir(directory) }
        var files: [ListedFile] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, isRegularFile(info) else { continue }
            files.append(ListedFile(name: name, size: Int(clamping: info.st_size), modificationDate: modificationDate(info), statusChangeDate: statusChangeDate(info)))
        }
        return files
    }

    /// What identifies a directory and its last change: device, inode and modification time.
    /// Creating, renaming or deleting an entry in the directory changes its modification time;
    /// writing a file's content or dates does not.
    struct DirectoryStamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var seconds: Int64
        var nanoseconds: Int64
    }

    /// The directory at `path`'s stamp, or `nil` if it cannot be read or is not a directory.
    static func directoryStamp(atPath path: String) -> DirectoryStamp? {
        var info = stat()
        guard stat(path, &info) == 0, isDirectory(info) else { return nil }
        return stamp(info)
    }

    /// The stamp of the directory open as `descriptor` (`fstat`: no path lookup), or `nil`.
    static func directoryStamp(of descriptor: Int32) -> DirectoryStamp? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, isDirectory(info) else { return nil }
        return stamp(info)
    }

    private static func stamp(_ info: stat) -> DirectoryStamp {
        let time = modificationTime(info)
        return DirectoryStamp(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino),
            seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec)
        )
    }

    /// Whether `path` is a regular file large enough to be an entry (what a listing would index).
    static func mayHoldEntry(atPath path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && isRegularFile(info) && Int(clamping: info.st_size) >= DiskCacheEntryFormat.minimumHeaderLength
    }

    /// Opens the directory at `path` for reading (`O_DIRECTORY`); `errno` is set on failure.
    static func openDirectory(atPath path: String) -> Int32 {
        open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    private static func isRegularFile(_ info: stat) -> Bool {
        (UInt32(info.st_mode) & 0o170000) == 0o100000
    }

    static func isDirectory(_ info: stat) -> Bool {
        (UInt32(info.st_mode) & 0o170000) == 0o040000
    }

    private static func modificationTime(_ info: stat) -> timespec {
        #if canImport(Darwin)
        info.st_mtimespec
        #else
        info.st_mtim
        #endif
    }

    private static func modificationDate(_ info: stat) -> Date {
        let time = modificationTime(info)
        return Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1_000_000_000)
    }

    private static func statusChangeDate(_ info: stat) -> Date {
        #if canImport(Darwin)
        let time = info.st_ctimespec
        #else
        let time = info.st_ctim
        #endif
        return Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1_000_000_000)
    }

    private static func makeTimespec(_ date: Date) -> timespec {
        let seconds = date.timeIntervalSince1970
        // Within what `Int` holds (32 bits on watchOS): a date from a snapshot may be anything finite.
        let bound = min(1e15, Double(Int.max))
        let whole = seconds.isFinite ? min(max(seconds.rounded(.down), -bound), bound) : 0
        let nanoseconds = seconds.isFinite ? min(max(((seconds - whole) * 1_000_000_000).rounded(), 0), 999_999_999) : 0
        #if canImport(Darwin)
        return Darwin.timespec(tv_sec: Int(whole), tv_nsec: Int(nanoseconds))
        #elseif canImport(Glibc)
        return Glibc.timespec(tv_sec: Int(whole), tv_nsec: Int(nanoseconds))
        #else
        return Musl.timespec(tv_sec: Int(whole), tv_nsec: Int(nanoseconds))
        #endif
    }

    static func posixError(_ code: Int32 = errno) -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
}
