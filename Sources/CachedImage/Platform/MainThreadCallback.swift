#if canImport(Darwin)
import Foundation

/// A main-actor closure as a plain `@Sendable` callback for KVO and notifications, which call
/// back on the thread that changed the value or posted: UIKit and AppKit lay out on the main
/// thread, so it runs there at once, in the same layout pass (`MainActor.assumeIsolated` is
/// not in the iOS 15/16 runtime); from any other thread it hops to the main actor.
enum MainThreadCallback {
    static func make(_ body: @escaping @MainActor () -> Void) -> @Sendable () -> Void {
        let unchecked = UncheckedCallback(body: body)
        return {
            guard Thread.isMainThread else {
                Task { @MainActor in unchecked.body() }
                return
            }
            // On the main thread the main actor's isolation holds; the calling convention of an
            // isolated and a plain closure is the same.
            unsafeBitCast(unchecked.body, to: (() -> Void).self)()
        }
    }
}

/// A main-actor closure carried through a `@Sendable` one; only ever called on the main thread.
private struct UncheckedCallback: @unchecked Sendable {
    let body: @MainActor () -> Void
}
#endif
