import Foundation

/// Turns a processed or downsampled image back into bytes, so a
/// ``ImagePipeline/DiskCachePolicy`` can keep the small version on disk and a relaunch decodes
/// it instead of the original.
///
/// The default on Apple platforms is `ImageIOEncoder` (JPEG for opaque images, PNG for images
/// with transparency). Where no encoder exists (`HeaderImageDecoder` keeps no bitmap) the
/// configuration's ``ImagePipeline/Configuration/encoder`` is `nil` and only originals are stored.
public protocol ImageEncoding: Sendable {
    /// The encoded bytes of `image`, in a format the pipeline's decoder reads.
    ///
    /// - Throws: Any error; the pipeline then keeps only the original on disk.
    func encode(_ image: DecodedImage) throws -> Data
}

extension ImagePipeline {
    /// What the disk cache keeps for requests with processors or a target size: set it for the
    /// pipeline (``Configuration/diskCachePolicy``) or per request (``ImageRequest/diskCachePolicy``).
    ///
    /// Original bytes are always kept (every size and processing of an image derives from them,
    /// and HTTP revalidation needs them). With `.processed` or `.automatic`, the processed result
    /// is also kept, encoded, as a *derived entry*; its freshness is the original's: it is
    /// served only while the original's HTTP metadata says the original is fresh, a `304`
    /// refreshes it, and new original bytes invalidate every derived entry made from the old ones.
    public enum DiskCachePolicy: Sendable, Hashable {
        /// Keep original bytes only: a relaunch decodes (and processes) the original again.
        case original
        /// Also keep the processed or downsampled result of every request that has processors
        /// or a target size.
        case processed
        /// Also keep the processed result when it is much smaller than the original: at most
        /// half its pixels and half its bytes once encoded.
        case automatic
    }
}

extension ImagePipeline.Configuration {
    /// The default ``encoder``: ImageIO's on Apple platforms, none elsewhere.
    public static var defaultEncoder: (any ImageEncoding)? {
        #if canImport(ImageIO)
        ImageIOEncoder()
        #else
        nil
        #endif
    }
}
