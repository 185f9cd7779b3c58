#if canImport(SwiftUI)
import CachedImage
import SwiftUI

/// An image on disk is never a placeholder: after a relaunch or offline the view shows what it
/// has, whatever its cache headers, and marks it while the server has not confirmed it
/// (`CachingAndHTTPFreshness.md`).
@MainActor
public struct StaleImageExamples: View {
    let url: URL?

    public init(url: URL?) {
        self.url = url
    }

    public var body: some View {
        CachedAsyncImage(request: ImageRequest(url: url)) { (phase: CachedImagePhase) in
            if let image = phase.image {
                image.resizable()
                    .overlay(alignment: .bottomTrailing) {
                        // Offline (or the server failed): the stored image stays, with the error.
                        if phase.isStale && phase.error != nil { Image(systemName: "wifi.slash") }
                    }
            } else {
                Color.gray
            }
        }
    }
}
#endif
