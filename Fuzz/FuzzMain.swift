// The libFuzzer entry points every fuzz target shares. Each target's file (Targets/) defines
// `FuzzTarget.run(_:)`, called on every input, and `FuzzTarget.seeds()`, the starting corpus built
// from the project's own fixtures. scripts/fuzz.sh compiles this file, one target's file and the
// real CachedImageCore sources into one binary with -sanitize=fuzzer,address.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzTarget.run(data)
    return 0
}

/// With `CACHEDIMAGE_FUZZ_WRITE_SEEDS=DIR` in the environment, writes the target's seeds into DIR
/// (one file each) and exits before any fuzzing: `scripts/fuzz.sh` builds the corpus this way.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard let directory = ProcessInfo.processInfo.environment["CACHEDIMAGE_FUZZ_WRITE_SEEDS"] else { return 0 }
    let folder = URL(fileURLWithPath: directory, isDirectory: true)
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, data) in FuzzTarget.seeds() {
            try data.write(to: folder.appendingPathComponent("seed-" + name))
        }
    } catch {
        FileHandle.standardError.write(Data("could not write seeds to \(directory): \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
