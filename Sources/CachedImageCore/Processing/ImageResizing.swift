/// A processor that resizes to a size (the `CachedImage` module's `ImageProcessors.Resize`
/// conforms). When it is a request's first processor and the request has no target size of its
/// own, the pipeline decodes straight to the size it needs (its ``pixelSize`` and ``contentMode``,
/// never upscaled) instead of decoding the original and then resizing it: a round avatar of a
/// 4000x3000 photo never holds 48 MB.
///
/// ```swift
/// ImageRequest(url: url, processors: [ImageProcessors.Resize(size: CGSize(width: 64, height: 64), crop: true)])
/// ```
public protocol ImageResizing: ImageProcessing {
    /// The size the processor resizes to, in pixels.
    var pixelSize: PixelSize { get }
    /// Whether it fits inside ``pixelSize`` or fills it.
    var contentMode: ImageContentMode { get }
}

extension ImageRequest {
    /// Whether the view's laid-out size decides what this request decodes: it gives no target
    /// size, does not start with a resize processor (whose size is the target then) and does
    /// not ask for the image's full resolution.
    package var isSizedByLayout: Bool {
        !hasOwnDecodeSize && !options.contains(.decodeFullResolution)
    }

    /// Whether the request says what size it decodes at: a target size, or a leading resize
    /// processor (whose size is the target then). Such an image lays out in points at the
    /// display's scale (`ImageDisplayScale`).
    package var hasOwnDecodeSize: Bool {
        targetPixelSize != nil || processorChain.processors.first is ImageResizing
    }

    /// What to decode for this request with the pipeline's cap: its target size and content
    /// mode, or, with no target size, those of a leading ``ImageResizing`` processor.
    /// ``Options/decodeFullResolution`` lifts the cap.
    /// ``Options/decodeToHDR`` asks for the high dynamic range (``DecodingTarget/decodesToHDR``).
    func decodingTarget(maximumSize: PixelSize?) -> DecodingTarget {
        let maximumSize = options.contains(.decodeFullResolution) ? nil : maximumSize
        var target = if targetPixelSize == nil, let resize = processorChain.processors.first as? any ImageResizing {
            DecodingTarget(size: resize.pixelSize, contentMode: resize.contentMode, maximumSize: maximumSize)
        } else {
            DecodingTarget(size: targetPixelSize, contentMode: contentMode, maximumSize: maximumSize)
        }
        target.decodesToHDR = decodesToHDR
        return target
    }

    /// Whether the request is decoded to its high dynamic range: it asks for it
    /// (``Options/decodeToHDR``) and the system can (`HDRDecodeRequest.isAvailable`); elsewhere
    /// the request is an SDR one, in its memory entry and its cost.
    package var decodesToHDR: Bool {
        options.contains(.decodeToHDR) && HDRDecodeRequest.isAvailable.get()
    }
}
