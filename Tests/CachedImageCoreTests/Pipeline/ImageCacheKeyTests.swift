import Testing
@testable import CachedImageCore

@Suite("ImageCacheKey")
struct ImageCacheKeyTests {
    /// Every combination of fields, the content mode set directly too (a public `var`, so a key
    /// can hold a mode without a size).
    static let keys: [ImageCacheKey] = {
        var keys: [ImageCacheKey] = []
        for cacheKey in ["https://cdn.example.com/a.jpg", "https://cdn.example.com/b.jpg"] {
            for targetSize in [nil, PixelSize(width: 0, height: 0), PixelSize(width: 1, height: 2), PixelSize(width: 2, height: 1)] {
                for contentMode in [nil, ImageContentMode.aspectFit, .aspectFill] {
                    for processors in [[], ["a"], ["a", "b"], ["b", "a"]] {
                        var key = ImageCacheKey(cacheKey: cacheKey, targetPixelSize: targetSize, processorIdentifiers: processors)
                        key.contentMode = contentMode
                        keys.append(key)
                    }
                }
            }
        }
        return keys
    }()

    @Test("keys are equal exactly when every field is, and equal keys hash alike")
    func equalityIsFieldwise() {
        for lhs in Self.keys {
            for rhs in Self.keys {
                let fieldwise = lhs.cacheKey == rhs.cacheKey && lhs.targetPixelSize == rhs.targetPixelSize
                    && lhs.contentMode == rhs.contentMode && lhs.processorIdentifiers == rhs.processorIdentifiers
                #expect((lhs == rhs) == fieldwise, "\(lhs) vs \(rhs)")
                if fieldwise {
                    #expect(lhs.hashValue == rhs.hashValue)
                }
            }
        }
        #expect(Set(Self.keys).count == Self.keys.count)
    }

    @Test("a size of zero is not the absence of a size, and the mode counts only with a size")
    func sizeAndModeAreDistinct() {
        let url = "https://cdn.example.com/a.jpg"
        #expect(ImageCacheKey(cacheKey: url) != ImageCacheKey(cacheKey: url, targetPixelSize: PixelSize(width: 0, height: 0)))
        #expect(ImageCacheKey(cacheKey: url, contentMode: .aspectFit) == ImageCacheKey(cacheKey: url, contentMode: .aspectFill))
        let size = PixelSize(width: 300, height: 200)
        #expect(ImageCacheKey(cacheKey: url, targetPixelSize: size, contentMode: .aspectFit)
            != ImageCacheKey(cacheKey: url, targetPixelSize: size, contentMode: .aspectFill))
    }
}
