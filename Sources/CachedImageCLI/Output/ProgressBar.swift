import Foundation
import ToolSupport

/// A one-line progress bar on standard error: redrawn in place on a terminal (at most ten times a
/// second), silent otherwise, so logs and pipes only get the final summary lines.
///
/// ```swift
/// let bar = ProgressBar(label: "prefetch", total: 400)
/// bar.update(completed: 120, detail: "3.2 MB")
/// bar.finish()
/// ```
final class ProgressBar: Sendable {
    private struct State {
        var lastDraw = 0.0
        var isDrawn = false
    }

    private let label: String
    private let total: Int
    private let isEnabled: Bool
    private let state = Protected(State())

    /// - Parameter isEnabled: Defaults to whether standard error is a terminal.
    init(label: String, total: Int, isEnabled: Bool = StandardError.isTerminal) {
        self.label = label
        self.total = max(total, 1)
        self.isEnabled = isEnabled
    }

    /// Redraws the bar for `completed` of `total`, throttled unless `force`.
    func update(completed: Int, detail: String = "", force: Bool = false) {
        guard isEnabled else { return }
        let now = MonotonicTime.now()
        let shouldDraw = state.withLock { state -> Bool in
            guard force || now - state.lastDraw >= 0.1 else { return false }
            state.lastDraw = now
            state.isDrawn = true
            return true
        }
        guard shouldDraw else { return }
        let width = 24
        let fraction = min(max(Double(completed) / Double(total), 0), 1)
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "=", count: filled) + (filled < width ? ">" : "")
            + String(repeating: " ", count: max(0, width - filled - 1))
        StandardError.write("\r\u{1B}[2K\(label) [\(bar)] \(completed)/\(total) \(detail)")
    }

    /// Erases the bar (the caller then prints a summary line).
    func finish() {
        guard isEnabled else { return }
        let wasDrawn = state.withLock { state -> Bool in
            defer { state.isDrawn = false }
            return state.isDrawn
        }
        if wasDrawn { StandardError.write("\r\u{1B}[2K") }
    }
}
