import Foundation

/// Follows a JPEG's markers as its bytes arrive and tells when a progressive scan is complete.
///
/// A progressive JPEG (`SOF2`) carries its image in several scans (`SOS` ... entropy-coded
/// data), each refining the last; a scan is complete once the marker after its data (the next
/// table, the next `SOS`, or `EOI`) has arrived. The bytes up to that marker decode to a
/// preview. A baseline JPEG (any other frame type) and any other format produce no scans to
/// preview: ``isProgressive`` becomes `false` and the detector stops reading.
///
/// Call ``advance(_:)`` with the whole prefix received so far each time it grows; the
/// detector resumes where it stopped, so every byte is read once.
struct ProgressiveScanDetector: Sendable {
    /// `nil` until the frame header (`SOFn`) has arrived; then whether the JPEG is progressive.
    /// `false` as well for bytes that are not a JPEG, or not one this detector can follow.
    private(set) var isProgressive: Bool?
    /// Progressive scans complete so far.
    private(set) var completedScans = 0
    /// The length of the prefix that holds every complete scan: the offset of the marker that
    /// followed the last one.
    private(set) var completePrefixLength = 0
    /// Whether `EOI` (the end of the image) has arrived.
    private(set) var isFinished = false

    private enum Phase: Sendable {
        case start
        case marker
        case entropyCoded
        case stopped
    }

    private var phase = Phase.start
    private var position = 0

    /// Whether nothing more can change: the image ended, or there is nothing to preview.
    var isDone: Bool { phase == .stopped }

    /// Reads what `data` (the prefix received so far; every earlier call's prefix plus new
    /// bytes) adds. Returns `true` when a new scan completed.
    @discardableResult
    mutating func advance(_ data: Data) -> Bool {
        let scansBefore = completedScans
        data.withUnsafeBytes { buffer in
            let bytes = buffer.bindMemory(to: UInt8.self)
            while step(bytes) {}
        }
        return completedScans > scansBefore
    }

    /// One step; `false` when more bytes are needed or reading has stopped.
    private mutating func step(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        switch phase {
        case .stopped:
            return false
        case .start:
            guard bytes.count >= 2 else { return false }
            guard bytes[0] == 0xFF, bytes[1] == 0xD8 else { return stop(progressive: false) }
            position = 2
            phase = .marker
            return true
        case .marker:
            return readMarker(bytes)
        case .entropyCoded:
            return readEntropyCoded(bytes)
        }
    }

    private mutating func readMarker(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard position + 1 < bytes.count else { return false }
        guard bytes[position] == 0xFF else { return stop(progressive: false) }
        let marker = bytes[position + 1]
        switch marker {
        case 0xFF:
            position += 1 // fill byte
            return true
        case 0xD9:
            isFinished = true
            return stop(progressive: isProgressive ?? false)
        case 0x01, 0xD0...0xD8:
            position += 2 // no length
            return true
        default:
            break
        }
        guard position + 3 < bytes.count else { return false }
        let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
        guard length >= 2 else { return stop(progressive: false) }
        let end = position + 2 + length
        switch marker {
        case 0xC0, 0xC1, 0xC3, 0xC5, 0xC7, 0xC9, 0xCB, 0xCD, 0xCF:
            return stop(progressive: false) // baseline, extended, lossless, hierarchical, arithmetic
        case 0xC2, 0xC6, 0xCA, 0xCE:
            isProgressive = true
        case 0xDA:
            // A scan before any frame header is no JPEG this detector can follow.
            guard isProgressive == true else { return stop(progressive: false) }
            guard end <= bytes.count else { return false }
            position = end
            phase = .entropyCoded
            return true
        default:
            break
        }
        guard end <= bytes.count else { return false }
        position = end
        return true
    }

    /// Skips entropy-coded bytes up to the next marker that is not a stuffed `FF 00` or a
    /// restart marker: the scan is complete there.
    private mutating func readEntropyCoded(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = position
        while index < bytes.count {
            guard bytes[index] == 0xFF else {
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { break }
            let next = bytes[index + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                index += 2
            } else if next == 0xFF {
                index += 1
            } else {
                completedScans += 1
                completePrefixLength = index
                position = index
                phase = .marker
                return true
            }
        }
        position = index
        return false
    }

    private mutating func stop(progressive: Bool) -> Bool {
        if isProgressive == nil || !progressive { isProgressive = progressive }
        phase = .stopped
        return false
    }
}
