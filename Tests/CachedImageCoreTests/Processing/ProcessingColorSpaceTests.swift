import Testing
@testable import CachedImageCore

@Suite("Processing keeps the source's colour space")
struct ProcessingColorSpaceTests {
    @Test("Display P3 and sRGB sources keep their space; a wide gamut that cannot be drawn into becomes Display P3; grey, CMYK, other and unknown render in sRGB")
    func decisions() {
        let p3 = ProcessingColorSpace.SourceSpace(model: .rgb, isWideGamut: true, supportsOutput: true)
        let sRGB = ProcessingColorSpace.SourceSpace(model: .rgb, isWideGamut: false, supportsOutput: true)
        let wideInputOnly = ProcessingColorSpace.SourceSpace(model: .rgb, isWideGamut: true, supportsOutput: false)
        let narrowInputOnly = ProcessingColorSpace.SourceSpace(model: .rgb, isWideGamut: false, supportsOutput: false)
        #expect(ProcessingColorSpace.canvas(for: p3) == .source)
        #expect(ProcessingColorSpace.canvas(for: sRGB) == .source)
        #expect(ProcessingColorSpace.canvas(for: wideInputOnly) == .displayP3)
        #expect(ProcessingColorSpace.canvas(for: narrowInputOnly) == .sRGB)
        #expect(ProcessingColorSpace.canvas(for: .init(model: .monochrome, isWideGamut: false, supportsOutput: true)) == .sRGB)
        #expect(ProcessingColorSpace.canvas(for: .init(model: .cmyk, isWideGamut: true, supportsOutput: true)) == .sRGB)
        #expect(ProcessingColorSpace.canvas(for: .init(model: .other, isWideGamut: false, supportsOutput: false)) == .sRGB)
        #expect(ProcessingColorSpace.canvas(for: nil) == .sRGB)
    }
}
