import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes progress and error lines to standard error, so standard output stays clean for the
/// table, the per-URL report or `--json`.
enum StandardError {
    /// Whether standard error is a terminal (progress bars redraw in place only then).
    static var isTerminal: Bool {
        isatty(2) != 0
    }

    /// Writes `text` as is (no newline added).
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Writes `line` and a newline.
    static func line(_ line: String) {
        write(line + "\n")
    }
}
