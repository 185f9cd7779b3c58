import Foundation

/// Timestamps of the stages one request passes through, for the benchmark's disk-hit breakdown
/// (`cachedimage-bench --only diskhit`). Not for apps: set it through
/// `Configuration.stageTrace` and run one request at a time; each stage keeps the time it was
/// last reached.
package final class StageTrace: @unchecked Sendable {
    /// A point on a request's way, in the order a request reaches them.
    package enum Stage: Int, CaseIterable, Sendable {
        case started, memoryMissed, jobJoined, imageJobStarted, dataJobStarted, diskRead, verified,
             dataDelivered, decoded, memoryStored, completed
    }

    private var times: [UInt64]

    package init() {
        times = Array(repeating: 0, count: Stage.allCases.count)
    }

    /// Forgets every timestamp.
    package func reset() {
        for index in times.indices { times[index] = 0 }
    }

    /// Nanoseconds (monotonic) when `stage` was last reached, or `nil`.
    package func time(of stage: Stage) -> UInt64? {
        let time = times[stage.rawValue]
        return time == 0 ? nil : time
    }

    @inline(__always)
    func mark(_ stage: Stage) {
        times[stage.rawValue] = DispatchTime.now().uptimeNanoseconds
    }
}
