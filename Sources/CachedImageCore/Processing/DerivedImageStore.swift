import Foundation

/// Keeps processed or downsampled images on disk next to their original
/// (``ImagePipeline/DiskCachePolicy``), so a relaunch decodes the small version.
///
/// Two extra entries per image, both in the pipeline's disk cache:
/// - a *version* entry under `<key>#original-version`: a checksum of the original's bytes, stored
///   with a copy of the original's HTTP metadata. It is small, so checking freshness costs one
///   small read, never the original's bytes.
/// - a *derived* entry per (target size, processors) under a key that includes that checksum:
///   the encoded result.
///
/// A derived entry is served while the version's metadata is fresh (the original's freshness).
/// When the original is revalidated with a `304`, the version's metadata is refreshed and every
/// derived entry is fresh again; when new original bytes arrive, the version entry is replaced
/// (or removed) and derived entries made from the old bytes are no longer reachable (the disk
/// cache's LRU eviction reclaims them).
struct DerivedImageStore: Sendable {
    private let diskCache: DiskCache
    private let policy: ImagePipeline.DiskCachePolicy
    private let encoder: any ImageEncoding
    private let decoder: any ImageDecoding
    private let freshness: FreshnessCheck

    /// `nil` when there is no disk cache or encoder. (With the `.original` policy it only keeps
    /// existing version entries in step, one index lookup per download.)
    init?(configuration: ImagePipeline.Configuration, diskCache: DiskCache?) {
        guard let diskCache, let encoder = configuration.encoder else {
            return nil
        }
        self.diskCache = diskCache
        self.policy = configuration.diskCachePolicy
        self.encoder = encoder
        self.decoder = configuration.decoder
        self.freshness = FreshnessCheck(policy: configuration.freshnessPolicy, clock: configuration.clock)
    }

    // MARK: Reading

    /// The derived image for `request`, decoded, when one is on disk and the original's bytes
    /// could answer it by the same rules: its `Vary` matches the request; it is fresh, or, for a
    /// cache-only request, may be served without the network (not `must-revalidate` or
    /// `no-cache` once stale). Returned with the original's metadata (its `Vary` and response).
    /// `limits` (the first frame's synchronous read): a larger entry file, or one that decodes
    /// to more bytes, is left to the asynchronous load.
    func image(
        for request: ImageRequest, limits: (entryBytes: Int, decodedBytes: Int)? = nil
    ) -> (image: DecodedImage, metadata: CachedResponseMetadata)? {
        guard policy(for: request) != .original, isDerivable(request),
              request.options.isDisjoint(with: [.skipDiskCache, .reloadIgnoringLocalCacheData]),
              let version = diskCache.entry(forKey: Self.versionKey(request.cacheKey)),
              DataFetcher.varyMatches(version.metadata, request)
        else {
            return nil
        }
        let servable = request.options.contains(.returnCacheDataDontLoad)
            ? freshness.mayServeWithoutNetwork(version.metadata)
            : freshness.isFresh(version.metadata, for: request)
        let derivedKey = Self.derivedKey(request, version: version.data)
        if let limits, (diskCache.entryFileSize(forKey: derivedKey) ?? .max) > limits.entryBytes {
            return nil
        }
        guard servable,
              let derived = diskCache.entry(forKey: derivedKey),
              let info = ImageInfo(data: derived.data)
        else {
            return nil
        }
        if let limits {
            guard let size = info.decodingSize ?? info.pixelSize, DecodedImage.bitmapCost(of: size) <= limits.decodedBytes else { return nil }
        }
        guard let image = try? decoder.decode(derived.data, info: info, targetPixelSize: nil) else { return nil }
        return (image, version.metadata)
    }

    // MARK: Writing

