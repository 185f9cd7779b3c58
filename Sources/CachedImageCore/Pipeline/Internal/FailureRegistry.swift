import Foundation

/// The failures the pipeline remembers (negative caching, see
/// ``ImagePipeline/Configuration/failureCachePolicy``), by cache key.
final class FailureRegistry: Sendable {
    private struct Failure {
        var error: ImagePipeline.Error
        var until: Date
    }

    /// Failures remembered at most; the soonest to expire are forgotten first.
    static let capacity = 1_000

    private let policy: FailureCachePolicy
    private let clock: any CacheClock
    private let failures = Locked<[String: Failure]>([:])

    init(policy: FailureCachePolicy, clock: any CacheClock) {
        self.policy = policy
        self.clock = clock
    }

    /// The error `key` failed with, if that is still remembered.
    func error(forKey key: String) -> ImagePipeline.Error? {
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

    /// Remembers `failure` for `key` as long as the policy allows: an error status for what its
    /// headers and the policy say, a body that is not a usable image as long as a client error.
    /// Connection failures are not remembered.
    func remember(_ failure: DownloadFailure, forKey key: String) {
        let seconds: TimeInterval
        switch failure.error {
        case .badStatusCode(_, let status):
            guard let response = failure.response else { return }
            seconds = policy.failureLifetime(
                statusCode: status, headers: response.headers,
                requestTime: response.requestTime, responseTime: response.responseTime
            )
        case .notAnImage, .imageTooLarge, .emptyResponse:
            seconds = min(policy.clientError, policy.maximum)
        default:
            return
        }
        guard seconds > 0 else { return }
        let now = clock.now
        failures.withLock { failures in
            if failures.count >= Self.capacity, failures[key] == nil {
                failures = failures.filter { $0.value.until > now }
                if failures.count >= Self.capacity, let soonest = failures.min(by: { $0.value.until < $1.value.until }) {
                    failures[soonest.key] = nil
                }
            }
            failures[key] = Failure(error: failure.error, until: now.addingTimeInterval(seconds))
        }
    }

    /// Forgets any failure of `key` (it loaded, or its cached image was removed).
    func forget(_ key: String) {
        failures.withLock { failures in
            if !failures.isEmpty { failures[key] = nil }
        }
    }
}
