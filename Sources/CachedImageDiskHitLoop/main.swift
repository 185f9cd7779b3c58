// cachedimage-diskhit-loop: the disk hit and the relaunch against the documents directory's bare
// read, over one prepared directory (see DiskHitLoop.swift). Not a product; its own small target
// so that scripts/diskhit-guard.sh builds it in release without the benchmarks' server.
//
// Usage:
//   cachedimage-diskhit-loop prepare DIR            stores the entries and the documents files
//   cachedimage-diskhit-loop loop DIR OPERATION N   N operations after a warm-up pass, untimed
//                                                   (hit, task, relaunch, firstframe, screen,
//                                                   documents, documentsthumb, documentsscreen;
//                                                   create: a new pipeline only), for callgrind
//   cachedimage-diskhit-loop ratios DIR [ROUNDS]    every operation timed, interleaved with its
//                                                   baseline, p50s and ratios side by side
//
// The main thread waits on a semaphore for a detached task instead of running top-level async
// code: valgrind 3.19 crashes when an async main's process starts worker threads.
import Dispatch
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: cachedimage-diskhit-loop prepare DIR
               cachedimage-diskhit-loop loop DIR \(DiskHitLoop.operations.joined(separator: "|")) COUNT
               cachedimage-diskhit-loop ratios DIR [ROUNDS]

        """.utf8))
    exit(2)
}
guard arguments.count >= 2 else { usage() }
let loop = DiskHitLoop(directory: URL(fileURLWithPath: arguments[1]))
let done = DispatchSemaphore(value: 0)
Task.detached {
    do {
        switch arguments[0] {
        case "prepare":
            print("prepared", try loop.prepare())
        case "loop":
            guard arguments.count == 4, DiskHitLoop.operations.contains(arguments[2]), let count = Int(arguments[3]) else { usage() }
            let checksum = try await loop.loop(arguments[2], count: count)
            print("\(arguments[2]): \(count) operations after a warm-up pass (\(checksum))")
        case "ratios":
            let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 9 : 9
            try await DiskHitRatios(loop: loop, rounds: rounds).run()
        default:
            usage()
        }
    } catch {
        FileHandle.standardError.write(Data("cachedimage-diskhit-loop: \(error)\n".utf8))
        exit(1)
    }
    done.signal()
}
done.wait()
