@preconcurrency import Dispatch
import Foundation

/// A persistent, size-bounded cache of original image bytes on disk.
///
/// Each entry is one file in ``directory``, named by a stable 128-bit hash of its key and holding
/// a small header (the full key, the byte count, checksums and the ``CachedResponseMetadata``)
/// followed by the bytes exactly as downloaded. Reads verify everything: a truncated, corrupt or
/// foreign file, or one that belongs to a different key, is a miss (and corrupt files are
/// deleted), never wrong bytes.
///
/// - Reads (``entry(forKey:)``) are synchronous and mark the entry as recently used. The order is
///   persisted through the files' modification dates, so it survives a relaunch.
/// - Writes (``store(_:metadata:forKey:)``, ``updateMetadata(_:forKey:)``) return immediately and
///   happen on a private serial queue; until then the data is served from memory. Each write goes
///   to a temporary file that is renamed over the entry, so a crash never leaves a half-written
///   entry that reads back as valid.
/// - After every write the least recently used entries are evicted until ``totalSize`` is at most
///   ``sizeLimit``.
/// - Failures (disk full, a directory deleted or replaced under the cache) are reported to the
///   `errorHandler` as ``DiskCache/Error`` values and the entry is dropped; nothing throws after
///   `init`.
///
/// ```swift
/// let cache = try DiskCache(directory: cachesURL.appendingPathComponent("Images")) { error in
///     print(error)
/// }
/// cache.store(data, metadata: metadata, forKey: url.absoluteString)
/// if let entry = cache.entry(forKey: url.absoluteString) {
///     show(entry.data)
/// }
/// ```
///
/// One directory is used by one `DiskCache` at a time. In a process, ``shared(directory:sizeLimit:clock:errorHandler:)``
/// (what every ``ImagePipeline`` uses) hands out the same instance for the same directory;
/// across processes (an app and its extensions sharing a directory), an advisory lock on the
/// directory lets the first process in, and a second one fails to open with a
/// ``DiskCache/Error`` whose operation is `.open` (a pipeline then runs without a disk cache and
/// reports it in ``ImagePipeline/diskCacheOpenError``).
public final class DiskCache: Sendable {
    /// A cached response: the original bytes and what was known about them.
    public struct Entry: Sendable, Hashable {
        /// The key the entry was stored under.
        public let key: String
        /// The bytes exactly as stored.
        public let data: Data
        /// The HTTP caching metadata stored with the bytes.
        public let metadata: CachedResponseMetadata

        /// Creates an entry value.
        public init(key: String, data: Data, metadata: CachedResponseMetadata) {
            self.key = key
            self.data = data
            self.metadata = metadata
        }
    }

    /// A description of a stored entry without its bytes, from ``allEntries()``.
    public struct EntryInfo: Sendable, Hashable {
        /// The key the entry was stored under.
        public let key: String
        /// The number of stored bytes (the body, without the file's header).
        public let byteCount: Int
        /// The HTTP caching metadata stored with the bytes.
        public let metadata: CachedResponseMetadata
        /// When the entry was last read or stored.
        public let lastAccessDate: Date
    }

    /// The default size limit: 150 MB.
    public static let defaultSizeLimit = 150 * 1024 * 1024

    /// The directory holding the entry files.
    public let directory: URL
    /// The maximum ``totalSize``, in bytes, enforced after every write.
    public let sizeLimit: Int

    private let directoryPath: String
    private let temporaryDirectoryPath: String
    private let clock: any CacheClock
    private let errorHandlers: Locked<[@Sendable (DiskCache.Error) -> Void]>
    /// The directory's advisory lock, held while this instance lives.
    private let directoryLock: DiskCacheDirectoryLock
    private let fileNameForKey: @Sendable (String) -> String
    /// The serial queue all file mutations run on (internal so tests can hold it).
    let queue = DispatchQueue(label: "CachedImage.DiskCache", qos: .utility)
    private let state: Locked<State>

    /// How long read access dates are collected before being written as modification dates.
    private static let touchPersistenceDelay: DispatchTimeInterval = .seconds(1)

    private typealias Record = DiskCacheIndex.Record
    private typealias FileIO = DiskCacheFileIO
    private typealias Format = DiskCacheEntryFormat

