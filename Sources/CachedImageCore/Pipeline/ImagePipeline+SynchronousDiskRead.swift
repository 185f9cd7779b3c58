import Foundation

extension ImagePipeline {
    /// Which disk entries a view's first frame may read and decode synchronously when the memory
    /// cache misses (``ImagePipeline/firstFrameImage(for:)``), so images already on disk show in
    /// the first frame after a relaunch instead of one frame late through the placeholder.
    ///
    /// An entry qualifies when its file is at most ``maximumEntryBytes`` (whatever its
    /// freshness: a stale one is shown marked ``ImageResponse/isStale`` and revalidated behind
    /// it), its request has no processors (a processed image kept on disk by
    /// ``ImagePipeline/DiskCachePolicy`` qualifies as it is), and it decodes to at most
    /// ``maximumDecodedBytes``. Reads stop for the rest of a frame (``frameInterval``) once they
    /// took ``timePerFrame``: at most one read more than the budget, measured in BENCHMARKS.md
    /// (table 11, "The first frame after a relaunch"). Everything else loads asynchronously.
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()
    /// configuration.synchronousDiskRead = nil          // first frames read memory only
    /// configuration.synchronousDiskRead?.maximumEntryBytes = 32 * 1024
    /// ```
    package struct SynchronousDiskRead: Sendable, Hashable {
        /// The largest entry file read synchronously, header included. Default: 64 KB.
        package var maximumEntryBytes: Int
        /// The largest decoded image produced synchronously. Default: 1 MB (512x512 pixels).
        package var maximumDecodedBytes: Int
        /// The time synchronous reads may take in one frame. Default: 4 ms (a quarter of a
        /// 60 Hz frame); ``default`` follows the screen (2 ms at 120 Hz).
        package var timePerFrame: TimeInterval
        /// The length of a frame. Default: 1/60 s; ``default`` follows the screen (1/120 s on ProMotion).
        package var frameInterval: TimeInterval

        /// Limits with the given values; each defaults to the value its property states.
        package init(
            maximumEntryBytes: Int = 64 * 1024,
            maximumDecodedBytes: Int = 1024 * 1024,
            timePerFrame: TimeInterval = 0.004,
            frameInterval: TimeInterval = 1.0 / 60
        ) {
            self.maximumEntryBytes = maximumEntryBytes
            self.maximumDecodedBytes = maximumDecodedBytes
            self.timePerFrame = timePerFrame
            self.frameInterval = frameInterval
        }

        /// The defaults above, with the frame of the main screen's refresh rate
        /// (``forDisplay(framesPerSecond:)``): 120 Hz on ProMotion, 60 Hz where unknown.
        package static var `default`: SynchronousDiskRead {
            forDisplay(framesPerSecond: MainScreen.maximumFramesPerSecond ?? 60)
        }

        /// The budget for a display refreshing `framesPerSecond` times a second: frames of
        /// `1 / framesPerSecond`, of which synchronous reads take the same share as 4 ms of a
        /// 60 Hz frame (2 ms at 120 Hz), so the first frame never misses a faster display's deadline.
        package static func forDisplay(framesPerSecond: Int) -> SynchronousDiskRead {
            let rate = Double(min(max(framesPerSecond, 1), 1_000))
            return SynchronousDiskRead(timePerFrame: 0.004 * (60 / rate), frameInterval: 1.0 / rate)
        }
    }

    /// The image for `request` for a view's first frame, without waiting: the memory cache's
    /// (source `.memory`), else the image a view showed for it since launch (source `.memory`),
    /// else a small disk entry read and decoded here (source `.disk`) within
    /// the pipeline's synchronous disk-read budget; `nil` otherwise (load it with
    /// ``image(for:)-(ImageRequest)``). The image read from disk is kept in the memory cache as
    /// its response allows. Never touches the network.
    ///
    /// A display rule, above the HTTP cache: an entry whose headers ask for a revalidation first
    /// (`no-cache`, `max-age=0`, expired) is returned too, marked ``ImageResponse/isStale``, as
    /// a browser shows an image it already has; revalidate it behind it (a view does).
    /// ``image(for:)-(ImageRequest)`` keeps RFC 9111's answers.
    ///
    /// `ImageLoader` (behind `CachedAsyncImage` and the UIKit loader) calls it for each new
    /// request's first frame; ``memoryCachedImage(for:)`` stays memory-only.
    public func firstFrameImage(for request: ImageRequest) -> ImageResponse? {
        guard let result = jobs.firstFrameImage(for: request) else { return nil }
        var response = ImageResponse(
            image: result.image,
            request: request,
            source: result.source,
            metrics: TaskMetrics(startDate: configuration.clock.now, duration: 0, isCoalesced: false, bytesDownloaded: 0),
            httpResponse: result.httpResponse
        )
        response.displayRetention = result.displayRetention
        response.mark(result.staleness)
        return response
    }
}
