#if canImport(SwiftUI)
import CachedImage
import CoreGraphics
import Foundation

/// What draws SVG: your app adapts the SVG library it uses (SwiftDraw, SVGKit...) to these two
/// calls. The package has no SVG renderer of its own, and no dependency.
public protocol SVGRendering: Sendable {
    /// The document's own size in points (its `width` and `height`, else its `viewBox`).
    func size(of svg: Data) throws -> CGSize
    /// Draws the document into a bitmap of `pixelSize`.
    func render(_ svg: Data, pixelSize: PixelSize) throws -> CGImage
}

/// Shows SVG through the pipeline: downloaded, cached on disk and in memory like any image, and
/// drawn at the size the request asks for (a vector image is sharp at any size).
public struct SVGImageDecoder<Renderer: SVGRendering>: ImageDecoding {
    let renderer: Renderer

    public init(renderer: Renderer) {
        self.renderer = renderer
    }

    /// Whether bytes are an SVG document: `<svg` within the first kilobyte (after an XML
    /// declaration, a comment or a doctype). Cheap: it runs for every body the core does not
    /// recognise as an image.
    public static func isSVG(_ data: Data) -> Bool {
        data.prefix(1024).range(of: Data("<svg".utf8)) != nil
    }

    /// Drawn to fit the target, larger or smaller than its own size. A request without a size
    /// gets the pipeline's cap (about the screen), so give SVG requests a size, or a frame.
    public func decode(_ data: Data, info: ImageInfo, targetPixelSize: PixelSize?) throws -> DecodedImage {
        let own = try renderer.size(of: data)
        var size = PixelSize(width: max(1, Int(own.width.rounded())), height: max(1, Int(own.height.rounded())))
        if let target = targetPixelSize, target.width > 0, target.height > 0 {
            let scale = min(Double(target.width) / Double(size.width), Double(target.height) / Double(size.height))
            size = PixelSize(width: max(1, Int(Double(size.width) * scale)), height: max(1, Int(Double(size.height) * scale)))
        }
        return DecodedImage(cgImage: try renderer.render(data, pixelSize: size), format: info.format)
    }

    /// Always: drawing allocates a bitmap, off Swift concurrency's shared threads.
    public func isExpensive(_ data: Data, info: ImageInfo, targetPixelSize: PixelSize?) -> Bool { true }
}

extension ImagePipeline.Configuration {
    /// Shows SVG drawn by `renderer`: responses typed `image/svg+xml`, and bodies that are SVG
    /// whatever their type (servers often send `text/xml` or `text/plain`).
    public mutating func registerSVG<Renderer: SVGRendering>(renderer: Renderer) {
        decoderRegistry.register(
            SVGImageDecoder(renderer: renderer), name: "svg", mimeTypes: ["image/svg+xml"],
            matching: SVGImageDecoder<Renderer>.isSVG
        )
    }
}
#endif
