import Foundation

extension DiskCache {
    /// A disk-cache operation that failed. Delivered to the cache's error handler (never thrown
    /// from reads or writes); the entry involved is dropped from the cache.
    ///
    /// ```swift
    /// let cache = try DiskCache(directory: url) { error in
    ///     logger.warning("\(error)")   // e.g. "DiskCache write failed for key …: No space left on device"
    /// }
    /// ```
    public struct Error: Swift.Error, Sendable, CustomStringConvertible {
        /// What the cache was doing.
        public enum Operation: String, Sendable, Hashable {
            /// Creating the cache directory (or its `tmp` subdirectory).
            case createDirectory
            /// Finding or listing the cache directory when opening the cache, or opening it for
            /// a file operation's lock: reported once when it exists but cannot be opened (no
            /// read permission, no descriptor left). Reads and writes then go on without the
            /// lock: other processes are not kept out, no index snapshot is written (the next
            /// launch lists the directory), and other processes' changes reach the index only
            /// as entries are read. Another process using the directory is not an error:
            /// processes share it.
            case open
            /// Writing a new entry.
            case write
            /// Rewriting an entry's header after `DiskCache.updateMetadata(_:forKey:)`.
            case updateMetadata
            /// Deleting an entry file (removal, eviction or a corrupt file).
            case remove
            /// Deleting everything in ``DiskCache/removeAll()``.
            case removeAll
            /// Pinning an entry (writing its marker in the `pinned` subdirectory), refused when
            /// the pins of every process sharing the directory would pass the pinned budget
            /// (the entry stays, unpinned), or unpinning one.
            case pin
        }

        /// What the cache was doing.
        public let operation: Operation
        /// The key involved, when the operation concerned one entry and its key is known.
        public let key: String?
        /// The file or directory involved.
        public let path: String
        /// The underlying error, usually a `POSIXError` or a `CocoaError`.
        public let underlying: any Swift.Error

        /// Creates an error value.
        public init(operation: Operation, key: String?, path: String, underlying: any Swift.Error) {
            self.operation = operation
            self.key = key
            self.path = path
            self.underlying = underlying
        }

        public var description: String {
            let subject = key.map { " for key \(String($0.prefix(200)).debugDescription)" } ?? ""
            return "DiskCache \(operation.rawValue) failed\(subject) at \(path): \(underlying)"
        }
    }
}
