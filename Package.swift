// swift-tools-version: 6.0
import PackageDescription

// Apps resolve this package alone. The library products have zero external dependencies, and
// the package exports no executable product: SwiftPM resolves a dependency's dependencies for
// every product it exports (an executable product that needs Hummingbird and ArgumentParser made
// every app resolve 26 packages). The tools (`cachedimage`, `cachedimage-bench`) are executable
// *targets*, which `swift run <name>` still runs from this directory. scripts/check-client-resolution.sh
// (run by CI) resolves a throwaway app against a clone of this repository and fails on any other package.
let package = Package(
    name: "CachedImage",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "CachedImageCore", targets: ["CachedImageCore"]),
        // What apps import: CachedAsyncImage and the Apple layer, re-exporting CachedImageCore.
        .library(name: "CachedImage", targets: ["CachedImage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // The engine: caches, HTTP freshness, pipeline, prefetching. Platform-independent.
        .target(name: "CachedImageCore", dependencies: ["CCachedImageChecksum", "CachedImageCorePrivacy"]),
        // The disk cache's checksum loop, in C: one implementation, fast in optimised and debug builds.
        .target(name: "CCachedImageChecksum"),

        // The SwiftUI drop-in (CachedAsyncImage), PlatformImage bridging and memory-pressure
        // trimming. Apple-only code is behind canImport checks; on Linux only the re-export remains.
        .target(name: "CachedImage", dependencies: ["CachedImageCore"]),

        // The privacy manifest (PrivacyInfo.xcprivacy), in the resource bundle of a target
        // CachedImageCore depends on: the only library module that calls required-reason APIs
        // (the disk cache's file-timestamp reads, stat/fstat, reason C617.1; the animation clock,
        // ProcessInfo.systemUptime, reason 35F9.1). A C target with no code: a Swift target with
        // resources gets a generated `Bundle.module` that Swift 6 rejects with the iOS 16 SDK.
        .target(name: "CachedImageCorePrivacy", resources: [.copy("PrivacyInfo.xcprivacy")]),

        // Example screens: the three AsyncImage-style initialisers, a 1,000-row List with
        // prefetching, a downsampled detail view. Not a product (apps never see it):
        // scripts/ios-build.sh compiles it for iOS with the library targets; empty on Linux.
        .target(name: "CachedImageExamples", dependencies: ["CachedImage"]),

        // Real PNG/JPEG/GIF files generated in code, for tests, the demo and benchmarks.
        // Optimised even in debug builds: `swift run cachedimage demo` generates ~30 MB of
        // images, 4x faster this way. Not a product, so clients never build it.
        .target(name: "ImageFixtures", swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),

        // What the tool targets share (the loopback server, the command line, the benchmarks):
        // one lock wrapper (CachedImageCore's own, through `package` access), one raw-file store.
        // Not a product, and the library targets never depend on it.
        .target(name: "ToolSupport", dependencies: ["CachedImageCore"]),

        // A loopback HTTP image server that counts every request and byte: integration tests,
        // the demo and the benchmarks run against it. Not a product.
        .target(
            name: "LoopbackServer",
            dependencies: [
                "ToolSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
            ]
        ),
        // The `cachedimage` command line: the demo (CachedImage against the naive approaches on a
        // loopback image feed) and tools for a real cache directory. A library so tests can run
        // the commands; not a product.
        .target(
            name: "CachedImageCLI",
            dependencies: [
                "CachedImageCore",
                "ImageFixtures",
                "LoopbackServer",
                "ToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The thin executable: `swift run cachedimage demo`.
        // Named like the command so `swift run cachedimage` finds it without an executable product.
        .executableTarget(
            name: "cachedimage",
            dependencies: ["CachedImageCLI"],
            path: "Sources/CachedImageTool"
        ),
        .testTarget(
            name: "CachedImageCLITests",
            dependencies: ["CachedImageCLI", "CachedImageCore", "ImageFixtures", "LoopbackServer"]
        ),
        // Writes to a DiskCache in a loop until killed: the crash-safety test SIGKILLs it.
        // Not a product.
        .executableTarget(
            name: "cachedimage-crash-writer",
            dependencies: ["CachedImageCore", "ImageFixtures"],
            path: "Sources/CachedImageCrashWriter"
        ),
        // `swift run -c release cachedimage-bench [--quick]`: the project against its baselines.
        // Not a product either: named like the command for `swift run`.
        .executableTarget(
            name: "cachedimage-bench",
            dependencies: ["CachedImageCore", "ImageFixtures", "LoopbackServer", "ToolSupport"],
            path: "Sources/CachedImageBench"
        ),
        // `cachedimage-diskhit-loop`: the disk hit and the relaunch against the documents
        // directory's read, as untimed loops (scripts/diskhit-guard.sh counts their instructions
        // under callgrind) or timed side by side. Kept apart from the benchmarks, whose loopback
        // server makes a release build take far longer. Not a product.
        .executableTarget(
            name: "cachedimage-diskhit-loop",
            dependencies: ["CachedImageCore", "ImageFixtures", "ToolSupport"],
            path: "Sources/CachedImageDiskHitLoop"
        ),
        // `node scripts/cache-tests/run.mjs <suite> .build/debug/cachedimage-cache-tests`: the
        // client side of the public HTTP caching test suite (not committed). Not a product.
        .executableTarget(
            name: "cachedimage-cache-tests",
            dependencies: ["CachedImageCore"],
            path: "Sources/CacheTestsRunner"
        ),
        .testTarget(
            name: "CachedImageCoreTests",
            dependencies: ["CachedImageCore", "ImageFixtures", "LoopbackServer", "cachedimage-crash-writer"]
        ),
        .testTarget(name: "CachedImageTests", dependencies: ["CachedImage"]),
    ],
    swiftLanguageModes: [.v6]
)
