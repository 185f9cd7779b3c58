import Foundation

/// Where processors that can use the GPU (Core Image filters: `GaussianBlur`,
/// `CoreImageFilter`) render: on the GPU only while the process is known to be in the
/// foreground. The system refuses GPU work from the background, so a load that finishes after
/// the app left the screen would otherwise keep a black or empty image (in memory, and on disk
/// under a derived-image policy); an app extension, never told its state, renders on the CPU.
///
/// ```swift
/// let context = GPUProcessing.isAllowedNow ? gpuContext : softwareContext
/// ```
package enum GPUProcessing {
    /// Whether GPU work is allowed for a process in `lifecycle`: only `.active`.
    package static func isAllowed(in lifecycle: BackgroundExecutionState.Lifecycle) -> Bool {
        lifecycle == .active
    }

    /// Whether GPU work is allowed now, from the process's lifecycle as the background gate
    /// knows it (`BackgroundExecutionGate.shared`, told by the app's lifecycle notifications).
    package static var isAllowedNow: Bool { isAllowed(by: .shared) }

    /// Whether GPU work is allowed for the process whose lifecycle `gate` follows.
    package static func isAllowed(by gate: BackgroundExecutionGate) -> Bool {
        isAllowed(in: gate.snapshot.lifecycle)
    }
}
