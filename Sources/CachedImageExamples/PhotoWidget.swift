#if canImport(WidgetKit)
import CachedImage
import SwiftUI
import WidgetKit

/// A widget's timeline entry carries the decoded image: a widget view is drawn once, at once,
/// and cannot wait for a download.
public struct PhotoEntry: TimelineEntry, Sendable {
    public let date: Date
    public let image: DecodedImage?
}

/// Loads the photo in the timeline provider: from the App Group's disk cache the app filled,
/// else from the network, decoded at the widget's size.
public struct PhotoTimelineProvider: TimelineProvider {
    let url: URL?
    let pipeline: ImagePipeline

    public init(url: URL?, pipeline: ImagePipeline = SharedCacheExamples.appGroupPipeline) {
        self.url = url
        self.pipeline = pipeline
    }

    public func placeholder(in context: Context) -> PhotoEntry {
        PhotoEntry(date: Date(), image: nil)
    }

    public func getSnapshot(in context: Context, completion: @escaping (PhotoEntry) -> Void) {
        load(in: context) { image in completion(PhotoEntry(date: Date(), image: image)) }
    }

    public func getTimeline(in context: Context, completion: @escaping (Timeline<PhotoEntry>) -> Void) {
        load(in: context) { image in
            let entry = PhotoEntry(date: Date(), image: image)
            completion(Timeline(entries: [entry], policy: .after(Date().addingTimeInterval(60 * 60))))
        }
    }

    /// `image(for:)`: memory, then disk, then the network. A failure leaves the entry without
    /// an image (the view shows its placeholder) rather than no timeline at all.
    private func load(in context: Context, completion: @escaping (DecodedImage?) -> Void) {
        // Decoded at the widget's size in pixels (3x, the largest screen scale), not the
        // photo's: an extension has a small memory budget.
        let request = ImageRequest(url: url, targetPixelSize: PixelSize(
            width: Int(context.displaySize.width * 3),
            height: Int(context.displaySize.height * 3)
        ))
        let pipeline = pipeline
        // WidgetKit's completion handlers are not Sendable in older SDKs; each is called once.
        nonisolated(unsafe) let completion = completion
        Task {
            // No `flush()` (it would block a thread of the cooperative pool): on the App Group
            // directory the pipeline runs each disk write inside an expiring activity of its
            // own, so the extension is never suspended holding the directory's lock. A write
            // still queued when it is suspended lands when it runs again (the next change, the
            // cache's timer or a read asks for a new activity), or is lost if the system
            // terminates it first: never wrong bytes, only a later download.
            let image = try? await pipeline.image(for: request).image
            completion(image)
        }
    }
}

/// The widget's view: synchronous, from the entry alone.
@MainActor
public struct PhotoWidgetView: View {
    let entry: PhotoEntry

    /// Nonisolated: WidgetKit builds the view from a nonisolated closure in older SDKs.
    public nonisolated init(entry: PhotoEntry) {
        self.entry = entry
    }

    public var body: some View {
        if let image = entry.image?.swiftUIImage() {
            image.resizable().scaledToFill()
        } else {
            Color.gray.opacity(0.2)
        }
    }
}

/// The widget: add it to your widget extension's `WidgetBundle`.
public struct PhotoWidget: Widget {
    public init() {}

    public var body: some WidgetConfiguration {
        StaticConfiguration(
            kind: "PhotoWidget",
            provider: PhotoTimelineProvider(url: URL(string: "https://picsum.photos/id/30/1200/1200"))
        ) { entry in
            PhotoWidgetView(entry: entry)
        }
        .configurationDisplayName("Photo")
        .supportedFamilies([.systemSmall, .systemMedium])
    }
}
#endif