    private struct State {
        var index: DiskCacheIndex
        /// Entries (or metadata updates) not yet written, served from memory until they are.
        var staged: [String: Staged] = [:]
        /// Access dates not yet persisted as modification dates.
        var pendingTouches: [String: Date] = [:]
        var isTouchWriteScheduled = false
        var nextGeneration: UInt64

        mutating func makeGeneration() -> UInt64 {
            defer { nextGeneration += 1 }
            return nextGeneration
        }
    }

    private struct Staged {
        var key: String
        /// `nil` for a metadata-only update of an entry already on disk.
        var body: Data?
        var metadata: CachedResponseMetadata
        var generation: UInt64
    }

    private enum Lookup {
        case miss
        case hit(Entry)
        case disk(generation: UInt64, metadataOverride: CachedResponseMetadata?)
    }

    /// Opens (or creates) the cache in `directory`.
    ///
    /// Opening lists the directory (names, sizes and modification dates only; no entry is read),
    /// deletes leftover temporary files from an interrupted write, and evicts entries if the
    /// directory holds more than `sizeLimit` bytes.
    ///
    /// - Parameters:
    ///   - directory: The cache's own directory; created with its parents if needed.
    ///   - sizeLimit: The maximum total size of the entry files, in bytes.
    ///   - clock: The source of access dates, which decide the eviction order.
    ///   - errorHandler: Called, on the cache's private queue, when a write, update or removal
    ///     fails. Do not call ``flush()`` from it.
    /// - Throws: ``DiskCache/Error`` if the directory cannot be created or listed.
    public convenience init(
        directory: URL,
        sizeLimit: Int = DiskCache.defaultSizeLimit,
        clock: any CacheClock = SystemClock(),
        errorHandler: (@Sendable (DiskCache.Error) -> Void)? = nil
    ) throws {
        try self.init(
            directory: directory,
            sizeLimit: sizeLimit,
            clock: clock,
            errorHandler: errorHandler,
            fileNameForKey: { KeyHasher.fileName(for: $0) }
        )
    }

    /// The designated initializer; `fileNameForKey` lets tests force hash collisions.
    init(
        directory: URL,
        sizeLimit: Int,
        clock: any CacheClock,
        errorHandler: (@Sendable (DiskCache.Error) -> Void)?,
        fileNameForKey: @escaping @Sendable (String) -> String
    ) throws {
        let directory = directory.standardizedFileURL
        self.directory = directory
        self.sizeLimit = max(0, sizeLimit)
        self.directoryPath = directory.path
        self.temporaryDirectoryPath = directory.appendingPathComponent("tmp", isDirectory: true).path
        self.clock = clock
        self.errorHandlers = Locked(errorHandler.map { [$0] } ?? [])
        self.fileNameForKey = fileNameForKey

        try Self.createDirectories(directoryPath, temporaryDirectoryPath)
        self.directoryLock = try DiskCacheDirectoryLock(directoryPath: directoryPath)
        Self.removeTemporaryFiles(in: temporaryDirectoryPath)
        let files: [FileIO.ListedFile]
        do {
            files = try FileIO.listFiles(atPath: directoryPath)
        } catch {
            throw Error(operation: .open, key: nil, path: directoryPath, underlying: error)
        }

        var index = DiskCacheIndex()
        var generation: UInt64 = 1
        var unusable: [Record] = []
        let entryFiles = files
            .filter { KeyHasher.isFileName($0.name) }
            .sorted { ($0.modificationDate, $0.name) < ($1.modificationDate, $1.name) }
        for file in entryFiles {
            let record = Record(
                name: file.name, size: file.size, accessDate: file.modificationDate, key: nil, generation: generation
            )
            generation += 1
            // Too small to hold even a header: delete without opening it.
            if file.size < Format.minimumHeaderLength {
                unusable.append(record)
            } else {
                index.upsert(record)
            }
        }
        let evicted = index.evict(toFit: self.sizeLimit)
        state = Locked(State(index: index, nextGeneration: generation))
        let doomed = unusable + evicted
        if !doomed.isEmpty {
            queue.async { self.deleteFiles(doomed) }
        }
    }

    // MARK: Reading

