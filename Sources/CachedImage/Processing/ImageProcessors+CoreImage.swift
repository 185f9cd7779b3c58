#if canImport(CoreImage)
import CachedImageCore
@preconcurrency import CoreImage
import Foundation

extension ImageProcessors {
    /// A Gaussian blur (edges are not darkened): blurred backdrops. The radius is in points,
    /// the display's scale applied for you, so the blur looks the same on every screen.
    ///
    /// ```swift
    /// ImageProcessors.GaussianBlur(radius: 12)          // 36 pixels at 3x
    /// ImageProcessors.GaussianBlur(radiusInPixels: 12)  // 12 pixels on any screen
    /// ```
    public struct GaussianBlur: ImageProcessing, DisplayScaledProcessing {
        /// The blur radius applied, in pixels.
        public var radiusInPixels: Double { radius.pixels }
        private var radius: ProcessingLength

        /// Blurs with `radius` points.
        public init(radius: Double = 8) {
            self.radius = ProcessingLength(points: radius)
        }

        /// Blurs with `radiusInPixels` of the image's pixels, whatever the screen.
        public init(radiusInPixels: Double) {
            self.radius = ProcessingLength(pixels: radiusInPixels)
        }

        public var identifier: String { "cachedimage.gaussianBlur(\(radius.pixels))" }

        package func resolved(displayScale: Double) -> GaussianBlur {
            var resolved = self
            resolved.radius = radius.resolved(displayScale: displayScale)
            return resolved
        }

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            try CoreImageFilter(name: "CIGaussianBlur", parameters: [kCIInputRadiusKey: radius.pixels], identifier: identifier)
                .process(image)
        }
    }

    /// Any Core Image filter by name, with scalar parameters. The output keeps the input's
    /// extent (a blur does not grow the image). Rendered on the GPU in the foreground, on the
    /// CPU otherwise (the system refuses GPU work from the background: an image that finished
    /// loading there would be black).
    ///
    /// ```swift
    /// ImageProcessors.CoreImageFilter(name: "CISepiaTone", parameters: [kCIInputIntensityKey: 0.8], identifier: "sepia-0.8")
    /// ```
    public struct CoreImageFilter: ImageProcessing {
        /// The filter's name, for example `"CISepiaTone"`.
        public var name: String
        /// Input values by key (numbers, strings, colours).
        public var parameters: [String: any Sendable]
        /// See ``ImageProcessing/identifier``.
        public let identifier: String

        /// - Parameter identifier: Stable across launches and distinct for distinct parameters;
        ///   default: the name and parameters.
        public init(name: String, parameters: [String: any Sendable] = [:], identifier: String? = nil) {
            self.name = name
            self.parameters = parameters
            self.identifier = identifier ?? "cachedimage.coreImage(\(name),\(parameters.keys.sorted().map { "\($0)=\(parameters[$0]!)" }.joined(separator: ",")))"
        }

        /// One GPU context for every filter: creating one per image is expensive; it is thread-safe.
        private static let gpuContext: CIContext = CIContext(options: [.useSoftwareRenderer: false])
        /// The CPU one, for a process not known to be in the foreground (`GPUProcessing`): the
        /// system refuses GPU work from the background.
        private static let softwareContext: CIContext = CIContext(options: [.useSoftwareRenderer: true])

        public func process(_ image: DecodedImage) throws -> DecodedImage {
            let input = try ProcessingCanvas.cgImage(of: image, processor: identifier)
            guard let filter = CIFilter(name: name) else {
                throw ImageProcessingError(processor: identifier, reason: "Core Image has no filter named \(name)")
            }
            let ciImage = CIImage(cgImage: input)
            filter.setValue(ciImage.clampedToExtent(), forKey: kCIInputImageKey)
            for (key, value) in parameters {
                filter.setValue(value, forKey: key)
            }
            guard let output = filter.outputImage?.cropped(to: ciImage.extent),
                  // In the input's colour space (Display P3 stays Display P3), not the context's sRGB.
                  let cgImage = (GPUProcessing.isAllowedNow ? Self.gpuContext : Self.softwareContext).createCGImage(
                      output, from: ciImage.extent, format: .RGBA8, colorSpace: ProcessingCanvas.colorSpace(for: input)
                  )
            else {
                throw ImageProcessingError(processor: identifier, reason: "\(name) produced no image")
            }
            return DecodedImage(processed: cgImage, from: image)
        }
    }
}
#endif
