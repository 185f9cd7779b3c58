import Foundation

/// The timing of an animated image, read from its container without decoding any pixels:
/// GIF, APNG and animated WebP.
///
/// Frame delays follow what browsers do with tiny delays: a frame asking for 10 ms or less
/// (including 0, which many GIF encoders write) is shown for 100 ms, so such files play at the
/// speed their authors saw.
///
/// ```swift
/// if let animation = AnimatedImageInfo(data: data) {
///     print(animation.frameCount, animation.duration, animation.loopCount)
/// }
/// ```
package struct AnimatedImageInfo: Sendable, Hashable {
    /// The container format.
    package var format: ImageFormat
    /// How long each frame is shown, in seconds, after the tiny-delay rule; one entry per frame.
    package var frameDelays: [TimeInterval]
    /// How many times the animation plays; `0` means forever. (A GIF without a `NETSCAPE2.0`
    /// extension plays once; with one, this is the count it stores, as ImageIO reports it.)
    package var loopCount: Int

    /// The number of frames (at least 2: single-frame files are not animations).
    package var frameCount: Int { frameDelays.count }

    /// One pass through every frame, in seconds.
    package var duration: TimeInterval { frameDelays.reduce(0, +) }

    /// Delays of this many seconds or less are shown for ``minimumDelayReplacement``.
    package static let tinyDelayThreshold: TimeInterval = 0.010
    /// What a tiny delay becomes: 100 ms, as in browsers.
    package static let minimumDelayReplacement: TimeInterval = 0.100

    /// How long a frame asking for `delay` seconds is shown.
    package static func displayedDelay(_ delay: TimeInterval) -> TimeInterval {
        delay <= tinyDelayThreshold + 1e-9 ? minimumDelayReplacement : delay
    }

    /// Creates the info from stored values (delays are used as given).
    package init(format: ImageFormat, frameDelays: [TimeInterval], loopCount: Int) {
        self.format = format
        self.frameDelays = frameDelays
        self.loopCount = loopCount
    }

    /// Reads the frame count, delays and loop count of an animated GIF, APNG or WebP; `nil` for
    /// a still image (one frame), another format, or a container that does not parse.
    package init?(data: Data) {
        let parsed: AnimatedImageInfo?
        switch ImageInfo(data: data)?.format {
        case .gif: parsed = AnimatedImageParser.gif(data)
        case .png: parsed = AnimatedImageParser.apng(data)
        case .webp: parsed = AnimatedImageParser.webp(data)
        default: parsed = nil
        }
        guard let parsed, parsed.frameCount > 1 else { return nil }
        self = parsed
    }
}