    /// The entry stored under `key`, fully verified, or `nil`.
    ///
    /// Marks the entry as the most recently used. Serves entries whose write is still pending
    /// from memory. A file that fails verification is a miss and is deleted.
    public func entry(forKey key: String) -> Entry? {
        let name = fileNameForKey(key)
        let now = clock.now
        let lookup: Lookup = state.withLock { state in
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else {
                return .miss
            }
            if let staged = state.staged[name] {
                guard staged.key == key else { return .miss }
                if let body = staged.body {
                    state.index.touch(name, at: now)
                    return .hit(Entry(key: key, data: body, metadata: staged.metadata))
                }
                return .disk(generation: record.generation, metadataOverride: staged.metadata)
            }
            return .disk(generation: record.generation, metadataOverride: nil)
        }

        let generation: UInt64
        let metadataOverride: CachedResponseMetadata?
        switch lookup {
        case .miss:
            return nil
        case .hit(let entry):
            return entry
        case .disk(let diskGeneration, let override):
            generation = diskGeneration
            metadataOverride = override
        }

        switch FileIO.readEntry(atPath: path(for: name), key: key, maximumSize: sizeLimit) {
        case .hit(let body, let metadata):
            state.withLock { state in
                guard state.index.record(named: name)?.generation == generation else { return }
                state.index.modify(name) { $0.key = key }
                state.index.touch(name, at: now)
                if state.staged[name] == nil {
                    schedulePersistedTouch(name, at: now, in: &state)
                }
            }
            return Entry(key: key, data: body, metadata: metadataOverride ?? metadata)
        case .keyMismatch:
            return nil
        case .notFound:
            forget(name, generation: generation, deletingFile: false)
            return nil
        case .corrupt:
            forget(name, generation: generation, deletingFile: true)
            return nil
        }
    }

    /// Whether an entry is indexed under `key`. Reads nothing from disk and does not count as a
    /// use. Can be `true` for an entry that then turns out to be corrupt (a later read misses).
    public func containsEntry(forKey key: String) -> Bool {
        let name = fileNameForKey(key)
        return state.withLock { state in
            guard let record = state.index.record(named: name) else { return false }
            return record.key == nil || record.key == key
        }
    }

    /// The sum of the sizes of all entry files (headers included), in bytes.
    public var totalSize: Int {
        state.withLock { $0.index.totalSize }
    }

    /// The number of entries.
    public var entryCount: Int {
        state.withLock { $0.index.count }
    }

    /// Every entry's key, byte count, metadata and last access date, most recently used first.
    ///
    /// Reads each file's header but not its bytes; meant for diagnostics, not hot paths.
    /// Entries whose header is corrupt are left out and deleted.
    public func allEntries() -> [EntryInfo] {
        let (records, staged) = state.withLock { ($0.index.recordsByRecency(), $0.staged) }
        var infos: [EntryInfo] = []
        infos.reserveCapacity(records.count)
        for record in records.reversed() {
            let pending = staged[record.name]
            if let pending, let body = pending.body {
                infos.append(EntryInfo(
                    key: pending.key, byteCount: body.count, metadata: pending.metadata,
                    lastAccessDate: record.accessDate
                ))
                continue
            }
            switch FileIO.readHeader(atPath: path(for: record.name)) {
            case .header(let key, let byteCount, let metadata):
                infos.append(EntryInfo(
                    key: key, byteCount: byteCount, metadata: pending?.metadata ?? metadata,
                    lastAccessDate: record.accessDate
                ))
            case .notFound:
                forget(record.name, generation: record.generation, deletingFile: false)
            case .corrupt:
                forget(record.name, generation: record.generation, deletingFile: true)
            }
        }
        return infos
    }

    // MARK: Writing

    /// Stores `data` and its metadata under `key`, replacing any previous entry.
    ///
    /// Returns at once; the file is written on the cache's queue, and the entry is served from
    /// memory until then. Least recently used entries are evicted so that ``totalSize`` stays
    /// within ``sizeLimit``. An entry larger than the limit on its own is not stored (and any
    /// previous entry for the key is removed).
    public func store(_ data: Data, metadata: CachedResponseMetadata, forKey key: String) {
        let name = fileNameForKey(key)
        let headerLength = Format.headerLength(keyByteCount: key.utf8.count, metadata: metadata)
        let size = headerLength + data.count
        let now = clock.now
        state.withLock { state in
            guard size <= sizeLimit, headerLength <= Format.maximumHeaderLength else {
                removeLocked(name, key: key, in: &state)
                return
            }
            let generation = state.makeGeneration()
            state.staged[name] = Staged(key: key, body: data, metadata: metadata, generation: generation)
            state.pendingTouches[name] = nil
            state.index.upsert(Record(name: name, size: size, accessDate: now, key: key, generation: generation))
            let evicted = evictLocked(protecting: name, in: &state)
            queue.async { self.performWrite(name: name, generation: generation, evicting: evicted) }
        }
    }

