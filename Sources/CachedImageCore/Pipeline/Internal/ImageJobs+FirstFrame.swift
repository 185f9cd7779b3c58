#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// The first frame's synchronous path (``ImagePipeline/firstFrameImage(for:)``): memory, then a
/// small fresh disk entry read and decoded in the caller's thread, within the frame's budget.
extension ImageJobs {
    /// The image for a view's first frame, where it came from and its response, or `nil` (load
    /// asynchronously).
    func firstFrameImage(for request: ImageRequest) -> DecodedResult? {
        if let hit = memoryImage(for: resolver.keyed(request), counting: .hitsOnly) {
            return memoryResult(hit)
        }
        guard let policy = configurationSynchronousDiskRead, let budget = firstFrameBudget,
              let (resolved, url) = try? resolver.resolve(request), !url.isFileURL,
              resolved.options.isDisjoint(with: [.skipDiskCache, .reloadIgnoringCachedData, .reloadRevalidatingCachedData]),
              let started = budget.begin()
        else {
            return nil
        }
        defer { budget.end(started) }
        if let derived = derivedImage(for: resolved) {
            return derived
        }
        guard resolved.processorChain.isEmpty,
              let size = entryFileSize(forKey: resolved.cacheKey), size <= policy.maximumEntryBytes
        else {
            return nil
        }
        let data: ImageDataResponse
        switch try? fetcher.lookUp(resolved, url: url) {
        case .hit(let hit)?:
            data = hit
        case .staleWhileRevalidate(let entry, let stale)?:
            revalidateInBackground(resolved, url: url, entry: entry, data: stale)
            data = stale
        default:
            return nil
        }
        let decoder = decoderRegistry.decoder(for: data.info, fallback: self.decoder)
        guard let header = data.info.pixelSize,
              let target = try? pixelLimit.limited(resolved.decodingTarget(maximumSize: maximumDecodedPixelSize), for: data.info, decoder: decoder, url: url),
              DecodedImage.bitmapCost(of: target.decodedSize(of: header)) <= policy.maximumDecodedBytes,
              let image = try? decoder.decode(data.data, info: data.info, target: target),
              (try? pixelLimit.checkDecoded(image, info: data.info, url: url)) != nil
        else {
            return nil
        }
        keepInMemory(image, for: resolved, metadata: data.metadata, lifetime: data.memoryLifetime)
        return DecodedResult(image: image, source: .disk, bytesDownloaded: 0, isCoalesced: false, httpResponse: data.httpResponse)
    }

    /// The size of the entry file for `key`, from one `stat` (no read); `nil` when there is none
    /// (or its write is still pending).
    private func entryFileSize(forKey key: String) -> Int? {
        guard let diskCache = resolver.diskCache else { return nil }
        var info = stat()
        guard stat(diskCache.path(for: diskCache.nameForKey(key)), &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
