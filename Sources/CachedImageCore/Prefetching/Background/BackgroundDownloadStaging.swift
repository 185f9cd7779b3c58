#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// The folder where finished background downloads wait to be adopted: `background/` in the
/// disk cache's directory, which the cache's listing never reads (it lists only the files of
/// its directory itself), so a staged download never counts as an entry, is never served and
/// never evicted.
///
/// Each download is two files named `<entry>.<pid>.<token>`: the bytes (`.data`), moved in
/// first, then its record (`.json`, ``BackgroundDownloadRecord``), written atomically. The
/// record is the commit: a download is staged once its record exists, so a process that dies
/// mid-move leaves bytes without a record, which adoption ignores and deletes once their writer
/// is gone (or after ``leftoverAge``). Adoption deletes the record first, then the bytes, so an
/// adoption cut short leaves the same harmless kind of leftover. A record without its bytes
/// (nothing this code leaves) is deleted at once.
package struct BackgroundDownloadStaging: Sendable {
    /// The staging folder's name inside the cache directory.
    package static let folderName = "background"
    /// How old bytes without a record must be to count as left over while their writer runs.
    static let leftoverAge: TimeInterval = 60 * 60

    /// The staging folder.
    package let folderPath: String

    package init(cacheDirectoryPath: String) {
        folderPath = cacheDirectoryPath + "/" + Self.folderName
    }

    /// One staged download: its two files.
    package struct Item: Sendable, Equatable {
        package var dataPath: String
        package var recordPath: String

        /// The file name of the entry it is for (``KeyHasher/fileName(for:)``): its files' names
        /// up to the first dot.
        package var entryName: String {
            let name = dataPath.split(separator: "/").last ?? ""
            return String(name.prefix { $0 != "." })
        }
    }

    /// What a listing found.
    package struct Listing: Sendable, Equatable {
        /// Downloads fully staged (bytes and record).
        package var items: [Item] = []
        /// Files no staging can still need: delete them.
        package var leftovers: [String] = []
    }

    /// Moves the file at `location` into the folder and writes `record` beside it, synchronously
    /// (a background session deletes the file once its delegate callback returns).
    ///
    /// - Throws: The file system's error; nothing is staged then (the moved bytes are removed).
    package func stage(fileAt location: URL, record: BackgroundDownloadRecord) throws {
        try FileManager.default.createDirectory(atPath: folderPath, withIntermediateDirectories: true)
        let base = folderPath + "/" + Self.baseName(for: record.ticket.cacheKey)
        let dataPath = base + ".data"
        try FileManager.default.moveItem(at: location, to: URL(fileURLWithPath: dataPath))
        #if os(iOS) || os(tvOS) || os(visionOS) || os(watchOS)
        // A moved file keeps its own protection class: readable once the device was first
        // unlocked, so a relaunch while it is locked can adopt it.
        try? FileManager.default.setAttributes(
            [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: dataPath
        )
        #endif
        do {
            try record.encoded().write(to: URL(fileURLWithPath: base + ".json"), options: .atomic)
        } catch {
            try? FileManager.default.removeItem(atPath: dataPath)
            throw error
        }
    }

    /// `<entry>.<pid>.<token>`: the entry's file name, the staging process, a random token.
    static func baseName(for cacheKey: String) -> String {
        "\(KeyHasher.fileName(for: cacheKey)).\(getpid()).\(String(UInt64.random(in: 1...UInt64.max), radix: 16))"
    }

    /// The downloads staged in the folder and the leftovers (none when it does not exist).
    package func list(now: Date = Date()) -> Listing {
        guard let files = try? DiskCacheFileIO.listFiles(atPath: folderPath) else { return Listing() }
        var data: [String: DiskCacheFileIO.ListedFile] = [:]
        var records: Set<String> = []
        var listing = Listing()
        for file in files {
            if let base = Self.base(of: file.name, suffix: ".data") {
                data[base] = file
            } else if let base = Self.base(of: file.name, suffix: ".json") {
                records.insert(base)
            } else if now.timeIntervalSince(file.statusChangeDate) > Self.leftoverAge {
                // Not a name this code makes, or a record's atomic write that never finished.
                listing.leftovers.append(folderPath + "/" + file.name)
            }
        }
        for base in records.sorted() {
            if data[base] != nil {
                listing.items.append(Item(dataPath: folderPath + "/" + base + ".data", recordPath: folderPath + "/" + base + ".json"))
            } else {
                listing.leftovers.append(folderPath + "/" + base + ".json")
            }
        }
        for (base, file) in data.sorted(by: { $0.key < $1.key }) where !records.contains(base) && Self.isAbandoned(base, file, now: now) {
            listing.leftovers.append(folderPath + "/" + base + ".data")
        }
        return listing
    }

    /// What reading a staged file found.
    package enum Read: Equatable {
        /// The whole file.
        case bytes(Data)
        /// Larger than the limit: not read.
        case tooLarge
        /// Not a regular file (something replaced it): not read.
        case notAFile
        /// The file system refused (`errno`: missing, locked by data protection, out of
        /// descriptors, ...): a later sweep may succeed.
        case failed(POSIXError)
    }

    /// Reads the file at `path` into one `Data`, unless it is larger than `maximumSize`.
    package static func read(atPath path: String, maximumSize: Int) -> Read {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failed(Self.posixError()) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failed(Self.posixError()) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .notAFile }
        let size = Int(clamping: info.st_size)
        guard size <= maximumSize else { return .tooLarge }
        guard size > 0 else { return .bytes(Data()) }
        var data = Data(count: size)
        let failure = data.withUnsafeMutableBytes { buffer -> POSIXError? in
            guard let base = buffer.baseAddress else { return POSIXError(.EIO) }
            var done = 0
            while done < size {
                let result = pread(descriptor, base + done, size - done, off_t(done))
                if result > 0 {
                    done += result
                } else if result < 0, errno == EINTR {
                    continue
                } else {
                    // An error, or the file shrank under the read.
                    return result < 0 ? Self.posixError() : POSIXError(.EIO)
                }
            }
            return nil
        }
        return failure.map(Read.failed) ?? .bytes(data)
    }

    private static func posixError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    /// Deletes an item, its record first (the commit undone), then its bytes.
    package func remove(_ item: Item) {
        try? DiskCacheFileIO.removeFile(atPath: item.recordPath)
        try? DiskCacheFileIO.removeFile(atPath: item.dataPath)
    }

    /// Deletes everything staged (the cache was emptied).
    package func removeAll() {
        let listing = list(now: .distantFuture)
        for item in listing.items { remove(item) }
        for path in listing.leftovers { try? DiskCacheFileIO.removeFile(atPath: path) }
    }

    /// `name` without `suffix`, when it is `<entry>.<pid>.<token>` followed by it.
    private static func base(of name: String, suffix: String) -> String? {
        guard name.hasSuffix(suffix) else { return nil }
        let base = String(name.dropLast(suffix.count))
        let parts = base.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, DiskCacheEntryName(fileName: String(parts[0])) != nil, pid_t(parts[1]) != nil else { return nil }
        return base
    }

    /// Whether bytes without a record can no longer get one: their writer is gone (`kill(pid, 0)`
    /// says `ESRCH`) or they were moved in more than ``leftoverAge`` ago.
    private static func isAbandoned(_ base: String, _ file: DiskCacheFileIO.ListedFile, now: Date) -> Bool {
        if now.timeIntervalSince(file.statusChangeDate) > leftoverAge { return true }
        guard let pid = pid_t(base.split(separator: ".")[1]), pid > 0 else { return true }
        return kill(pid, 0) != 0 && errno == ESRCH
    }
}
