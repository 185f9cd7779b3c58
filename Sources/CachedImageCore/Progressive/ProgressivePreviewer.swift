import Foundation

/// The previews of one image job: gathers the bytes as they arrive, follows the scans
/// (``ProgressiveScanDetector``), asks whether previews are wanted (``Wanted``) and the schedule
/// whether one is due (``ProgressivePreviewPolicy/Schedule``), decodes one preview at a time,
/// and delivers it, never after ``finish()`` (called before the final image is delivered).
final class ProgressivePreviewer: Sendable {
    private struct State {
        var buffer = Data()
        var detector = ProgressiveScanDetector()
        var schedule: ProgressivePreviewPolicy.Schedule
        var decoding: Task<Void, Never>?
        var isDecoding = false
        var isFinished = false
    }

    /// Decodes a prefix that ends after a complete scan, before the marker that follows it (the
    /// decode's own errors are dropped: a preview that fails is no preview).
    typealias Decode = @Sendable (_ prefix: Data) async throws -> DecodedImage
    typealias Deliver = @Sendable (DecodedImage) -> Void
    /// Whether previews are wanted now: `true` decode them; `false` never (the bytes are let
    /// go); `nil` not yet known (the bytes are kept, nothing is decoded).
    typealias Wanted = @Sendable () -> Bool?

    private let state: Locked<State>
    private let clock: any CacheClock
    private let wanted: Wanted
    private let decode: Decode
    private let deliver: Deliver

    init(
        policy: ProgressivePreviewPolicy, wanted: @escaping Wanted = { true }, clock: any CacheClock,
        decode: @escaping Decode, deliver: @escaping Deliver
    ) {
        self.state = Locked(State(schedule: .init(policy)))
        self.wanted = wanted
        self.clock = clock
        self.decode = decode
        self.deliver = deliver
    }

    /// The most bytes kept while it is not known whether previews are wanted (``Wanted`` says
    /// `nil`): a photo's first scans; beyond them, waiting would keep a second copy of a large body.
    static let undecidedBufferLimit = 256 * 1024

    /// Previews decoded so far (delivered, or dropped because the image was finished first).
    var previewCount: Int { state.withLock { $0.schedule.deliveredCount } }

    /// Takes the next chunk of the body; starts a preview decode when one is due.
    func receive(_ chunk: Data) {
        let now = clock.now
        let wanted = wanted()
        let prefix: Data? = state.withLock { state in
            guard !state.isFinished, !state.detector.isDone else { return nil }
            if wanted == false || (wanted == nil && state.buffer.count + chunk.count > Self.undecidedBufferLimit) {
                // Not on this link (or undecided for too long): keep no copy of the body.
                state.isFinished = true
                state.buffer = Data()
                return nil
            }
            state.buffer.append(chunk)
            state.detector.advance(state.buffer)
            if state.detector.isDone, state.detector.isProgressive != true {
                state.buffer = Data() // nothing to preview: keep no copy of the body
                return nil
            }
            let scans = state.detector.completedScans
            guard wanted == true, !state.isDecoding,
                  state.schedule.shouldPreview(completedScans: scans, isFinal: state.detector.isFinished, now: now) else { return nil }
            state.schedule.didPreview(scans: scans, at: now)
            state.isDecoding = true
            return state.buffer.prefix(state.detector.completePrefixLength)
        }
        guard let prefix else { return }
        let task = Task { [self] in
            let image = try? await decode(prefix)
            state.withLock { state in
                state.isDecoding = false
                // Delivered under the lock, so that `finish()` (and the final image after it)
                // always comes after the last preview.
                if let image, !state.isFinished, !Task.isCancelled { deliver(image) }
            }
        }
        state.withLock { $0.decoding = task }
    }

    /// What a data subscription hands this previewer: the body's chunks.
    var bodyChunks: @Sendable (JobUpdate) -> Void {
        { [self] update in
            switch update {
            case .bytes(let chunk): receive(chunk)
            case .restarted: restart()
            case .preview, .stale, .imageSize: break
            }
        }
    }

    /// The body starts over (a download that gave its slot back): the bytes so far are dropped.
    private func restart() {
        state.withLock { state in
            state.buffer = Data()
            state.detector = ProgressiveScanDetector()
        }
    }

    /// No preview is delivered after this returns: call it before delivering the final image
    /// (or failing). Cancels a preview decode in flight and lets go of the bytes.
    func finish() {
        let decoding = state.withLock { state -> Task<Void, Never>? in
            state.isFinished = true
            state.buffer = Data()
            defer { state.decoding = nil }
            return state.decoding
        }
        decoding?.cancel()
    }
}