    /// Replaces the metadata of the entry under `key`, keeping its bytes, e.g. after an HTTP
    /// `304 Not Modified`. Does nothing if there is no such entry.
    ///
    /// Visible at once; the header is rewritten on the cache's queue, atomically (the whole file
    /// is rewritten to a temporary file and renamed over the old one).
    public func updateMetadata(_ metadata: CachedResponseMetadata, forKey key: String) {
        let name = fileNameForKey(key)
        state.withLock { state in
            updateMetadataLocked(metadata, key: key, name: name, in: &state)
        }
    }

    /// Replaces the metadata of `entry` (as ``entry(forKey:)`` returned it), keeping its bytes,
    /// only if it is still what is stored under its key: same bytes, same metadata. For example
    /// after a `304 Not Modified` that confirmed `entry`: when a newer response was stored (or
    /// the entry was refreshed, replaced or removed) while the request was on its way, the
    /// older 304's validators and lifetime are not written over it.
    ///
    /// Visible at once when applied, like ``updateMetadata(_:forKey:)``. Compares the stored
    /// entry's bytes, which may mean reading its file.
    ///
    /// - Returns: `true` if the update was applied, `false` if the stored entry is not `entry`.
    @discardableResult
    public func updateMetadata(_ metadata: CachedResponseMetadata, ifStillStored entry: Entry) -> Bool {
        let key = entry.key
        let name = fileNameForKey(key)
        // The stored version (its generation changes on every store and update) and its
        // pending write, if any; compared outside the lock, then applied only if unchanged.
        let stored: (generation: UInt64, staged: Staged?)? = state.withLock { state in
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return nil }
            if let staged = state.staged[name], staged.key != key { return nil }
            return (record.generation, state.staged[name])
        }
        guard let stored else { return false }
        let current: Entry?
        if let staged = stored.staged, let body = staged.body {
            current = Entry(key: key, data: body, metadata: staged.metadata)
        } else if case .hit(let body, let metadata) = FileIO.readEntry(atPath: path(for: name), key: key, maximumSize: sizeLimit) {
            current = Entry(key: key, data: body, metadata: stored.staged?.metadata ?? metadata)
        } else {
            current = nil
        }
        guard current == entry else { return false }
        return state.withLock { state in
            guard state.index.record(named: name)?.generation == stored.generation else { return false }
            updateMetadataLocked(metadata, key: key, name: name, in: &state)
            return true
        }
    }

    /// ``updateMetadata(_:forKey:)`` with the lock held.
    private func updateMetadataLocked(_ metadata: CachedResponseMetadata, key: String, name: String, in state: inout State) {
        guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return }
        if let existing = state.staged[name], existing.key != key { return }
        let generation = state.makeGeneration()
        var staged = state.staged[name] ?? Staged(key: key, body: nil, metadata: metadata, generation: generation)
        staged.metadata = metadata
        staged.generation = generation
        state.staged[name] = staged
        state.index.modify(name) { $0.generation = generation }
        var evictedRecords: [Record] = []
        if let body = staged.body {
            let headerLength = Format.headerLength(keyByteCount: key.utf8.count, metadata: metadata)
            let size = headerLength + body.count
            guard size <= sizeLimit, headerLength <= Format.maximumHeaderLength else {
                removeLocked(name, key: key, in: &state)
                return
            }
            state.index.modify(name) { $0.size = size }
            evictedRecords = evictLocked(protecting: name, in: &state)
        }
        let evicted = evictedRecords
        queue.async { self.performWrite(name: name, generation: generation, evicting: evicted) }
    }

    /// Removes the entry under `key`, if any. Its file is deleted on the cache's queue.
    public func removeEntry(forKey key: String) {
        let name = fileNameForKey(key)
        state.withLock { state in
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return }
            removeLocked(name, key: key, in: &state)
        }
    }

    /// Removes every entry. Files are deleted on the cache's queue.
    public func removeAll() {
        state.withLock { state in
            state.index.removeAll()
            state.staged.removeAll()
            state.pendingTouches.removeAll()
            queue.async { self.deleteAllFiles() }
        }
    }

    /// Blocks until every write, update and removal requested so far is on disk, and persists
    /// the access order of recent reads (otherwise written in batches about once a second).
    ///
    /// Call it before the app is suspended, or in tests. Must not be called from the
    /// `errorHandler`.
    public func flush() {
        queue.sync { persistTouches() }
    }

    // MARK: Private, under the lock

    private func path(for name: String) -> String {
        directoryPath + "/" + name
    }

    private func removeLocked(_ name: String, key: String?, in state: inout State) {
        state.staged[name] = nil
        state.pendingTouches[name] = nil
        guard let record = state.index.remove(name) else { return }
        queue.async { self.deleteFiles([record]) }
    }

    private func evictLocked(protecting name: String, in state: inout State) -> [Record] {
        let evicted = state.index.evict(toFit: sizeLimit, protecting: name)
        for record in evicted {
            state.staged[record.name] = nil
            state.pendingTouches[record.name] = nil
        }
        return evicted
    }

    private func schedulePersistedTouch(_ name: String, at date: Date, in state: inout State) {
        state.pendingTouches[name] = date
        guard !state.isTouchWriteScheduled else { return }
        state.isTouchWriteScheduled = true
        // Batched: one pass per delay, however many reads happen meanwhile.
        // Weak: a cache nobody uses any more is released at once (and with it the directory lock).
        queue.asyncAfter(deadline: .now() + Self.touchPersistenceDelay) { [weak self] in self?.persistTouches() }
    }

    /// Drops a record after its file turned out to be missing or corrupt, unless it was
    /// replaced meanwhile. The deletion is queued behind any write already in flight.
    private func forget(_ name: String, generation: UInt64, deletingFile: Bool) {
        state.withLock { state in
            guard state.staged[name] == nil,
                  state.index.record(named: name)?.generation == generation,
                  let record = state.index.remove(name)
            else { return }
            state.pendingTouches[name] = nil
            if deletingFile {
                queue.async { self.deleteFiles([record]) }
            }
        }
    }

    // MARK: Private, on the queue

    private func performWrite(name: String, generation: UInt64, evicting evicted: [Record]) {
        deleteFiles(evicted)
        let job: (staged: Staged, accessDate: Date)? = state.withLock { state in
            guard let staged = state.staged[name], staged.generation == generation else { return nil }
            return (staged, state.index.record(named: name)?.accessDate ?? clock.now)
        }
        guard let job else { return }
        let finalPath = path(for: name)
        let key = job.staged.key

        let body: Data
        if let staged = job.staged.body {
            body = staged
        } else {
            switch FileIO.readEntry(atPath: finalPath, key: key, maximumSize: sizeLimit) {
            case .hit(let existing, _):
                body = existing
            case .keyMismatch:
                // A different key owns this file name: leave its entry alone.
                state.withLock { state in
                    if state.staged[name]?.generation == generation { state.staged[name] = nil }
                }
                return
            case .notFound:
                dropRecord(name, generation: generation)
                return
            case .corrupt:
                if dropRecord(name, generation: generation) { try? FileIO.removeFile(atPath: finalPath) }
                return
            }
        }

        let header = Format.encodeHeader(
            key: key, metadata: job.staged.metadata, bodyLength: body.count, bodyChecksum: Format.bodyChecksum(body)
        )
        let temporaryPath = temporaryDirectoryPath + "/" + name + "." + String(generation) + ".tmp"
        do {
            try writeCreatingDirectoriesIfNeeded {
                try FileIO.writeEntry(
                    header: header, body: body, modificationDate: job.accessDate,
                    temporaryPath: temporaryPath, finalPath: finalPath
                )
            }
        } catch {
            let operation: Error.Operation = job.staged.body == nil ? .updateMetadata : .write
            report(Error(operation: operation, key: key, path: finalPath, underlying: error))
            if dropRecord(name, generation: generation) { try? FileIO.removeFile(atPath: finalPath) }
            return
        }

        let evictedAfterWrite: [Record] = state.withLock { state in
            if state.staged[name]?.generation == generation { state.staged[name] = nil }
            let size = header.count + body.count
            guard let record = state.index.record(named: name), record.generation == generation,
                  record.size != size
            else { return [] }
            // Only a metadata update of an entry that was on disk changes the size here.
            state.index.modify(name) { $0.size = size }
            var evicted = evictLocked(protecting: name, in: &state)
            if size > sizeLimit, let record = state.index.remove(name) {
                evicted.append(record)
            }
            return evicted
        }
        deleteFiles(evictedAfterWrite)
    }

    /// Forgets an entry whose pending write could not complete. `true` if it was still current.
    @discardableResult
    private func dropRecord(_ name: String, generation: UInt64) -> Bool {
        state.withLock { state in
            guard state.staged[name]?.generation == generation else { return false }
            state.staged[name] = nil
            state.pendingTouches[name] = nil
            if state.index.record(named: name)?.generation == generation {
                state.index.remove(name)
            }
            return true
        }
    }

    private func writeCreatingDirectoriesIfNeeded(_ write: () throws -> Void) throws {
        do {
            try write()
        } catch let error as POSIXError where error.code == .ENOENT || error.code == .ENOTDIR {
            // The directory was deleted under us: recreate it and try once more.
            try Self.createDirectories(directoryPath, temporaryDirectoryPath)
            try write()
        }
    }

    private func persistTouches() {
        let touches: [(String, Date)] = state.withLock { state in
            state.isTouchWriteScheduled = false
            defer { state.pendingTouches.removeAll() }
            return state.pendingTouches.filter { name, _ in
                state.staged[name] == nil && state.index.record(named: name) != nil
            }.map { ($0.key, $0.value) }
        }
        for (name, date) in touches {
            FileIO.setModificationDate(date, atPath: path(for: name))
        }
    }

    private func deleteFiles(_ records: [Record]) {
        for record in records {
            let filePath = path(for: record.name)
            do {
                try FileIO.removeFile(atPath: filePath)
            } catch {
                report(Error(operation: .remove, key: record.key, path: filePath, underlying: error))
            }
        }
    }

    private func deleteAllFiles() {
        let files: [FileIO.ListedFile]
        do {
            files = try FileIO.listFiles(atPath: directoryPath)
        } catch {
            if (error as? POSIXError)?.code != .ENOENT {
                report(Error(operation: .removeAll, key: nil, path: directoryPath, underlying: error))
            }
            return
        }
        for file in files where KeyHasher.isFileName(file.name) {
            let filePath = path(for: file.name)
            do {
                try FileIO.removeFile(atPath: filePath)
            } catch {
                report(Error(operation: .removeAll, key: nil, path: filePath, underlying: error))
            }
        }
        Self.removeTemporaryFiles(in: temporaryDirectoryPath)
    }

    private func report(_ error: Error) {
        for handler in errorHandlers.withLock({ $0 }) { handler(error) }
    }

    /// Adds an error handler (a second pipeline sharing this cache reports failures too).
    func addErrorHandler(_ handler: @escaping @Sendable (DiskCache.Error) -> Void) {
        errorHandlers.withLock { $0.append(handler) }
    }

    // MARK: Directory setup

    private static func createDirectories(_ directoryPath: String, _ temporaryPath: String) throws {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: temporaryPath, isDirectory: &isDirectory), !isDirectory.boolValue {
            try? fileManager.removeItem(atPath: temporaryPath)
        }
        do {
            try fileManager.createDirectory(atPath: temporaryPath, withIntermediateDirectories: true)
        } catch {
            throw Error(operation: .createDirectory, key: nil, path: temporaryPath, underlying: error)
        }
        #if os(iOS)
        // Entries are readable after the first unlock (background prefetches keep working) and
        // encrypted before it. New files inherit the directory's class; best effort, as a
        // protection class cannot be set on every volume.
        for path in [directoryPath, temporaryPath] {
            try? fileManager.setAttributes(
                [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: path
            )
        }
        #endif
    }

    /// Deletes leftovers of interrupted writes. They were never renamed into place, so they are
    /// never valid entries.
    private static func removeTemporaryFiles(in temporaryPath: String) {
        guard let files = try? FileIO.listFiles(atPath: temporaryPath) else { return }
        for file in files {
            try? FileIO.removeFile(atPath: temporaryPath + "/" + file.name)
        }
    }
}
