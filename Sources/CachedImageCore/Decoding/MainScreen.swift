import Foundation
#if os(iOS) || os(tvOS)
import UIKit
#elseif os(macOS)
import CoreGraphics
#endif

/// The main screen's size in pixels, the platform's only part of the default decode cap
/// (``ImagePipeline/Configuration/defaultMaximumDecodedPixelSize``; the rule lives there).
///
/// UIKit's screen is read on the main thread only: the first read on the main thread keeps
/// the value for every thread (a configuration is normally made there, at launch). Read off
/// the main thread before that, it asks the main thread to record it and reports `nil` for now.
package enum MainScreen {
    private static let recorded = Locked<PixelSize?>(nil)
    private static let recordedRate = Locked<Int?>(nil)
    private static let recordedScale = Locked<Double?>(nil)

    /// The main screen's pixels per point (3 on most iPhones), or `nil` where there is none
    /// (Linux) or not yet known. Read like ``pixelSize``. Views use their own display's scale;
    /// this is for a points-based size outside a view (``ImageRequest/targetSize``).
    package static var scale: Double? {
        #if os(iOS) || os(tvOS)
        return recordedOnMainThread(recordedScale, readUIKitScale)
        #elseif os(macOS)
        if let scale = recordedScale.withLock({ $0 }) { return scale }
        guard let mode = CGDisplayCopyDisplayMode(CGMainDisplayID()), mode.width > 0 else { return nil }
        let scale = Double(mode.pixelWidth) / Double(mode.width)
        recordedScale.withLock { $0 = scale }
        return scale
        #else
        return nil
        #endif
    }

    /// The main screen's highest refresh rate (120 on ProMotion), or `nil` where there is none
    /// (Linux, macOS: the first-frame budget assumes 60 Hz) or not yet known. Read like ``pixelSize``.
    static var maximumFramesPerSecond: Int? {
        #if os(iOS) || os(tvOS)
        return recordedOnMainThread(recordedRate, readUIKitRefreshRate)
        #else
        return nil
        #endif
    }

    /// Whether the platform has a screen whose size the decode cap follows.
    static var platformHasScreen: Bool {
        #if os(iOS) || os(tvOS) || os(macOS)
        true
        #else
        false
        #endif
    }

    /// The decode cap where there is no main screen to read: visionOS windows (resizable up to
    /// most of the field of view) 4096x4096; watchOS 1024x1024 (the largest watch screen is
    /// 502 pixels tall; twice that leaves room to zoom); `nil` elsewhere (Linux: no cap).
    static var screenlessCap: PixelSize? {
        #if os(visionOS)
        PixelSize(width: 4096, height: 4096)
        #elseif os(watchOS)
        PixelSize(width: 1024, height: 1024)
        #else
        nil
        #endif
    }

    /// The main screen's size in pixels, or `nil` where there is none (Linux) or not yet known.
    static var pixelSize: PixelSize? {
        #if os(iOS) || os(tvOS)
        return recordedOnMainThread(recorded, readUIKitScreen)
        #elseif os(macOS)
        if let size = recorded.withLock({ $0 }) { return size }
        guard let mode = CGDisplayCopyDisplayMode(CGMainDisplayID()) else { return nil }
        let size = PixelSize(width: mode.pixelWidth, height: mode.pixelHeight)
        recorded.withLock { $0 = size }
        return size
        #else
        return nil
        #endif
    }

    #if os(iOS) || os(tvOS)
    /// The value `read` recorded, else `read` now on the main thread (recorded for every
    /// thread), else `nil` while the main thread is asked to record it.
    private static func recordedOnMainThread<T: Sendable>(_ recorded: Locked<T?>, _ read: @escaping @MainActor @Sendable () -> T?) -> T? {
        if let value = recorded.withLock({ $0 }) { return value }
        if Thread.isMainThread {
            let value = onMainThread(read)
            recorded.withLock { $0 = value }
            return value
        }
        DispatchQueue.main.async {
            let value = read()
            recorded.withLock { $0 = value }
        }
        return nil
    }

    /// Calls a main-actor function from the main thread synchronously: what
    /// `MainActor.assumeIsolated` does on newer SDKs (the iOS 15/16 SDKs lack it). Only called
    /// after checking `Thread.isMainThread`.
    private static func onMainThread<T>(_ body: @MainActor () -> T) -> T {
        precondition(Thread.isMainThread)
        return withoutActuallyEscaping(body) { body in
            unsafeBitCast(body, to: (() -> T).self)()
        }
    }

    @MainActor
    private static func readUIKitRefreshRate() -> Int? {
        let rate = UIScreen.main.maximumFramesPerSecond
        return rate > 0 ? rate : nil
    }

    @MainActor
    private static func readUIKitScale() -> Double? {
        let scale = Double(UIScreen.main.scale)
        return scale > 0 ? scale : nil
    }

    @MainActor
    private static func readUIKitScreen() -> PixelSize? {
        let bounds = UIScreen.main.nativeBounds
        return PixelSize(width: Int(bounds.width.rounded()), height: Int(bounds.height.rounded()))
    }
    #endif
}
