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
/// directory lets the first process in, and a second one fails to open (after retrying for
/// about 130 ms) with a ``DiskCache/Error`` whose operation is `.open` (a pipeline then runs
/// without a disk cache and reports it in ``ImagePipeline/diskCacheOpenError``).
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

    let directoryPath: String
    let temporaryDirectoryPath: String
    let snapshotDirectoryPath: String
    let snapshotPath: String
    let snapshotTemporaryPath: String
    let clock: any CacheClock
    let errorHandlers: Locked<[@Sendable (DiskCache.Error) -> Void]>
    /// The directory's advisory lock, held while this instance lives.
    let directoryLock: DiskCacheDirectoryLock
    let nameForKey: @Sendable (String) -> DiskCacheEntryName
    /// Reads and verifies an entry file (``DiskCacheFileIO/readEntry(atPath:key:maximumSize:)``;
    /// tests wrap it to change the cache between a read's steps).
    let readEntryFile: @Sendable (_ path: String, _ key: String, _ maximumSize: Int) -> FileIO.ReadResult
    /// Where the index came from when the cache opened (for tests and benchmarks).
    @_spi(Benchmarks) public var indexSource: IndexSource {
        withIndex { $0.indexSource }
    }
    /// The serial queue the index loads on and all file mutations run on (internal so tests can
    /// hold it).
    let queue: DispatchQueue
    /// Everything mutable, behind one lock: reach it through ``withState(_:)``.
    private let lockedState: Locked<State>

    /// How long read access dates are collected before being written as modification dates.
    static let touchPersistenceDelay: DispatchTimeInterval = .seconds(1)
    /// How long changes to the index are collected before a new snapshot is written.
    static let snapshotDelay: DispatchTimeInterval = .seconds(5)
    /// How many reads the cache answers before its index is loaded when nothing needs the index
    /// sooner: a few screens of a relaunch. The load then marks them as uses and applies a
    /// lowered size limit, even in a session that never writes.
    static let readsBeforeLoadLimit = 64

    typealias Record = DiskCacheIndex.Record
    typealias FileIO = DiskCacheFileIO
    typealias Format = DiskCacheEntryFormat
    typealias Snapshot = DiskCacheIndexSnapshot

    struct State {
        /// Empty until the index is loaded, on the queue, before any job queued after the load
        /// was requested.
        var index = DiskCacheIndex()
        var isIndexLoaded = false
        /// Whether the load is queued: from then on, every job queued runs after it.
        var isIndexLoadRequested = false
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
        /// Timers armed under the lock, started by ``DiskCache/withState(_:)`` once it is
        /// released: starting one wakes a thread, and readers waiting for the lock would wait
        /// for that too.
        var timersToStart: Timers = []
        /// Whether a snapshot file may be on disk: it is deleted before the directory changes.
        var mayHaveSnapshotOnDisk = true

        mutating func makeGeneration() -> UInt64 {
            defer { nextGeneration += 1 }
            return nextGeneration
        }
    }

    /// The delayed jobs a change can ask for.
    struct Timers: OptionSet {
        let rawValue: UInt8
        /// Writes the pending touches as modification dates.
        static let touches = Timers(rawValue: 1 << 0)
        /// Writes the index snapshot if it is stale.
        static let snapshot = Timers(rawValue: 1 << 1)
    }

    struct Staged {
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

    enum Lookup {
        /// The index is still loading: read the file, which verifies itself.
        case unindexed
        case miss
        case hit(Entry)
        case disk(generation: UInt64, metadataOverride: CachedResponseMetadata?)
    }

    /// Opens (or creates) the cache in `directory`.
    ///
    /// Opening takes the directory's lock and returns. The index is loaded later, on the cache's
    /// queue: when a call first needs it (writes, ``totalSize``, ``flush()``, …), or after a few
    /// screens of reads, so that a relaunch's first reads do not share the CPU with it. It
    /// comes from the snapshot the cache keeps in its directory when that still matches the
    /// directory, and otherwise from a listing (names, sizes and modification dates only; no
    /// entry is read). Reads do not wait for it (an entry file verifies itself) and count as
    /// uses once it is loaded. Loading also deletes leftover temporary files from an
    /// interrupted write and evicts entries beyond `sizeLimit`.
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
        let location = Self.standardizedLocation(directory)
        try self.init(
            directory: location.url,
            path: location.path,
            sizeLimit: sizeLimit,
            clock: clock,
            errorHandler: errorHandler,
            nameForKey: { KeyHasher.name(for: $0) }
        )
    }

    /// The designated initializer, for a standardized `directory` (`URL.standardizedFileURL`)
    /// whose `path` the caller may already have; `nameForKey` lets tests force hash collisions,
    /// `queue` lets them hold the index load, and `readEntryFile` lets them act during a read.
    init(
        directory: URL,
        path: String? = nil,
        descriptor: Int32? = nil,
        sizeLimit: Int,
        clock: any CacheClock,
        errorHandler: (@Sendable (DiskCache.Error) -> Void)?,
        nameForKey: @escaping @Sendable (String) -> DiskCacheEntryName,
        queue: DispatchQueue = DispatchQueue(label: "CachedImage.DiskCache", qos: .utility),
        readEntryFile: @escaping @Sendable (String, String, Int) -> FileIO.ReadResult = FileIO.readEntry
    ) throws {
        self.directory = directory
        self.sizeLimit = max(0, sizeLimit)
        self.directoryPath = path ?? directory.path
        self.temporaryDirectoryPath = directoryPath + "/tmp"
        self.snapshotDirectoryPath = directoryPath + "/" + Snapshot.directoryName
        self.snapshotPath = snapshotDirectoryPath + "/" + Snapshot.fileName
        self.snapshotTemporaryPath = snapshotPath + ".tmp"
        self.clock = clock
        self.errorHandlers = Locked(errorHandler.map { [$0] } ?? [])
        self.nameForKey = nameForKey
        self.queue = queue
        self.readEntryFile = readEntryFile

        // Every open but the first finds the directory: take its lock at once (two system calls,
        // one when the caller opened it already), and leave the subdirectories and leftovers to
        // the index load.
        do {
            self.directoryLock = try DiskCacheDirectoryLock(directoryPath: directoryPath, descriptor: descriptor)
        } catch let error as Error where [.ENOENT, .ENOTDIR].contains((error.underlying as? POSIXError)?.code) {
            try Self.createDirectories(directoryPath, temporaryDirectoryPath, snapshotDirectoryPath)
            self.directoryLock = try DiskCacheDirectoryLock(directoryPath: directoryPath)
        }

        lockedState = Locked(State())
    }

    // MARK: Reading

    /// The entry stored under `key`, fully verified, or `nil`.
    ///
    /// Marks the entry as the most recently used. Serves entries whose write is still pending
    /// from memory. A file that fails verification is a miss and is deleted.
    public func entry(forKey key: String) -> Entry? {
        let name = nameForKey(key)
        let now = clock.now
        let lookup: Lookup = withState { state in
            guard state.isIndexLoaded else {
                state.readsBeforeLoad.append((name, now))
                if state.readsBeforeLoad.count >= Self.readsBeforeLoadLimit { requestIndexLoad(in: &state) }
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

        // A metadata update was pending at the lookup: its write may replace the file while it
        // is read, so the size found is not necessarily the file's on disk by then.
        let wasWritePending = metadataOverride != nil
        switch readEntryFile(path(for: name), key, sizeLimit) {
        case .hit(let body, let metadata, let fileSize):
            let isStillCurrent = withState { state in
                guard state.index.record(named: name)?.generation == generation else { return false }
                state.index.modify(name) { $0.key = key }
                state.index.touch(name, at: now)
                if state.staged[name] == nil {
                    schedulePersistedTouch(name, at: now, in: &state)
                    if !wasWritePending { correctSize(of: name, to: fileSize, in: &state) }
                }
                scheduleSnapshot(in: &state)
                return true
            }
            // Stored again since the lookup: the override was the older version's; the file's
            // bytes and metadata belong together.
            return Entry(key: key, data: body, metadata: isStillCurrent ? metadataOverride ?? metadata : metadata)
        case .keyMismatch(let fileSize):
            withState { state in
                guard !wasWritePending, state.index.record(named: name)?.generation == generation, state.staged[name] == nil
                else { return }
                correctSize(of: name, to: fileSize, in: &state)
            }
            return nil
        case .notFound:
            forget(name, generation: generation, deletingFile: false)
            return nil
        case .corrupt:
            forget(name, generation: generation, deletingFile: true)
            return nil
        }
    }

    /// Whether an entry is stored under `key`. Reads no entry and does not count as a use; before
    /// the index is loaded it looks for the entry's file instead of loading it. Can be `true` for
    /// an entry that then turns out to be corrupt (a later read misses).
    public func containsEntry(forKey key: String) -> Bool {
        let name = nameForKey(key)
        let indexed: Bool? = withState { state in
            guard state.isIndexLoaded else { return nil }
            guard let record = state.index.record(named: name) else { return false }
            return record.key == nil || record.key == key
        }
        return indexed ?? FileIO.mayHoldEntry(atPath: path(for: name))
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
        } else if case .hit(let body, let metadata, _) = readEntryFile(path(for: name), key, sizeLimit) {
            current = Entry(key: key, data: body, metadata: stored.staged?.metadata ?? metadata)
        } else {
            current = nil
        }
        guard current == entry else { return false }
        return withState { state in
            guard state.index.record(named: name)?.generation == stored.generation else { return false }
            updateMetadataLocked(metadata, key: key, name: name, in: &state)
            return true
        }
    }

    /// ``updateMetadata(_:forKey:)`` with the lock held.
    func updateMetadataLocked(_ metadata: CachedResponseMetadata, key: String, name: DiskCacheEntryName, in state: inout State) {
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
    /// Call it before the app is suspended (on iOS, tvOS and visionOS the `CachedImage` module's
    /// `AppLifecycleObserver` does, for every pipeline its views use), or in tests. Must not be
    /// called from the `errorHandler`.
    public func flush() {
        withState { requestIndexLoad(in: &$0) }
        queue.sync {
            persistTouches()
            writeSnapshotIfNeeded()
        }
    }

    // MARK: Under the lock

    func path(for name: DiskCacheEntryName) -> String {
        directoryPath + "/" + name.fileName
    }

    func removeLocked(_ name: DiskCacheEntryName, key: String?, in state: inout State) {
        state.staged[name] = nil
        state.pendingTouches[name] = nil
        guard let record = state.index.remove(name) else { return }
        enqueueFileOperation(in: &state) { self.deleteFiles([record]) }
    }

    /// Counts an entry file at the size a read found (a file changed in place behind the cache,
    /// which its directory's stamp does not show), evicting others if that passes the limit.
    func correctSize(of name: DiskCacheEntryName, to fileSize: Int, in state: inout State) {
        guard let record = state.index.record(named: name), record.size != fileSize else { return }
        state.index.modify(name) { $0.size = fileSize }
        let evicted = evictLocked(protecting: name, in: &state)
        if !evicted.isEmpty {
            enqueueFileOperation(in: &state) { self.deleteFiles(evicted) }
        }
    }

    func evictLocked(protecting name: DiskCacheEntryName, in state: inout State) -> [Record] {
        let evicted = state.index.evict(toFit: sizeLimit, protecting: name)
        for record in evicted {
            state.staged[record.name] = nil
            state.pendingTouches[record.name] = nil
        }
        return evicted
    }

    func schedulePersistedTouch(_ name: DiskCacheEntryName, at date: Date, in state: inout State) {
        state.pendingTouches[name] = date
        armTouchTimer(in: &state)
    }

    /// Writes the pending touches one delay from now, unless that is already planned. Batched:
    /// one pass per delay, however many reads happen meanwhile.
    func armTouchTimer(in state: inout State) {
        guard !state.isTouchWriteScheduled else { return }
        state.isTouchWriteScheduled = true
        state.timersToStart.insert(.touches)
    }

    /// Runs `body` on the state under its lock, then starts the timers it armed.
    func withState<T>(_ body: (inout State) -> T) -> T {
        let (result, timers) = lockedState.withLock { state in
            let result = body(&state)
            let timers = state.timersToStart
            state.timersToStart = []
            return (result, timers)
        }
        // Weak: a cache nobody uses any more is released at once (and with it the directory lock).
        if timers.contains(.touches) {
            queue.asyncAfter(deadline: .now() + Self.touchPersistenceDelay) { [weak self] in self?.persistTouches() }
        }
        if timers.contains(.snapshot) {
            queue.asyncAfter(deadline: .now() + Self.snapshotDelay) { [weak self] in self?.writeSnapshotIfNeeded() }
        }
        return result
    }

    /// Drops a record after its file turned out to be missing or corrupt, unless it was
    /// replaced meanwhile. The deletion is queued behind any write already in flight.
    func forget(_ name: DiskCacheEntryName, generation: UInt64, deletingFile: Bool) {
        withState { state in
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
}
