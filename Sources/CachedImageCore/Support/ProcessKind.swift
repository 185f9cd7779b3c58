import Foundation

/// What kind of process the pipeline runs in, read from the main bundle: an app, or an app
/// extension (a widget, a share, notification, keyboard or iMessage extension), whose memory
/// limit is a fraction of an app's (tens of megabytes) and which is never told when it is
/// suspended. The pipeline's memory defaults follow
/// (`ImagePipeline.Configuration.defaults(for:physicalMemory:screen:hasScreen:screenlessCap:)`),
/// and so does its background coverage (`BackgroundCoverage`).
package enum ProcessKind: Sendable, Equatable {
    /// An app: its own bundle.
    case app
    /// An app extension: a bundle ending in `.appex`.
    case appExtension

    /// The kind of a process whose main bundle is at `url`.
    package init(mainBundleURL url: URL) {
        self = url.pathExtension == "appex" ? .appExtension : .app
    }

    /// This process's kind, read once.
    package static let current = ProcessKind(mainBundleURL: Bundle.main.bundleURL)
}
