import Foundation

/// Reads an image's size from the first bytes of its body as they arrive, and reports it once:
/// what lets a view reserve its space before the last byte. It keeps at most
/// ``maximumHeaderBytes`` (formats put their size in the first few hundred bytes; a JPEG's
/// frame header may come after its EXIF block) and stops looking past them or once found.
final class ImageSizeReader: Sendable {
    /// The most body bytes kept while looking for the size.
    static let maximumHeaderBytes = 256 * 1024

    private let report: @Sendable (PixelSize) -> Void
    private let state = Locked<(bytes: Data, isDone: Bool)>((Data(), false))

    init(report: @escaping @Sendable (PixelSize) -> Void) {
        self.report = report
    }

    /// A data job's update: a chunk of the body, or a restart of it (the bytes so far are void).
    func receive(_ update: JobUpdate) {
        switch update {
        case .bytes(let chunk):
            let found: PixelSize? = state.withLock { state in
                guard !state.isDone else { return nil }
                state.bytes.append(chunk.prefix(Self.maximumHeaderBytes - state.bytes.count))
                if let size = ImageInfo(data: state.bytes)?.pixelSize, size.width > 0, size.height > 0 {
                    state = (Data(), true)
                    return size
                }
                if state.bytes.count >= Self.maximumHeaderBytes { state = (Data(), true) }
                return nil
            }
            if let found { report(found) }
        case .restarted:
            state.withLock { if !$0.isDone { $0.bytes = Data() } }
        case .preview, .stale, .imageSize:
            break
        }
    }
}
