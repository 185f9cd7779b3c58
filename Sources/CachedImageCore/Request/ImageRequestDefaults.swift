import Foundation

/// Request options for a whole screen or app, applied to requests that leave them unset: what the
/// `imageRequestDefaults` SwiftUI environment value carries to every `CachedAsyncImage` below it,
/// so `CachedAsyncImage(url:)` call sites decode downsampled without being rewritten.
///
/// ```swift
/// var defaults = ImageRequestDefaults()
/// defaults.maximumDecodedPixelSize = PixelSize(width: 1200, height: 1200)  // never decode larger
/// defaults.options = [.skipDiskCache]
/// let request = defaults.applied(to: ImageRequest(url: url))
/// ```
public struct ImageRequestDefaults: Sendable, Hashable {
    /// The size, in points, requests that have none (and get none from their view's layout)
    /// are shown at (``ImageRequest/targetSize``): a view applies its display's scale, and
    /// ``applied(to:)`` outside a view the main screen's.
    public var targetSize: CGSize? {
        get { pointTarget.map { CGSize(width: $0.width, height: $0.height) } }
        set { pointTarget = newValue.map { ImageRequest.PointSize(width: Double($0.width), height: Double($0.height)) } }
    }

    /// ``targetSize``, stored hashable (`CGSize` is not `Hashable` on Apple platforms).
    private var pointTarget: ImageRequest.PointSize? = nil

    /// The scale ``targetSize`` is resolved at: a view's display's (set by the view), else
    /// the main screen's.
    package var displayScale: Double?

    /// The decode cap for the requests below it, in pixels (a cap is about memory, so it is in
    /// pixels whatever the screen): the most a request decodes when it has no size of its own
    /// or fits one: a maximum (aspect fit), never a size to fill. A request with no target size
    /// (and no ``targetSize``)
    /// decodes to fit inside it (a 4000x3000 photo under a 1170x2532 maximum decodes to
    /// 1170x878); an `.aspectFit` target is capped to it side by side. An `.aspectFill` target
    /// is the view's own size and is kept: the image covers the view, never fewer pixels than
    /// it shows (the pipeline's ``ImagePipeline/Configuration/maximumDecodedPixelSize`` still
    /// bounds each side of it). Fill targets come only from a request's (or a view's) own size.
    public var maximumDecodedPixelSize: PixelSize?

    /// Options added to every request's own.
    public var options: ImageRequest.Options

    /// The priority for requests left at the default `.normal`; explicit other priorities win.
    public var priority: ImageRequest.Priority?

    /// The constrained-network policy for requests left at `.allow`.
    public var constrainedNetworkPolicy: ImageRequest.ConstrainedNetworkPolicy?

    /// HTTP header fields added to every request that does not set that field itself (names
    /// compared case-insensitively): an API key, an app version, the signed-in user. They are
    /// part of the request as given, so the ones named in
    /// ``ImagePipeline/Configuration/identityHeaderFields`` key the memory and disk caches.
    /// Credentials that change over time (a token to refresh) belong in
    /// ``ImagePipeline/Configuration/requestModifier`` instead. See <doc:Authentication>.
    public var headerFields: [String: String] = [:]

    /// Defaults that change nothing.
    public init(
        targetSize: CGSize? = nil,
        maximumDecodedPixelSize: PixelSize? = nil,
        options: ImageRequest.Options = [],
        priority: ImageRequest.Priority? = nil,
        constrainedNetworkPolicy: ImageRequest.ConstrainedNetworkPolicy? = nil
    ) {
        self.maximumDecodedPixelSize = maximumDecodedPixelSize
        self.options = options
        self.priority = priority
        self.constrainedNetworkPolicy = constrainedNetworkPolicy
        self.targetSize = targetSize
    }

    /// These defaults with ``targetSize`` resolved at `displayScale` (a view's display's).
    package func resolvingPointSize(displayScale: Double) -> ImageRequestDefaults {
        var resolved = self
        resolved.displayScale = displayScale > 0 && displayScale.isFinite ? displayScale : nil
        return resolved
    }

    /// `request` with these defaults filled in where it left things unset.
    public func applied(to request: ImageRequest) -> ImageRequest {
        var request = request
        let fullResolution = request.options.union(options).contains(.decodeFullResolution)
        var size = request.targetPixelSize
            ?? (fullResolution ? nil : targetSize.flatMap { PixelSize(points: $0, scale: displayScale ?? MainScreen.scale ?? 1) })
        if let maximumDecodedPixelSize, !fullResolution {
            if let target = size {
                // A fill target is what the view shows: kept. A fit target is a maximum too.
                if request.contentMode == .aspectFit {
                    size = PixelSize(width: min(target.width, maximumDecodedPixelSize.width), height: min(target.height, maximumDecodedPixelSize.height))
                }
            } else {
                // A maximum, not a size to fill: fit inside it.
                size = maximumDecodedPixelSize
                request.contentMode = .aspectFit
            }
        }
        // Set only when it changes: setting it clears the request's size in points.
        if size != request.targetPixelSize { request.targetPixelSize = size }
        request.options.formUnion(options)
        if let priority, request.priority == .normal {
            request.priority = priority
        }
        if let constrainedNetworkPolicy, request.constrainedNetworkPolicy == .allow {
            request.constrainedNetworkPolicy = constrainedNetworkPolicy
        }
        for (field, value) in headerFields where request.urlRequest.value(forHTTPHeaderField: field) == nil {
            request.urlRequest.setValue(value, forHTTPHeaderField: field)
        }
        return request
    }
}
