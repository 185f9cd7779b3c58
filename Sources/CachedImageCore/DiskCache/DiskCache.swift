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
///   persisted through the files' modification dates and the index snapshot, so it survives a
///   relaunch.
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
    private let snapshotDirectoryPath: String
    private let snapshotPath: String
    private let snapshotTemporaryPath: String
    private let clock: any CacheClock
    private let errorHandlers: Locked<[@Sendable (DiskCache.Error) -> Void]>
    /// The directory's advisory lock, held while this instance lives.
    private let directoryLock: DiskCacheDirectoryLock
    private let nameForKey: @Sendable (String) -> DiskCacheEntryName
    /// Where the index came from when the cache opened (for tests and benchmarks).
    @_spi(Benchmarks) public var indexSource: IndexSource {
        withIndex { $0.indexSource }
    }
    /// The serial queue all file mutations run on (internal so tests can hold it).
    let queue = DispatchQueue(label: "CachedImage.DiskCache", qos: .utility)
    private let state: Locked<State>

    /// How long read access dates are collected before being written as modification dates.
    private static let touchPersistenceDelay: DispatchTimeInterval = .seconds(1)
    /// How long changes to the index are collected before a new snapshot is written.
    private static let snapshotDelay: DispatchTimeInterval = .seconds(5)

    private typealias Record = DiskCacheIndex.Record
    private typealias FileIO = DiskCacheFileIO
    private typealias Format = DiskCacheEntryFormat
    private typealias Snapshot = DiskCacheIndexSnapshot

    private struct State {
        /// Empty until the index is loaded, on the queue, as its first job.
        var index = DiskCacheIndex()
        var isIndexLoaded = false
        var indexSource = IndexSource.listing
        /// Entries read from their files before the index was loaded, to mark as used once it is.
        var readsBeforeLoad: [(name: DiskCacheEntryName, date: Date)] = []
        /// Entries (or metadata updates) not yet written, served from memory until they are.
        var staged: [DiskCacheEntryName: Staged] = [:]
        /// Access dates not yet persisted as modification dates.
        var pendingTouches: [DiskCacheEntryName: Date] = [:]
        var isTouchWriteScheduled = false
        var nextGeneration: UInt64 = 1
        /// Changes to the directory queued and not yet done. A snapshot is written only when
        /// there are none, so it always describes files that are on disk.
        var queuedFileOperations = 0
        /// Whether the index changed since the snapshot on disk was written (or there is none).
        var isSnapshotStale = false
        var isSnapshotWriteScheduled = false
        /// Whether a snapshot file may be on disk: it is deleted before the directory changes.
        var mayHaveSnapshotOnDisk = true

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

    /// Where an opened cache's index came from.
    @_spi(Benchmarks) public enum IndexSource: Sendable {
        /// The snapshot, intact and matching the directory.
        case snapshot
        /// A listing of the directory.
        case listing
    }

    private enum Lookup {
        /// The index is still loading: read the file, which verifies itself.
        case unindexed
        case miss
        case hit(Entry)
        case disk(generation: UInt64, metadataOverride: CachedResponseMetadata?)
    }

    /// Opens (or creates) the cache in `directory`.
    ///
    /// Opening takes the directory's lock, deletes leftover temporary files from an interrupted
    /// write, and returns: the index is loaded on the cache's queue, from the snapshot the cache
    /// keeps in its directory when it still matches the directory, and otherwise from a listing
    /// (names, sizes and modification dates only; no entry is read). Reads do not wait for it
    /// (an entry file verifies itself); calls that need the index (writes, ``totalSize``, …)
    /// wait until it is loaded. Entries beyond `sizeLimit` are evicted once it is.
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
            directory: Self.standardized(directory),
            sizeLimit: sizeLimit,
            clock: clock,
            errorHandler: errorHandler,
            nameForKey: { KeyHasher.name(for: $0) }
        )
    }

    /// The designated initializer, for a standardized `directory` (`URL.standardizedFileURL`);
    /// `nameForKey` lets tests force hash collisions.
    init(
        directory: URL,
        sizeLimit: Int,
        clock: any CacheClock,
        errorHandler: (@Sendable (DiskCache.Error) -> Void)?,
        nameForKey: @escaping @Sendable (String) -> DiskCacheEntryName
    ) throws {
        self.directory = directory
        self.sizeLimit = max(0, sizeLimit)
        self.directoryPath = directory.path
        self.temporaryDirectoryPath = directoryPath + "/tmp"
        self.snapshotDirectoryPath = directoryPath + "/" + Snapshot.directoryName
        self.snapshotPath = snapshotDirectoryPath + "/" + Snapshot.fileName
        self.snapshotTemporaryPath = snapshotPath + ".tmp"
        self.clock = clock
        self.errorHandlers = Locked(errorHandler.map { [$0] } ?? [])
        self.nameForKey = nameForKey

        // Every open but the first finds the directory: take its lock at once (two system calls),
        // and leave the subdirectories and leftovers to the index load.
        do {
            self.directoryLock = try DiskCacheDirectoryLock(directoryPath: directoryPath)
        } catch let error as Error where [.ENOENT, .ENOTDIR].contains((error.underlying as? POSIXError)?.code) {
            try Self.createDirectories(directoryPath, temporaryDirectoryPath, snapshotDirectoryPath)
            self.directoryLock = try DiskCacheDirectoryLock(directoryPath: directoryPath)
        }

        state = Locked(State())
        // The queue's first job: everything else on the queue runs with the index loaded.
        queue.async { self.loadIndex() }
    }

    /// Loads the index (from the snapshot or a listing), marks what was read meanwhile as used,
    /// and evicts beyond the size limit. On the queue, before any other job.
    private func loadIndex() {
        var failure: Error?
        let opened: (index: DiskCacheIndex, unusable: [Record], fromSnapshot: Bool)
        do {
            try Self.createDirectories(directoryPath, temporaryDirectoryPath, snapshotDirectoryPath)
            Self.removeTemporaryFiles(in: temporaryDirectoryPath)
            opened = try Self.openIndex(directoryPath: directoryPath, snapshotPath: snapshotPath)
        } catch {
            // The directory could be locked but not prepared or listed: run empty (files
            // written from now on are tracked) and say so.
            failure = error as? Error ?? Error(operation: .open, key: nil, path: directoryPath, underlying: error)
            opened = (DiskCacheIndex(), [], false)
        }
        var evicted: [Record] = []
        state.withLock { state in
            var index = opened.index
            for read in state.readsBeforeLoad where index.record(named: read.name) != nil {
                index.touch(read.name, at: read.date)
                state.pendingTouches[read.name] = read.date
            }
            state.readsBeforeLoad = []
            evicted = index.evict(toFit: sizeLimit)
            for record in evicted { state.pendingTouches[record.name] = nil }
            state.nextGeneration = UInt64(index.count + opened.unusable.count + evicted.count + 1)
            state.index = index
            state.indexSource = opened.fromSnapshot ? .snapshot : .listing
            state.isIndexLoaded = true
            if !state.pendingTouches.isEmpty, !state.isTouchWriteScheduled {
                state.isTouchWriteScheduled = true
                queue.asyncAfter(deadline: .now() + Self.touchPersistenceDelay) { [weak self] in self?.persistTouches() }
            }
            // Opened from a listing (write a snapshot so that the next open is fast), or the use
            // order changed.
            if !opened.fromSnapshot || !state.pendingTouches.isEmpty { scheduleSnapshot(in: &state) }
        }
        // On the queue already: deleted before any job queued meanwhile (a `flush()` included).
        let doomed = opened.unusable + evicted
        if !doomed.isEmpty {
            deleteSnapshotBeforeChange()
            deleteFiles(doomed)
        }
        if let failure { report(failure) }
    }

    /// Runs `body` on the state once the index is loaded, waiting for the load if needed.
    /// Never called on the queue before the load: the load is the queue's first job.
    private func withIndex<T>(_ body: (inout State) -> T) -> T {
        if let result = state.withLock({ state in state.isIndexLoaded ? Optional(body(&state)) : nil }) {
            return result
        }
        queue.sync {}
        return state.withLock { body(&$0) }
    }

    /// The index, from the snapshot when it is intact and matches the directory, else from a
    /// listing; `unusable` are files too small to be entries, to delete without opening them.
    private static func openIndex(
        directoryPath: String,
        snapshotPath: String
    ) throws -> (index: DiskCacheIndex, unusable: [Record], fromSnapshot: Bool) {
        if let stamp = FileIO.directoryStamp(atPath: directoryPath),
           let bytes = FileIO.readFile(atPath: snapshotPath, maximumSize: 1 << 30),
           let records = Snapshot.decode(bytes, expecting: stamp, firstGeneration: 1),
           let index = DiskCacheIndex(recordsByRecency: records) {
            return (index, [], true)
        }

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
            .compactMap { file in DiskCacheEntryName(fileName: file.name).map { (name: $0, file: file) } }
            .sorted { ($0.file.modificationDate, $0.file.name) < ($1.file.modificationDate, $1.file.name) }
        for (name, file) in entryFiles {
            let record = Record(
                name: name, size: file.size, accessDate: file.modificationDate, key: nil, generation: generation
            )
            generation += 1
            // Too small to hold even a header: delete without opening it.
            if file.size < Format.minimumHeaderLength {
                unusable.append(record)
            } else {
                index.upsert(record)
            }
        }
        return (index, unusable, false)
    }

    // MARK: Reading

    /// The entry stored under `key`, fully verified, or `nil`.
    ///
    /// Marks the entry as the most recently used. Serves entries whose write is still pending
    /// from memory. A file that fails verification is a miss and is deleted.
    public func entry(forKey key: String) -> Entry? {
        let name = nameForKey(key)
        let now = clock.now
        let lookup: Lookup = state.withLock { state in
            guard state.isIndexLoaded else {
                state.readsBeforeLoad.append((name, now))
                return .unindexed
            }
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else {
                return .miss
            }
            if let staged = state.staged[name] {
                guard staged.key == key else { return .miss }
                if let body = staged.body {
                    state.index.touch(name, at: now)
                    scheduleSnapshot(in: &state)
                    return .hit(Entry(key: key, data: body, metadata: staged.metadata))
                }
                return .disk(generation: record.generation, metadataOverride: staged.metadata)
            }
            return .disk(generation: record.generation, metadataOverride: nil)
        }

        let generation: UInt64
        let metadataOverride: CachedResponseMetadata?
        switch lookup {
        case .unindexed:
            return readUnindexed(name, key: key)
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
                scheduleSnapshot(in: &state)
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

    /// Reads an entry while the index is loading. A corrupt file is deleted once the index is
    /// loaded, if it is still the file that was found at open.
    private func readUnindexed(_ name: DiskCacheEntryName, key: String) -> Entry? {
        switch FileIO.readEntry(atPath: path(for: name), key: key, maximumSize: sizeLimit) {
        case .hit(let body, let metadata):
            return Entry(key: key, data: body, metadata: metadata)
        case .keyMismatch, .notFound:
            return nil
        case .corrupt:
            state.withLock { state in
                enqueueFileOperation(in: &state) {
                    let record: Record? = self.state.withLock { state in
                        // A record whose key is unknown was neither stored nor read since open.
                        guard state.staged[name] == nil, let record = state.index.record(named: name), record.key == nil
                        else { return nil }
                        state.pendingTouches[name] = nil
                        return state.index.remove(name)
                    }
                    if let record { self.deleteFiles([record]) }
                }
            }
            return nil
        }
    }

    /// Whether an entry is indexed under `key`. Reads nothing from disk and does not count as a
    /// use. Can be `true` for an entry that then turns out to be corrupt (a later read misses).
    public func containsEntry(forKey key: String) -> Bool {
        let name = nameForKey(key)
        return withIndex { state in
            guard let record = state.index.record(named: name) else { return false }
            return record.key == nil || record.key == key
        }
    }

    /// The sum of the sizes of all entry files (headers included), in bytes.
    public var totalSize: Int {
        withIndex { $0.index.totalSize }
    }

    /// The number of entries.
    public var entryCount: Int {
        withIndex { $0.index.count }
    }

    /// Every entry's key, byte count, metadata and last access date, most recently used first.
    ///
    /// Reads each file's header but not its bytes; meant for diagnostics, not hot paths.
    /// Entries whose header is corrupt are left out and deleted.
    public func allEntries() -> [EntryInfo] {
        let (records, staged) = withIndex { ($0.index.recordsByRecency(), $0.staged) }
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
        let name = nameForKey(key)
        let headerLength = Format.headerLength(keyByteCount: key.utf8.count, metadata: metadata)
        let size = headerLength + data.count
        let now = clock.now
        withIndex { state in
            guard size <= sizeLimit, headerLength <= Format.maximumHeaderLength else {
                removeLocked(name, key: key, in: &state)
                return
            }
            let generation = state.makeGeneration()
            state.staged[name] = Staged(key: key, body: data, metadata: metadata, generation: generation)
            state.pendingTouches[name] = nil
            state.index.upsert(Record(name: name, size: size, accessDate: now, key: key, generation: generation))
            let evicted = evictLocked(protecting: name, in: &state)
            enqueueFileOperation(in: &state) { self.performWrite(name: name, generation: generation, evicting: evicted) }
        }
    }

    /// Replaces the metadata of the entry under `key`, keeping its bytes, e.g. after an HTTP
    /// `304 Not Modified`. Does nothing if there is no such entry.
    ///
    /// Visible at once; the header is rewritten on the cache's queue, atomically (the whole file
    /// is rewritten to a temporary file and renamed over the old one).
    public func updateMetadata(_ metadata: CachedResponseMetadata, forKey key: String) {
        let name = nameForKey(key)
        withIndex { state in
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
        let name = nameForKey(key)
        // The stored version (its generation changes on every store and update) and its
        // pending write, if any; compared outside the lock, then applied only if unchanged.
        let stored: (generation: UInt64, staged: Staged?)? = withIndex { state in
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
    private func updateMetadataLocked(_ metadata: CachedResponseMetadata, key: String, name: DiskCacheEntryName, in state: inout State) {
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
        enqueueFileOperation(in: &state) { self.performWrite(name: name, generation: generation, evicting: evicted) }
    }

    /// Removes the entry under `key`, if any. Its file is deleted on the cache's queue.
    public func removeEntry(forKey key: String) {
        let name = nameForKey(key)
        withIndex { state in
            guard let record = state.index.record(named: name), record.key == nil || record.key == key else { return }
            removeLocked(name, key: key, in: &state)
        }
    }

    /// Removes every entry. Files are deleted on the cache's queue.
    public func removeAll() {
        withIndex { state in
            state.index.removeAll()
            state.staged.removeAll()
            state.pendingTouches.removeAll()
            enqueueFileOperation(in: &state) { self.deleteAllFiles() }
        }
    }

    /// Blocks until every write, update and removal requested so far is on disk, persists the
    /// access order of recent reads (otherwise written in batches about once a second), and
    /// writes the index snapshot that makes the next open fast (otherwise written a few seconds
    /// after changes settle).
    ///
    /// Call it before the app is suspended, or in tests. Must not be called from the
    /// `errorHandler`.
    public func flush() {
        queue.sync {
            persistTouches()
            writeSnapshotIfNeeded()
        }
    }

    // MARK: Private, under the lock

    private func path(for name: DiskCacheEntryName) -> String {
        directoryPath + "/" + name.fileName
    }

    /// Queues a change to the directory. It is counted (no snapshot is written while one is
    /// pending) and preceded by deleting the snapshot, which would no longer match.
    private func enqueueFileOperation(in state: inout State, _ operation: @escaping @Sendable () -> Void) {
        state.queuedFileOperations += 1
        queue.async {
            self.deleteSnapshotBeforeChange()
            operation()
            self.state.withLock { state in
                state.queuedFileOperations -= 1
                self.scheduleSnapshot(in: &state)
            }
        }
    }

    /// Marks the snapshot as stale and schedules a new one, batched: one per delay.
    private func scheduleSnapshot(in state: inout State) {
        state.isSnapshotStale = true
        guard !state.isSnapshotWriteScheduled else { return }
        state.isSnapshotWriteScheduled = true
        queue.asyncAfter(deadline: .now() + Self.snapshotDelay) { [weak self] in self?.writeSnapshotIfNeeded() }
    }

    private func removeLocked(_ name: DiskCacheEntryName, key: String?, in state: inout State) {
        state.staged[name] = nil
        state.pendingTouches[name] = nil
        guard let record = state.index.remove(name) else { return }
        enqueueFileOperation(in: &state) { self.deleteFiles([record]) }
    }

    private func evictLocked(protecting name: DiskCacheEntryName, in state: inout State) -> [Record] {
        let evicted = state.index.evict(toFit: sizeLimit, protecting: name)
        for record in evicted {
            state.staged[record.name] = nil
            state.pendingTouches[record.name] = nil
        }
        return evicted
    }

    private func schedulePersistedTouch(_ name: DiskCacheEntryName, at date: Date, in state: inout State) {
        state.pendingTouches[name] = date
        guard !state.isTouchWriteScheduled else { return }
        state.isTouchWriteScheduled = true
        // Batched: one pass per delay, however many reads happen meanwhile.
        // Weak: a cache nobody uses any more is released at once (and with it the directory lock).
        queue.asyncAfter(deadline: .now() + Self.touchPersistenceDelay) { [weak self] in self?.persistTouches() }
    }

    /// Drops a record after its file turned out to be missing or corrupt, unless it was
    /// replaced meanwhile. The deletion is queued behind any write already in flight.
    private func forget(_ name: DiskCacheEntryName, generation: UInt64, deletingFile: Bool) {
        state.withLock { state in
            guard state.staged[name] == nil,
                  state.index.record(named: name)?.generation == generation,
                  let record = state.index.remove(name)
            else { return }
            state.pendingTouches[name] = nil
            if deletingFile {
                enqueueFileOperation(in: &state) { self.deleteFiles([record]) }
            } else {
                scheduleSnapshot(in: &state)
            }
        }
    }

    // MARK: Private, on the queue

    private func performWrite(name: DiskCacheEntryName, generation: UInt64, evicting evicted: [Record]) {
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
        let temporaryPath = temporaryDirectoryPath + "/" + name.fileName + "." + String(generation) + ".tmp"
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
    private func dropRecord(_ name: DiskCacheEntryName, generation: UInt64) -> Bool {
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
            try Self.createDirectories(directoryPath, temporaryDirectoryPath, nil)
            try write()
        }
    }

    private func persistTouches() {
        let touches: [(DiskCacheEntryName, Date)] = state.withLock { state in
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
            let filePath = directoryPath + "/" + file.name
            do {
                try FileIO.removeFile(atPath: filePath)
            } catch {
                report(Error(operation: .removeAll, key: nil, path: filePath, underlying: error))
            }
        }
        Self.removeTemporaryFiles(in: temporaryDirectoryPath)
    }

    /// Deletes the snapshot before the first change to the directory after it was written, so
    /// that a crash during the change cannot leave a snapshot that no longer matches.
    private func deleteSnapshotBeforeChange() {
        let mayHaveSnapshot = state.withLock { state in
            defer { state.mayHaveSnapshotOnDisk = false }
            return state.mayHaveSnapshotOnDisk
        }
        if mayHaveSnapshot { try? FileIO.removeFile(atPath: snapshotPath) }
    }

    /// Writes the index as a snapshot if it changed and no change to the directory is pending.
    private func writeSnapshotIfNeeded() {
        let records: [Record]? = state.withLock { state in
            state.isSnapshotWriteScheduled = false
            // Pending changes reschedule the snapshot when they finish.
            guard state.isSnapshotStale, state.queuedFileOperations == 0, state.staged.isEmpty else { return nil }
            state.isSnapshotStale = false
            return state.index.recordsByRecency()
        }
        guard let records else { return }
        do {
            // The snapshot's own directory first: creating it changes the cache directory's stamp.
            try Self.createDirectories(directoryPath, temporaryDirectoryPath, snapshotDirectoryPath)
            guard let stamp = FileIO.directoryStamp(atPath: directoryPath) else { throw POSIXError(.ENOENT) }
            state.withLock { $0.mayHaveSnapshotOnDisk = true }
            try FileIO.writeAtomically(
                Snapshot.encode(records, stamp: stamp), temporaryPath: snapshotTemporaryPath, finalPath: snapshotPath
            )
        } catch {
            // Nothing is lost: the next open lists the directory. Retried after the next change.
            state.withLock { $0.isSnapshotStale = true }
        }
    }

    private func report(_ error: Error) {
        for handler in errorHandlers.withLock({ $0 }) { handler(error) }
    }

    /// Adds an error handler (a second pipeline sharing this cache reports failures too).
    func addErrorHandler(_ handler: @escaping @Sendable (DiskCache.Error) -> Void) {
        errorHandlers.withLock { $0.append(handler) }
    }

    // MARK: Directory setup

    /// `directory.standardizedFileURL`, skipped when its path has nothing to standardize (no
    /// `.` or `..` component, no double slash, no tilde): on Linux standardizing costs about 5 µs,
    /// a quarter of creating a pipeline.
    static func standardized(_ directory: URL) -> URL {
        let path = directory.path
        guard directory.isFileURL, path.hasPrefix("/"), !path.contains("/."), !path.contains("//") else {
            return directory.standardizedFileURL
        }
        return directory
    }

    /// Creates the cache directory, its `tmp` subdirectory and, if given, the snapshot's. Costs
    /// one `stat` per subdirectory when they exist (every open but the first).
    private static func createDirectories(_ directoryPath: String, _ temporaryPath: String, _ snapshotPath: String?) throws {
        let fileManager = FileManager.default
        var created: [String] = []
        for path in [temporaryPath] + (snapshotPath.map { [$0] } ?? []) {
            if FileIO.directoryStamp(atPath: path) != nil { continue }
            // Something else under that name: make room for the directory.
            try? fileManager.removeItem(atPath: path)
            do {
                try fileManager.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw Error(operation: .createDirectory, key: nil, path: path, underlying: error)
            }
            created.append(path)
        }
        #if os(iOS)
        // Entries are readable after the first unlock (background prefetches keep working) and
        // encrypted before it. New files inherit the directory's class; best effort, as a
        // protection class cannot be set on every volume.
        for path in created.isEmpty ? [] : [directoryPath] + created {
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
