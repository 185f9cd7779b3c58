import ArgumentParser
import Foundation

/// `--cache DIR`, shared by the tools.
struct CacheOption: ParsableArguments {
    @Option(
        name: .customLong("cache"),
        help: ArgumentHelp(
            "The cache directory.",
            discussion: "Default: the pipeline's default, ~/.cache/CachedImage on Linux and Library/Caches/CachedImage on Apple platforms.",
            valueName: "dir"
        ),
        completion: .directory
    )
    var path: String?

    func directory() throws -> URL {
        try CacheLocation.resolve(path)
    }
}
