import Foundation

extension ImageDecoderRegistry {
    /// Registers `decoder` for videos (the Apple layer's `registerVideoThumbnails()`, with its
    /// AVFoundation decoder): bytes ``VideoContainer/matches(_:)`` accepts, and responses typed
    /// as one of ``VideoContainer/mimeTypes``. A video's presentation size is its
    /// ``ImageInfo/pixelSize``, so the decoding budget reserves the frame the decode makes, the
    /// pixel limit judges the video before it is decoded, and ``ImagePipeline/DiskCachePolicy/automatic``
    /// can keep a small frame on disk.
    package mutating func registerVideoDecoder(_ decoder: any ImageDecoding) {
        register(
            decoder, name: "video", mimeTypes: VideoContainer.mimeTypes, matching: VideoContainer.matches,
            pixelSize: { VideoContainer(data: $0)?.presentationSize }
        )
    }
}
