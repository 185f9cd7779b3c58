import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Creates a `URLCache` persisting in `directory` (corelibs Foundation only has the `diskPath:`
/// initializer, Apple platforms deprecate it in favour of `directory:`).
enum URLCacheFactory {
    static func make(memoryCapacity: Int, diskCapacity: Int, directory: URL) -> URLCache {
        #if canImport(FoundationNetworking)
        URLCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, diskPath: directory.path)
        #else
        URLCache(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory)
        #endif
    }
}
