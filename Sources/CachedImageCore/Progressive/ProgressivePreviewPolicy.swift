import Foundation

/// When the pipeline decodes a preview of a progressive JPEG that is still downloading (requests
/// with ``ImageRequest/Options/showProgressivePreviews``, and those without an option once the
/// link is measured slow).
///
/// A preview is decoded when a new scan has completed, at most ``maximumPreviewCount`` times
/// per image, no sooner than ``minimumInterval`` after the previous one, and never once the
/// whole image has arrived (the final image follows at once). Set it with
/// ``ImagePipeline/Configuration/progressivePreviewPolicy``.
package struct ProgressivePreviewPolicy: Sendable, Hashable {
    /// Previews decoded per image at most; `0` turns previews off for the whole pipeline.
    package var maximumPreviewCount: Int
    /// The least time between two previews of one image, in seconds (the pipeline's clock).
    package var minimumInterval: TimeInterval

    /// - Parameters:
    ///   - maximumPreviewCount: Previews per image at most (3 by default: a first recognisable
    ///     scan, then two refinements).
    ///   - minimumInterval: Seconds between two previews at least (0.2 by default).
    package init(maximumPreviewCount: Int = 3, minimumInterval: TimeInterval = 0.2) {
        self.maximumPreviewCount = max(0, maximumPreviewCount)
        self.minimumInterval = max(0, minimumInterval)
    }

    /// The decisions for one image.
    struct Schedule: Sendable {
        let policy: ProgressivePreviewPolicy
        /// Previews delivered so far.
        private(set) var deliveredCount = 0
        /// The scans the last preview showed.
        private(set) var lastScanCount = 0
        private var lastPreviewDate: Date?

        init(_ policy: ProgressivePreviewPolicy) {
            self.policy = policy
        }

        /// Whether to decode a preview now that `completedScans` scans have arrived at `now`.
        /// `isFinal`: the whole image has arrived (no preview then).
        func shouldPreview(completedScans: Int, isFinal: Bool, now: Date) -> Bool {
            guard !isFinal, completedScans > lastScanCount, deliveredCount < policy.maximumPreviewCount else { return false }
            if let lastPreviewDate, now.timeIntervalSince(lastPreviewDate) < policy.minimumInterval { return false }
            return true
        }

        /// Records a preview of `scans` scans decoded at `now`.
        mutating func didPreview(scans: Int, at now: Date) {
            deliveredCount += 1
            lastScanCount = scans
            lastPreviewDate = now
        }
    }
}
