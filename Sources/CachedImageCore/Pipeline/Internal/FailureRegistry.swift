import Foundation

/// The failures the pipeline remembers (see ``ImagePipeline/FailureMemory``), by cache key.
final class FailureRegistry: Sendable {
    private struct Failure {
        var error: ImagePipeline.Error
        var until: Date
    }

    private let policy: ImagePipeline.FailureMemory
    private let clock: any CacheClock
    private let failures = Locked<[String: Failure]>([:])

    init(policy: ImagePipeline.FailureMemory, clock: any CacheClock) {
        self.policy = policy
        self.clock = clock
    }

    /// The error `key` failed with, if that is still remembered.
    func error(forKey key: String) -> ImagePipeline.Error? {
        guard policy.capacity > 0 else { return nil }
        let now = clock.now
        return failures.withLock { failures in
            guard let failure = failures[key] else { return nil }
            guard failure.until > now else {
                failures[key] = nil
                return nil
            }
            return failure.error
        }
    }

    /// Remembers `failure` for `key` when the policy says so.
    func remember(_ failure: DownloadFailure, forKey key: String) {
        guard let interval = policy.interval(for: failure) else { return }
        let now = clock.now
        failures.withLock { failures in
            if failures.count >= policy.capacity, failures[key] == nil {
                failures = failures.filter { $0.value.until > now }
                if failures.count >= policy.capacity, let soonest = failures.min(by: { $0.value.until < $1.value.until }) {
                    failures[soonest.key] = nil
                }
            }
            failures[key] = Failure(error: failure.error, until: now.addingTimeInterval(interval))
        }
    }

    /// Forgets any failure of `key` (it loaded, or its cached image was removed).
    func forget(_ key: String) {
        guard policy.capacity > 0 else { return }
        failures.withLock { _ = $0.removeValue(forKey: key) }
    }
}
