#if canImport(CoreGraphics)
import CachedImageCore
import CoreGraphics
import Foundation

extension ImageProcessors {
    /// Resizes to a size in pixels: fill it (the default, as ``ImageRequest``'s
    /// ``ImageRequest/contentMode``: the image covers the size, optionally cropped to it) or fit
    /// inside it, never enlarging unless `upscale` is set.
    ///
    /// Prefer ``ImageRequest/targetSize`` for plain downsampling (the decoder then never holds
    /// the full bitmap); use `Resize` for exact thumbnails (`.aspectFill` with `crop`).
    ///
    /// ```swift
    /// ImageProcessors.Resize(size: PixelSize(width: 192, height: 192), contentMode: .aspectFill, crop: true)
    /// ```
    public struct Resize: ImageResizing {
        /// The size to fit or fill, in pixels.
        public var size: PixelSize
        /// Fill ``size`` (the default), or fit inside it.
        public var contentMode: ImageContentMode
        /// Whether smaller images are enlarged.
        public var upscale: Bool
        /// With `.aspectFill`, whether the output is cropped to ``size`` (centred).
        public var crop: Bool

        public init(size: PixelSize, contentMode: ImageContentMode = .aspectFill, upscale: Bool = false, crop: Bool = false) {
            self.size = size
            self.contentMode = contentMode
            self.upscale = upscale
            self.crop = crop
        }

        public var identifier: String {
            "cachedimage.resize(\(size),\(contentMode.rawValue)\(upscale ? ",upscale" : "")\(crop ? ",crop" : ""))"
        }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            let input = try ProcessingCanvas.cgImage(of: image, processor: identifier)
            let source = PixelSize(width: input.width, height: input.height)
            let geometry = ImageResizeGeometry(source: source, target: size, contentMode: contentMode, upscale: upscale, crop: crop)
            if geometry.canvas == source, geometry.drawX == 0, geometry.drawY == 0 {
                return image
            }
            let output = try ProcessingCanvas.draw(size: geometry.canvas, opaque: ProcessingCanvas.isOpaque(input), colorSpace: ProcessingCanvas.colorSpace(for: input), processor: identifier) { context, _ in
                let rect = CGRect(x: geometry.drawX, y: geometry.drawY, width: geometry.drawWidth, height: geometry.drawHeight)
                ProcessingCanvas.drawUpright(input, in: rect, context: context)
            }
            return DecodedImage(processed: output, from: image)
        }
    }

    /// Crops to a rectangle in pixels (origin top-left), clamped to the image.
    public struct Crop: ImageProcessing {
        /// The rectangle kept, in pixels, origin at the top-left corner.
        public var rect: CGRect

        public init(rect: CGRect) {
            self.rect = rect.integral
        }

        public var identifier: String {
            "cachedimage.crop(\(Int(rect.minX)),\(Int(rect.minY)),\(Int(rect.width))x\(Int(rect.height)))"
        }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            let input = try ProcessingCanvas.cgImage(of: image, processor: identifier)
            let bounds = CGRect(x: 0, y: 0, width: input.width, height: input.height)
            let clamped = rect.intersection(bounds)
            guard !clamped.isNull, clamped.width >= 1, clamped.height >= 1, let output = input.cropping(to: clamped) else {
                throw ImageProcessingError(processor: identifier, reason: "the crop rectangle is outside the \(input.width)x\(input.height) image")
            }
            return DecodedImage(processed: output, from: image)
        }
    }

    /// Rounds the corners with a radius in pixels (the corners become transparent).
    public struct RoundedCorners: ImageProcessing {
        /// The corner radius, in pixels.
        public var radius: Double

        public init(radius: Double) {
            self.radius = radius
        }

        public var identifier: String { "cachedimage.roundedCorners(\(radius))" }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            let input = try ProcessingCanvas.cgImage(of: image, processor: identifier)
            let size = PixelSize(width: input.width, height: input.height)
            let output = try ProcessingCanvas.draw(size: size, opaque: false, colorSpace: ProcessingCanvas.colorSpace(for: input), processor: identifier) { context, bounds in
                let radius = min(CGFloat(self.radius), bounds.width / 2, bounds.height / 2)
                context.addPath(CGPath(roundedRect: bounds, cornerWidth: radius, cornerHeight: radius, transform: nil))
                context.clip()
                ProcessingCanvas.drawUpright(input, in: bounds, context: context)
            }
            return DecodedImage(processed: output, from: image)
        }
    }

    /// Crops to the centred square and masks it to a circle: avatars.
    public struct Circle: ImageProcessing {
        public init() {}

        public var identifier: String { "cachedimage.circle" }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            let input = try ProcessingCanvas.cgImage(of: image, processor: identifier)
            let side = min(input.width, input.height)
            let output = try ProcessingCanvas.draw(size: PixelSize(width: side, height: side), opaque: false, colorSpace: ProcessingCanvas.colorSpace(for: input), processor: identifier) { context, bounds in
                context.addEllipse(in: bounds)
                context.clip()
                let rect = CGRect(
                    x: CGFloat(side - input.width) / 2,
                    y: CGFloat(side - input.height) / 2,
                    width: CGFloat(input.width),
                    height: CGFloat(input.height)
                )
                ProcessingCanvas.drawUpright(input, in: rect, context: context)
            }
            return DecodedImage(processed: output, from: image)
        }
    }
}
#endif
