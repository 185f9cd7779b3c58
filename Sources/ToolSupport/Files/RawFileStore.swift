import Foundation

/// A directory of plain files, one per entry, named by the caller: no hashing, no header, no
/// checksum, no index, no limit. The naive approaches the demo and the benchmarks measure the
/// pipeline against ("save it to the documents directory", the raw-file floor) all sit on it.
///
/// ```swift
/// let files = try RawFileStore(directory: documents, writing: .atomic)
/// try files.write(data, as: url.lastPathComponent)
/// let again = try files.read(url.lastPathComponent)
/// ```
package struct RawFileStore: Sendable {
    /// How ``write(_:as:)`` puts the bytes on disk.
    package enum Writing: Sendable {
        /// `FileManager.createFile(atPath:contents:)`.
        case createFile
        /// `Data.write(to:)`: straight into the file, so a crash can leave it torn.
        case inPlace
        /// `Data.write(to:options: .atomic)`: a temporary file renamed over the old one.
        case atomic
    }

    /// The folder holding the files.
    package let directory: URL
    package let writing: Writing
    private let directoryPath: String

    /// A store over `directory`, which is created (with its parents) unless it exists.
    package init(directory: URL, writing: Writing) throws {
        self.init(existingDirectory: directory, writing: writing)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A store over `directory` as it is: nothing is created, so writes fail while it is missing.
    package init(existingDirectory directory: URL, writing: Writing) {
        self.directory = directory
        self.writing = writing
        self.directoryPath = directory.path
    }

    /// The path of the file called `name`.
    package func path(_ name: String) -> String {
        directoryPath + "/" + name
    }

    /// Writes `data` into the file called `name`, replacing what was there.
    package func write(_ data: Data, as name: String) throws {
        switch writing {
        case .createFile:
            guard FileManager.default.createFile(atPath: path(name), contents: data) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path(name)])
            }
        case .inPlace:
            try data.write(to: URL(fileURLWithPath: path(name)))
        case .atomic:
            try data.write(to: URL(fileURLWithPath: path(name)), options: .atomic)
        }
    }

    /// The bytes of the file called `name`; throws when it cannot be read (missing, for one).
    package func read(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path(name)))
    }

    /// Whether a file called `name` exists.
    package func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: path(name))
    }
}
