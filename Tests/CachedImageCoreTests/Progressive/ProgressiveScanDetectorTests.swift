import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("Progressive JPEG scan detection")
struct ProgressiveScanDetectorTests {
    /// Feeds `data` in pieces of `chunkSize` bytes; returns the complete prefix after each new scan.
    private func scanEnds(_ data: Data, chunkSize: Int) -> (ends: [Int], detector: ProgressiveScanDetector) {
        var detector = ProgressiveScanDetector()
        var ends: [Int] = []
        var received = 0
        while received < data.count {
            received = min(data.count, received + chunkSize)
            if detector.advance(data.prefix(received)) { ends.append(detector.completePrefixLength) }
        }
        return (ends, detector)
    }

    @Test("every scan of a real progressive JPEG is found where it ends, however the bytes arrive", arguments: [1, 7, 100, 1_000, 4_096, 1 << 20])
    func progressiveScans(chunkSize: Int) throws {
        let data = try ProgressiveFixtures.progressive()
        var detector = ProgressiveScanDetector()
        var ends: [Int] = []
        var received = 0
        while received < data.count {
            received = min(data.count, received + chunkSize)
            let before = detector.completedScans
            detector.advance(data.prefix(received))
            if detector.completedScans > before { ends.append(detector.completePrefixLength) }
            // A scan is complete only once the marker after it has arrived.
            #expect(detector.completePrefixLength + 2 <= received || detector.completedScans == 0)
        }
        #expect(detector.isProgressive == true)
        #expect(detector.isFinished)
        #expect(detector.completedScans == ProgressiveFixtures.progressiveScanEnds.count)
        // With small chunks each scan is reported on its own; with large ones several at once.
        #expect(Set(ends).isSubset(of: Set(ProgressiveFixtures.progressiveScanEnds)))
        #expect(ends.last == ProgressiveFixtures.progressiveScanEnds.last)
        if chunkSize <= 100 { #expect(ends == ProgressiveFixtures.progressiveScanEnds) }
    }

    @Test("the bytes up to a scan's end are a JPEG the header reader accepts")
    func prefixesAreImages() throws {
        let data = try ProgressiveFixtures.progressive()
        for end in ProgressiveFixtures.progressiveScanEnds.dropLast() {
            // The marker after the scan starts right there.
            #expect(data[end] == 0xFF && data[end + 1] != 0x00)
            var prefix = data.prefix(end)
            prefix.append(contentsOf: [0xFF, 0xD9])
            let info = try #require(ImageInfo(data: prefix))
            #expect(info.format == .jpeg && info.pixelSize == PixelSize(width: 480, height: 320))
        }
    }

    @Test("a baseline JPEG has nothing to preview, whether real or written by the fixtures")
    func baseline() throws {
        for data in [try ProgressiveFixtures.baseline(), ImageFixtures.jpeg(width: 64, height: 48, seed: 3)] {
            let (ends, detector) = scanEnds(data, chunkSize: 64)
            #expect(ends.isEmpty)
            #expect(detector.isProgressive == false)
            #expect(detector.isDone)
        }
    }

    @Test("other formats and garbage have nothing to preview")
    func otherFormats() {
        for data in [ImageFixtures.png(width: 8, height: 8, seed: 1), Data("GIF89a".utf8), Data([0xFF, 0xD8, 0x00, 0x00, 0x00])] {
            let (ends, detector) = scanEnds(data, chunkSize: 3)
            #expect(ends.isEmpty)
            #expect(detector.isProgressive == false)
        }
    }

    @Test("a download cut short reports the scans that arrived whole, and no end")
    func truncated() throws {
        let data = try ProgressiveFixtures.progressive().prefix(6_000)
        let (ends, detector) = scanEnds(data, chunkSize: 512)
        #expect(detector.completedScans == 5)
        #expect(ends.last == 5998)
        #expect(!detector.isFinished)
    }
}
