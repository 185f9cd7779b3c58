#if canImport(AVFoundation) && !os(watchOS)
import AVFoundation
import CachedImageCore
import CoreGraphics
import Foundation

extension ImageDecoderRegistry {
    /// Shows a video URL as its first frame: MP4, QuickTime (`.mov`), M4V and 3GPP files, and
    /// any response typed as one (`video/mp4`, `video/quicktime`, `video/x-m4v`, `video/3gpp`,
    /// `video/3gpp2`), decoded with AVFoundation's
    /// `AVAssetImageGenerator` at the size the request asks for (fill or fit, never upscaled,
    /// within the pipeline's cap), the track's rotation applied. Opt-in: register it on the
    /// pipeline's configuration.
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()
    /// configuration.decoderRegistry.registerVideoThumbnails()
    /// ImagePipeline.shared = ImagePipeline(configuration: configuration)
    /// // Then: CachedAsyncImage(url: URL(string: "https://example.com/clip.mp4"))
    /// ```
    ///
    /// The pipeline downloads the whole file (AVFoundation reads the frame from a temporary
    /// copy), within ``ImagePipeline/Configuration/maximumResponseBytes`` (50 MB by default),
    /// and caches it like an image's bytes: the frame is decoded again from disk after a
    /// relaunch, without the network. The decoded frame is kept in memory like any image. Use
    /// it for short clips; for long videos, show the server's poster image instead. HEIC and
    /// AVIF photos, which share the video's container, stay images.
    public mutating func registerVideoThumbnails() {
        registerVideoDecoder(VideoFrameDecoder())
    }
}

/// Decodes the first frame of a video's bytes with `AVAssetImageGenerator`: the bytes are
/// written to a temporary file (AVFoundation reads files, not bytes) in `VideoTemporaryFiles`'
/// folder, named with the container's extension, removed after the decode. What is a video and what size to ask for is decided by
/// ``VideoContainer``.
struct VideoFrameDecoder: TargetedImageDecoding {
    /// Always: AVFoundation opens a file and decodes a video frame (tens of milliseconds).
    func isExpensive(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) -> Bool { true }

    func decode(_ data: Data, info: ImageInfo, targetPixelSize targetSize: PixelSize?) throws -> DecodedImage {
        try decode(data, info: info, target: DecodingTarget(size: targetSize, contentMode: .aspectFit))
    }

    func decode(_ data: Data, info: ImageInfo, target: DecodingTarget) throws -> DecodedImage {
        let request = VideoContainer.frameRequest(for: data, target: target)
        // A cancelled load writes nothing (the file may be tens of megabytes).
        try Task.checkCancellation()
        let file = try VideoTemporaryFiles.shared.newFile(extension: request.fileExtension)
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: file))
        generator.appliesPreferredTrackTransform = true
        if let size = request.maximumSize {
            generator.maximumSize = CGSize(width: size.width, height: size.height)
        }
        let frame = try generator.copyCGImage(at: .zero, actualTime: nil)
        return DecodedImage(cgImage: frame, format: info.format)
    }
}
#endif
