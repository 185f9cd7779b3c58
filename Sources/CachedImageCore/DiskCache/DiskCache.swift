@preconcurrency import Dispatch
import Foundation

/// A persistent, size-bounded cache of original image bytes on disk.
///
/// Each entry is one file in ``directory``, named by a stable 128-bit hash of its key and holding
/// a small header (the full key, the byte count, checksums and the `CachedResponseMetadata`)
/// followed by the bytes exactly as downloaded. Reads verify everything: a truncated, corrupt or
/// foreign file, or one that belongs to a different key, is a miss (and corrupt files are
/// deleted), never wrong bytes.
///
/// - Reads (`entry(forKey:)`) are synchronous and mark the entry as recently used. The order is
///   persisted through the files' modification dates and the index snapshot, so it survives a
///   relaunch.
/// - Writes (`store(_:metadata:forKey:)`, `updateMetadata(_:forKey:)`) return immediately and
///   happen on a private serial queue; until then the data is served from memory. Each write goes
///   to a temporary file that is renamed over the entry, so a crash never leaves a half-written
///   entry that reads back as valid.
/// - After every write the least recently used entries are evicted until ``totalSize`` is at most
///   ``sizeLimit``. Pinned entries (package API: `storePinned`, `pinEntry`) are passed over and
///   not counted: they have a budget of their own, checked when pinning.
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
/// In a process, `shared(directory:sizeLimit:clock:errorHandler:)` (what every
/// ``ImagePipeline`` uses) hands out the same instance for the same directory. Several processes
/// (an app and its widget or share extension in an App Group container) can each open a cache
/// on one directory: every file operation takes the directory's advisory lock for its own
/// duration only (no lock is held while a process idles or is suspended), each process sees the
/// entries the others store, and the size limit holds across them once their writes settle. See
/// <doc:SharingACacheBetweenProcesses>.
public final class DiskCache: Sendable {
    /// A cached response: the original bytes and what was known about them.
    package struct Entry: Sendable, Hashable {
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

    /// A description of a stored entry without its bytes, from `allEntries()`.
    package struct EntryInfo: Sendable, Hashable {
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
    /// The most bytes the unpinned entries may hold (``totalSize`` less the pinned entries'
    /// sizes), enforced after every write; pinned entries count in ``totalSize`` but not against
    /// this limit, and eviction by size never takes them.
    public let sizeLimit: Int

    let directoryPath: String
    // The subdirectories' paths are made when a file operation needs them, not at open: the
    // concatenations cost a relaunch about 4,500 instructions for paths its reads never use.
    var temporaryDirectoryPath: String { Self.temporaryDirectoryPath(in: directoryPath) }
    var snapshotDirectoryPath: String { Self.snapshotDirectoryPath(in: directoryPath) }
    var snapshotPath: String { "\(snapshotDirectoryPath)/\(Snapshot.fileName)" }
    var snapshotTemporaryPath: String { "\(snapshotPath).\(Self.processTag).tmp" }
    static func temporaryDirectoryPath(in directoryPath: String) -> String { directoryPath + "/tmp" }
    static func snapshotDirectoryPath(in directoryPath: String) -> String { "\(directoryPath)/\(Snapshot.directoryName)" }
    let clock: any CacheClock
    let errorHandlers: Locked<[@Sendable (DiskCache.Error) -> Void]>
    /// The directory's advisory lock, taken only around file operations, and its change count.
    let directoryLock: DiskCacheDirectoryLock
    /// Lets a locked operation start only while the process cannot be suspended (see
    /// ``BackgroundExecutionGate``); one it refuses waits in ``State/deferredFileOperations``.
    let backgroundGate: BackgroundExecutionGate
    /// Work elsewhere that ``flush()`` waits for first (a pipeline's encodes of processed images
    /// headed here); each returns `false` once its owner is gone, and is then dropped.
    let flushDependencies = Locked<[@Sendable () -> Bool]>([])
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
    let lockedState: Locked<State>

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

    /// Where an opened cache's index came from.
    @_spi(Benchmarks) public enum IndexSource: Sendable {
        /// The snapshot, intact and matching the directory.
        case snapshot
        /// A listing of the directory.
        case listing
    }

    /// Opens (or creates) the cache in `directory`.
    ///
    /// Opening finds the directory (one `stat`) and returns, opening nothing and taking no lock.
    /// The index is loaded later, on the cache's queue: when a call first needs it (writes,
    /// ``totalSize``, ``flush()``, …), or after a few screens of reads, so that a relaunch's
    /// first reads do not share the CPU with it. It comes from the snapshot the cache keeps in
    /// its directory when that still matches the directory, and otherwise from a listing (names,
    /// sizes and modification dates only; no entry is read). Reads do not wait for it (an entry
    /// file verifies itself) and count as uses once it is loaded. Loading also deletes leftover
    /// temporary files from an interrupted write and evicts entries beyond `sizeLimit`.
    ///
    /// - Parameters:
    ///   - directory: The cache's own directory; created with its parents if needed.
    ///   - sizeLimit: The maximum total size of the entry files, in bytes.
    ///   - clock: The source of access dates, which decide the eviction order.
    ///   - errorHandler: Called, on the cache's private queue, when a write, update or removal
    ///     fails. Do not call ``flush()`` from it.
    /// - Throws: ``DiskCache/Error`` if the directory cannot be found or created (something
    ///   other than a directory is in the way, a component of its path cannot be searched).
    package convenience init(
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
    /// whose `path` the caller may already have (and `isKnownDirectory` when it just found a
    /// directory there); `nameForKey` lets tests force hash collisions, `queue` lets them hold
    /// the index load, `readEntryFile` lets them act during a read, `backgroundGate` and
    /// `lockWaitLimit` let them drive the background rules.
    init(
        directory: URL,
        path: String? = nil,
        isKnownDirectory: Bool = false,
        sizeLimit: Int,
        clock: any CacheClock,
        errorHandler: (@Sendable (DiskCache.Error) -> Void)?,
        nameForKey: @escaping @Sendable (String) -> DiskCacheEntryName,
        queue: DispatchQueue = DispatchQueue(label: "CachedImage.DiskCache", qos: .utility),
        readEntryFile: @escaping @Sendable (String, String, Int) -> FileIO.ReadResult = FileIO.readEntry,
        backgroundGate: BackgroundExecutionGate = .shared,
        lockWaitLimit: TimeInterval = DiskCacheDirectoryLock.defaultWaitLimit
    ) throws {
        self.directory = directory
        self.sizeLimit = max(0, sizeLimit)
        self.directoryPath = path ?? directory.path
        self.clock = clock
        self.errorHandlers = Locked(errorHandler.map { [$0] } ?? [])
        self.nameForKey = nameForKey
        self.queue = queue
        self.readEntryFile = readEntryFile
        self.backgroundGate = backgroundGate

        // Every open but the first finds the directory (one `stat`, none when the caller just
        // found it; nothing is opened and no lock is taken), and leaves the subdirectories and
        // leftovers to the index load.
        if !isKnownDirectory {
            try Self.requireDirectory(directoryPath)
        }
        self.directoryLock = DiskCacheDirectoryLock(
            directoryPath: directoryPath,
            changeCountPath: "\(Self.snapshotDirectoryPath(in: directoryPath))/\(Snapshot.changeCountFileName)",
            waitLimit: lockWaitLimit
        )

        lockedState = Locked(State())
        // Another process may hold this directory's lock when this one is suspended: on the
        // platforms that suspend processes, every locked operation runs inside an assertion,
        // whatever views ran (``BackgroundCoverage``).
        if BackgroundCoverage.isSharedContainer(directoryPath) {
            backgroundGate.coverSharedDirectory()
        }
        backgroundGate.addResumeHandler(of: self) { [weak self] in
            guard let self else { return false }
            self.resumeDeferredOperations()
            return true
        }
    }

    deinit {
        backgroundGate.removeResumeHandler(of: self)
    }

}
