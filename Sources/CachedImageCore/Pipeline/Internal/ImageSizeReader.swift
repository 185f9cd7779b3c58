import Foundation

/// Reads an image's size, as it shows, from the first bytes of a download's body as they
/// arrive: what lets a view reserve its space before the last byte (``JobUpdate/imageSize(_:)``).
///
/// One reader per data job sees the body from its first byte, whichever image jobs join later.
/// It keeps at most ``maximumHeaderBytes`` (formats put their size in the first few hundred
/// bytes; a JPEG's frame header may come after a large EXIF block) and stops looking past them
/// or once found. The first chunk is parsed at once, then again only once the bytes kept have
/// doubled, so a body that arrives in small chunks is not parsed once per chunk.
final class ImageSizeReader: Sendable {
    /// The most body bytes kept while looking for the size.
    static let maximumHeaderBytes = 256 * 1024
    private struct State {
        var bytes = Data()
        /// The bytes kept before the next parse.
        var nextAttempt = 0
        var found: PixelSize?
        var gaveUp = false
    }

    private let state = Locked(State())

    /// The size found so far.
    var size: PixelSize? { state.withLock { $0.found } }

    /// The next chunk of the body; returns the size when this chunk made it known.
    func append(_ chunk: Data) -> PixelSize? {
        state.withLock { state -> PixelSize? in
            guard state.found == nil, !state.gaveUp, !chunk.isEmpty else { return nil }
            state.bytes.append(chunk.prefix(Self.maximumHeaderBytes - state.bytes.count))
            let isFull = state.bytes.count >= Self.maximumHeaderBytes
            guard state.bytes.count >= state.nextAttempt || isFull else { return nil }
            state.nextAttempt = state.bytes.count * 2
            if let size = Self.shownSize(of: state.bytes) {
                state.found = size
                state.bytes = Data()
                return size
            }
            if isFull {
                state.gaveUp = true
                state.bytes = Data()
            }
            return nil
        }
    }

    /// The body starts over (``JobUpdate/restarted``): the bytes so far are void. A size already
    /// found stays: it is the same image's.
    func restart() {
        state.withLock { state in
            guard state.found == nil else { return }
            state = State()
        }
    }

    /// The size `header` gives, as the image shows (a JPEG's EXIF orientation 5 to 8 swaps the
    /// stored sides), or `nil` while it gives none.
    static func shownSize(of header: Data) -> PixelSize? {
        guard let info = ImageInfo(data: header), let size = info.pixelSize, size.width > 0, size.height > 0 else { return nil }
        if info.format == .jpeg, JPEGOrientation.swapsSides(header) {
            return PixelSize(width: size.height, height: size.width)
        }
        return size
    }
}
