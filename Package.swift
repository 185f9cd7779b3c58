// swift-tools-version: 6.0
import PackageDescription

// The library products have zero external dependencies. Hummingbird serves the loopback image
// server (LoopbackServer) only; SwiftPM does not resolve it for clients of the libraries.
let package = Package(
    name: "CachedImage",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "CachedImageCore", targets: ["CachedImageCore"]),
        // What apps import: CachedAsyncImage and the Apple layer, re-exporting CachedImageCore.
        .library(name: "CachedImage", targets: ["CachedImage"]),
        // Example SwiftUI screens (the README's copy-pasteable code). A library product only so
        // that the iOS compile check (ios-build) type-checks them with the real SDK; apps do
        // not need it.
        .library(name: "CachedImageExamples", targets: ["CachedImageExamples"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        // The engine: caches, HTTP freshness, pipeline, prefetching. Platform-independent.
        .target(name: "CachedImageCore"),

        // The SwiftUI drop-in (CachedAsyncImage), PlatformImage bridging and memory-pressure
        // trimming. Apple-only code is behind canImport checks; on Linux only the re-export remains.
        .target(name: "CachedImage", dependencies: ["CachedImageCore"]),

        // Example screens: the three AsyncImage-style initialisers, a 1,000-row List with
        // prefetching, a downsampled detail view. Compiled by ios-build; empty on Linux.
        .target(name: "CachedImageExamples", dependencies: ["CachedImage"]),

        // Real PNG/JPEG/GIF files generated in code, for tests, the demo and benchmarks.
        .target(name: "ImageFixtures"),

        // A loopback HTTP image server that counts every request and byte: integration tests,
        // the demo and the benchmarks run against it. Not a product.
        .target(
            name: "LoopbackServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "CachedImageCoreTests",
            dependencies: ["CachedImageCore", "ImageFixtures", "LoopbackServer"]
        ),
        .testTarget(name: "CachedImageTests", dependencies: ["CachedImage"]),
    ],
    swiftLanguageModes: [.v6]
)
