#if canImport(CoreGraphics)
import CachedImageCore
import CoreGraphics
import Foundation

extension ImageProcessors {
    /// Resizes to a size in points, as views are laid out (the display's scale applied for you:
    /// a view's own display's, elsewhere the main screen's): fill it (the default, as
    /// ``ImageRequest``'s ``ImageRequest/contentMode``: the image covers the size, optionally
    /// cropped to it) or fit inside it, never enlarging unless `upscale` is set.
    ///
    /// Prefer ``ImageRequest/targetSize`` for plain downsampling (the decoder then never holds
    /// the full bitmap); use `Resize` for exact thumbnails (`.aspectFill` with `crop`). As a
    /// request's first processor it decodes straight to its size.
    ///
    /// ```swift
    /// ImageProcessors.Resize(size: CGSize(width: 64, height: 64), crop: true)  // 192x192 pixels at 3x
    /// ImageProcessors.Resize(pixelSize: PixelSize(width: 512, height: 512))    // 512x512 on any screen
    /// ```
    public struct Resize: ImageResizing, DisplayScaledProcessing {
        /// The size to fit or fill, in pixels: the points given times the display's scale, or
        /// the pixels given.
        public var pixelSize: PixelSize { pixels }
        /// Fill ``pixelSize`` (the default), or fit inside it.
        public var contentMode: ImageContentMode
        /// Whether smaller images are enlarged.
        public var upscale: Bool
        /// With `.aspectFill`, whether the output is cropped to ``pixelSize`` (centred).
        public var crop: Bool
        /// The size in points, `nil` for the pixel form.
        private let points: CGSize?
        private var pixels: PixelSize

        /// Resizes to `size` in points (what a view is laid out at), filled as `contentMode`
        /// (by default `.aspectFill`, as ``ImageRequest/contentMode``), never enlarged unless
        /// `upscale`, cropped to `size` if `crop`.
        public init(size: CGSize, contentMode: ImageContentMode = .aspectFill, upscale: Bool = false, crop: Bool = false) {
            self.points = size
            self.pixels = .processing(points: size)
            self.contentMode = contentMode
            self.upscale = upscale
            self.crop = crop
        }

        /// Resizes to `pixelSize` pixels whatever the screen: the pixel form of
        /// ``init(size:contentMode:upscale:crop:)``.
        public init(pixelSize: PixelSize, contentMode: ImageContentMode = .aspectFill, upscale: Bool = false, crop: Bool = false) {
            self.points = nil
            self.pixels = pixelSize
            self.contentMode = contentMode
            self.upscale = upscale
            self.crop = crop
        }

        public var identifier: String {
            "cachedimage.resize(\(pixels),\(contentMode.rawValue)\(upscale ? ",upscale" : "")\(crop ? ",crop" : ""))"
        }

        package func resolved(displayScale: Double) -> Resize {
            guard let points, displayScale > 0, displayScale.isFinite else { return self }
            var resolved = self
            resolved.pixels = .processing(points: points, scale: displayScale)
            return resolved
        }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            let input = try ProcessingCanvas.cgImage(of: image, processor: identifier)
            let source = PixelSize(width: input.width, height: input.height)
            let geometry = ImageResizeGeometry(source: source, target: pixels, contentMode: contentMode, upscale: upscale, crop: crop)
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

    /// Crops to a rectangle of the image's own pixels (origin top-left), clamped to the image:
    /// pixels, since the rectangle is a part of the image, not of the screen.
    public struct Crop: ImageProcessing {
        /// The rectangle kept, in the image's pixels, origin at the top-left corner.
        public var pixelRect: CGRect

        /// Crops to `pixelRect`, in the image's pixels.
        public init(pixelRect: CGRect) {
            self.pixelRect = pixelRect.integral
        }

        public var identifier: String {
            "cachedimage.crop(\(Int(pixelRect.minX)),\(Int(pixelRect.minY)),\(Int(pixelRect.width))x\(Int(pixelRect.height)))"
        }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            let input = try ProcessingCanvas.cgImage(of: image, processor: identifier)
            let bounds = CGRect(x: 0, y: 0, width: input.width, height: input.height)
            let clamped = pixelRect.intersection(bounds)
            guard !clamped.isNull, clamped.width >= 1, clamped.height >= 1, let output = input.cropping(to: clamped) else {
                throw ImageProcessingError(processor: identifier, reason: "the crop rectangle is outside the \(input.width)x\(input.height) image")
            }
            return DecodedImage(processed: output, from: image)
        }
    }

    /// Rounds the corners (they become transparent) with a radius in points, as SwiftUI's
    /// `cornerRadius` and Nuke's `.roundedCorners(radius:)`: the display's scale is applied for
    /// you (8 points are 24 pixels on a 3x screen).
    ///
    /// ```swift
    /// ImageProcessors.RoundedCorners(radius: 8)               // 24 pixels at 3x
    /// ImageProcessors.RoundedCorners(radiusInPixels: 8)       // 8 pixels on any screen
    /// ```
    public struct RoundedCorners: ImageProcessing, DisplayScaledProcessing {
        /// The corner radius drawn, in pixels.
        public var radiusInPixels: Double { radius.pixels }
        private var radius: ProcessingLength

        /// Rounds the corners with `radius` points.
        public init(radius: Double) {
            self.radius = ProcessingLength(points: radius)
        }

        /// Rounds the corners with `radiusInPixels` of the image's pixels, whatever the screen.
        public init(radiusInPixels: Double) {
            self.radius = ProcessingLength(pixels: radiusInPixels)
        }

        public var identifier: String { "cachedimage.roundedCorners(\(radius.pixels))" }

        package func resolved(displayScale: Double) -> RoundedCorners {
            var resolved = self
            resolved.radius = radius.resolved(displayScale: displayScale)
            return resolved
        }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            let input = try ProcessingCanvas.cgImage(of: image, processor: identifier)
            let size = PixelSize(width: input.width, height: input.height)
            let output = try ProcessingCanvas.draw(size: size, opaque: false, colorSpace: ProcessingCanvas.colorSpace(for: input), processor: identifier) { context, bounds in
                let radius = min(CGFloat(self.radius.pixels), bounds.width / 2, bounds.height / 2)
                context.addPath(CGPath(roundedRect: bounds, cornerWidth: radius, cornerHeight: radius, transform: nil))
                context.clip()
                ProcessingCanvas.drawUpright(input, in: bounds, context: context)
            }
            return DecodedImage(processed: output, from: image)
        }
    }

    /// Crops to the centred square and masks it to a circle: avatars.
    public struct Circle: ImageProcessing {
        /// The processor.
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
