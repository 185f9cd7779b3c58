import Foundation

/// The stored copy of an image whose headers ask for a revalidation first: decoded for the views
/// subscribed to its job and handed to them (``JobUpdate/stale(_:)``, ``ImageResponse/isStale``)
/// while the server is asked, or when nothing may be asked (offline, cache only).
extension ImageJobs {
    /// For a job a view subscribed to (a subscriber that takes updates), the stored copy
    /// `lookup` found stale, decoded and handed to the subscribers that take updates (those that
    /// join later too, as they join) as ``JobUpdate/stale(_:)`` while the network is asked; `nil`
    /// when there is none or it does not decode. Jobs no view wants (``ImagePipeline/image(for:)``,
    /// a prefetch) decode nothing more.
    func showStale(
        _ lookup: DataFetcher.Lookup?,
        request: ImageRequest,
        url: URL,
        context: TaskCoalescer<ImageTaskKey, DecodedResult>.JobContext
    ) async -> (image: DecodedImage, data: ImageDataResponse)? {
        guard case .stale(_, let stored)? = lookup, context.takesUpdates,
              let image = try? await decodedImage(stored, request: request, url: url)
        else {
            return nil
        }
        context.report(.stale(DecodedResult(
            image: image, source: .disk, bytesDownloaded: 0, isCoalesced: false, httpResponse: stored.httpResponse,
            displayRetention: Self.displayRetention(stored, request: request), staleness: Staleness()
        )))
        return (image, stored)
    }

    /// The disk's answer for `request` read as if it could ask the network, for display only:
    /// what a view shows of an offline or cache-only request (Low Data Mode's). Never asks it.
    func displayLookUp(_ request: ImageRequest, url: URL) -> DataFetcher.Lookup? {
        var display = request
        display.options.remove(.returnCacheDataDontLoad)
        display.cacheDirectives.onlyIfCached = false
        return try? fetcher.lookUp(display, url: url)
    }

    /// The disk's stale copy for `request` (``displayLookUp(_:url:)``), for a request that may
    /// not ask the network: what a view shows of it.
    func storedStaleCopy(_ request: ImageRequest, url: URL) -> DataFetcher.Lookup? {
        switch displayLookUp(request, url: url) {
        case .stale(let entry, let data)?, .staleWhileRevalidate(let entry, let data)?:
            return .stale(entry, data)
        case .hit?, .miss?, nil:
            return nil
        }
    }
}
