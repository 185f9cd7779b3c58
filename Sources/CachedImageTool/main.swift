import CachedImageCLI
import Foundation

// The whole command line lives in CachedImageCLI, so tests can run it too.
if #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) {
    await CachedImageCommand.runFromCommandLine()
} else {
    FileHandle.standardError.write(Data("Error: cachedimage needs macOS 14 or later\n".utf8))
    exit(1)
}
