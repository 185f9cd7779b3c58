/// The decoding target a UIKit view's layout gives, as `ImageViewLoadingController` reads it:
/// a dimension of zero (or not finite) is unknown, never a reason to wait.
///
/// - Both dimensions known: that pixel size, in the request's content mode.
/// - One known: fit by it (the image is as wide, or as tall, as the view); the other side is
///   bounded only by `unknownSide` (the pipeline's cap, which bounds the decode anyway).
/// - Neither: `nil` (the pipeline's cap decides, once the view's first layout has passed).
struct LayoutTarget: Hashable, Sendable {
    var size: PixelSize
    /// `.aspectFit` when one dimension is unknown; `nil`: the request's own mode.
    var contentMode: ImageContentMode?

    /// A side with no bound (no cap configured).
    static let unbounded = Int(Int32.max)

    init(size: PixelSize, contentMode: ImageContentMode?) {
        self.size = size
        self.contentMode = contentMode
    }

    init?(width: Double, height: Double, scale: Double, unknownSide: Int) {
        let scale = scale > 0 && scale.isFinite ? scale : 1
        switch (Self.pixels(width, scale), Self.pixels(height, scale)) {
        case let (w?, h?):
            size = PixelSize(width: w, height: h)
            contentMode = nil
        case let (w?, nil):
            size = PixelSize(width: w, height: max(w, unknownSide))
            contentMode = .aspectFit
        case let (nil, h?):
            size = PixelSize(width: max(h, unknownSide), height: h)
            contentMode = .aspectFit
        case (nil, nil):
            return nil
        }
    }

    /// `points` at `scale` in whole pixels (rounded up); `nil` when unknown or absurd.
    static func pixels(_ points: Double, _ scale: Double) -> Int? {
        PixelSize.pixels(points: points, scale: scale)
    }

    /// `request` decoded for this target.
    func applied(to request: ImageRequest) -> ImageRequest {
        var sized = request
        sized.targetPixelSize = size
        if let contentMode { sized.contentMode = contentMode }
        return sized
    }
}
