import Foundation

/// The first frame's synchronous path (``ImagePipeline/firstFrameImage(for:)``): memory, the
/// image a view showed since launch, then a small disk entry read and decoded in the caller's
/// thread, within the frame's budget; the latter two whatever their freshness (a stale one is
/// marked so: the view revalidates it behind it).
extension ImageJobs {
    /// The image for a view's first frame, where it came from and its response, or `nil` (load
    /// asynchronously).
    func firstFrameImage(for request: ImageRequest) -> DecodedResult? {
        if let hit = resolver.withKeyed(request, { memoryImage(for: $0, counting: .hitsOnly) }) {
            return memoryResult(hit)
        }
        if let shown = shownImage(for: request) {
            // What a view showed since launch, kept because memory would no longer serve it.
            return DecodedResult(
                image: shown, source: .memory, bytesDownloaded: 0, isCoalesced: false, displayRetention: .whenShown, staleness: Staleness()
            )
        }
        guard let policy = configurationSynchronousDiskRead, let budget = firstFrameBudget,
              let (resolved, url) = try? resolver.resolve(request), !url.isFileURL,
              resolved.options.isDisjoint(with: [.skipDiskCache, .reloadIgnoringLocalCacheData, .reloadRevalidatingCacheData]),
              let started = budget.begin()
        else {
            return nil
        }
        defer { budget.end(started) }
        // A processed image kept on disk is the natural candidate, within the same limits.
        if let derived = derivedImage(for: resolved, limits: (policy.maximumEntryBytes, policy.maximumDecodedBytes)) {
            return derived
        }
        guard resolved.processorChain.isEmpty,
              let size = resolver.diskCache?.entryFileSize(forKey: resolved.cacheKey), size <= policy.maximumEntryBytes
        else {
            return nil
        }
        var data: ImageDataResponse
        var staleEntry: DiskCache.Entry?
        // What the disk holds, whether or not the request may ask the network: the first frame
        // never asks it anyway.
        switch displayLookUp(resolved, url: url) {
        case .hit(let hit)?:
            data = hit
        case .staleWhileRevalidate(let entry, let stale)?:
            staleEntry = entry
            data = stale
        case .stale(_, let stale)?:
            // Complete and checksummed, but its headers ask the server first: shown, marked
            // stale, and revalidated behind it by the view (one request, joined by its load).
            data = stale
            data.staleness = Staleness()
        case .miss?, nil:
            return nil
        }
        let decoder = decoderRegistry.decoder(for: data.info, fallback: self.decoder)
        guard let header = data.info.decodingSize ?? data.info.pixelSize,
              let target = try? pixelLimit.limited(resolved.decodingTarget(maximumSize: maximumDecodedPixelSize), for: data.info, decoder: decoder, url: url),
              target.decodedBytes(of: header) <= policy.maximumDecodedBytes,
              var image = try? decoder.decode(data.data, info: data.info, target: target),
              (try? pixelLimit.checkDecoded(image, info: data.info, url: url)) != nil
        else {
            return nil
        }
        image.sourcePixelSize = data.info.pixelSize
        if let staleEntry, resolved.options.isDisjoint(with: .returnCacheDataDontLoad), !resolved.cacheDirectives.onlyIfCached {
            // Only once the image is shown: a rejected entry is revalidated by the load that follows.
            revalidateInBackground(resolved, url: url, entry: staleEntry, data: data)
        }
        keepInMemory(image, for: resolved, metadata: data.metadata, lifetime: data.memoryLifetime)
        return DecodedResult(
            image: image, source: .disk, bytesDownloaded: 0, isCoalesced: false, httpResponse: data.httpResponse,
            displayRetention: Self.displayRetention(data, request: resolved), staleness: data.staleness
        )
    }
}
