// swift-tools-version: 6.0
import PackageDescription

// The library products have zero external dependencies. Hummingbird serves the loopback image
// server (LoopbackServer) only; SwiftPM does not resolve it for clients of the libraries.
let package = Package(
    name: "CachedImage",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "CachedImageCore", targets: ["CachedImageCore"]),
        .executable(name: "cachedimage-bench", targets: ["CachedImageBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        // The engine: caches, HTTP freshness, pipeline, prefetching. Platform-independent.
        .target(name: "CachedImageCore"),

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
        // `swift run -c release cachedimage-bench [--quick]`: the project against its baselines.
        .executableTarget(
            name: "CachedImageBench",
            dependencies: ["CachedImageCore", "ImageFixtures", "LoopbackServer"]
        ),
        .testTarget(
            name: "CachedImageCoreTests",
            dependencies: ["CachedImageCore", "ImageFixtures", "LoopbackServer"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