    /// Called after every decode of original bytes (with or without processing): keeps the
    /// version entry in step with the original, and stores `image` as a derived entry when the
    /// policy wants it.
    func originalDidLoad(
        _ original: ImageDataResponse,
        image: DecodedImage,
        request: ImageRequest,
        encodeLater: (@escaping @Sendable () -> Void) -> Void = { $0() }
    ) {
        guard request.options.isDisjoint(with: [.skipDiskCache]), original.source != .memory else { return }
        let versionKey = Self.versionKey(request.cacheKey)
        let policy = policy(for: request)
        var metadata: CachedResponseMetadata?
        if original.source != .disk, diskCache.containsEntry(forKey: versionKey) {
            let token = Self.token(of: original.data)
            // New bytes, or fresher metadata, for an original that has derived entries: keep
            // the version in step whether or not this request stores anything.
            metadata = updateVersion(versionKey, token: token, request: request)
            if metadata == nil { return }
        }
        // Nothing to derive from when the original is not on disk (no-store, private, file URLs).
        guard policy != .original, isDerivable(request), diskCache.containsEntry(forKey: request.cacheKey) else { return }
        if policy == .automatic {
            guard let originalSize = original.info.pixelSize,
                  image.pixelSize.pixelCount.multipliedReportingOverflow(by: 2).partialValue <= originalSize.pixelCount
            else {
                return
            }
        }
        // The encode, after the image was delivered (`encodeLater`: a bounded background queue).
        let knownMetadata = metadata
        encodeLater { [self] in
            guard let encoded = try? encoder.encode(image) else { return }
            if policy == .automatic && encoded.count * 2 > original.data.count { return }
            let token = Self.token(of: original.data)
            guard let metadata = knownMetadata ?? updateVersion(versionKey, token: token, request: request) else { return }
            diskCache.store(encoded, metadata: metadata, forKey: Self.derivedKey(request, version: Data(token.utf8)))
        }
    }

    /// Writes the version entry for the original's current bytes and metadata; removes it when
    /// the original is not on disk (`no-store`, private). Returns the original's metadata.
    @discardableResult
    private func updateVersion(_ versionKey: String, token: String, request: ImageRequest) -> CachedResponseMetadata? {
        guard let original = diskCache.entry(forKey: request.cacheKey) else {
            diskCache.removeEntry(forKey: versionKey)
            return nil
        }
        diskCache.store(Data(token.utf8), metadata: original.metadata, forKey: versionKey)
        return original.metadata
    }

    /// Forgets every derived entry of `cacheKey` (by forgetting its version).
    func removeDerivedImages(forKey cacheKey: String) {
        diskCache.removeEntry(forKey: Self.versionKey(cacheKey))
    }

    // MARK: Keys

    /// The request's own policy, else the pipeline's.
    private func policy(for request: ImageRequest) -> ImagePipeline.DiskCachePolicy {
        request.diskCachePolicy ?? policy
    }

    /// A request with a size or processors; never an HDR decode (``ImageRequest/Options/decodeToHDR``:
    /// the encoders write SDR, so its copy would come back from disk without its range).
    private func isDerivable(_ request: ImageRequest) -> Bool {
        (request.targetPixelSize != nil || !request.processorChain.isEmpty) && !request.decodesToHDR
    }

    static func versionKey(_ cacheKey: String) -> String {
        cacheKey + "#original-version"
    }

    static func derivedKey(_ request: ImageRequest, version: Data) -> String {
        let size = (request.targetPixelSize.map { "\($0),\(request.contentMode.rawValue)" } ?? "full")
            + (request.options.contains(.decodeFullResolution) ? ",uncapped" : "")
        let processors = request.processorChain.identifiers.joined(separator: "|")
        return request.cacheKey + "#derived(" + size + ";" + processors + ";" + String(decoding: version, as: UTF8.self) + ")"
    }

    static func token(of data: Data) -> String {
        let checksum = data.withUnsafeBytes { FastChecksum.checksum($0) }
        return String(checksum, radix: 16) + "-" + String(data.count)
    }
}
