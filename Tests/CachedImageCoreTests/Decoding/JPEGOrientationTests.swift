import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

/// A JPEG's EXIF orientation, read from its first bytes: the size a view reserves before the
/// image arrives is the size it shows.
@Suite("JPEG EXIF orientation")
struct JPEGOrientationTests {
    /// `jpeg` with an `APP1 Exif` segment holding IFD0's orientation tag, in either byte order.
    private func withOrientation(_ orientation: UInt16, bigEndian: Bool, _ jpeg: Data) -> Data {
        func u16(_ value: UInt16) -> [UInt8] { bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func u32(_ value: UInt32) -> [UInt8] {
            let bytes = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            return bigEndian ? bytes : bytes.reversed()
        }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8) + u16(1)
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
        tiff += u32(0)
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1] + [UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        return Data(jpeg.prefix(2)) + Data(segment) + Data(jpeg.dropFirst(2))
    }

    @Test("orientations 5-8 swap the sides a view reserves; 1-4 and none keep them", arguments: [false, true])
    func sizeAsShown(bigEndian: Bool) {
        let jpeg = ImageFixtures.jpeg(width: 40, height: 30)
        for orientation: UInt16 in 1...8 {
            let data = withOrientation(orientation, bigEndian: bigEndian, jpeg)
            #expect(ImageInfo(data: data)?.pixelSize == PixelSize(width: 40, height: 30), "stored size")
            let reader = ImageSizeReader()
            let reported = [reader.append(data.prefix(20)), reader.append(data.dropFirst(20))].compactMap { $0 }
            let expected = orientation >= 5 ? PixelSize(width: 30, height: 40) : PixelSize(width: 40, height: 30)
            #expect(reported == [expected], "orientation \(orientation)")
        }
        #expect(!JPEGOrientation.swapsSides(jpeg))
    }

    @Test("a cut or malformed EXIF block reads as no orientation, never a crash")
    func hostile() {
        let data = withOrientation(6, bigEndian: true, ImageFixtures.jpeg(width: 40, height: 30))
        for length in 0..<60 {
            _ = JPEGOrientation.swapsSides(data.prefix(length))
        }
        var broken = data
        broken[4] = 0x00 // the segment's length
        broken[5] = 0x01
        #expect(!JPEGOrientation.swapsSides(broken))
    }
}
