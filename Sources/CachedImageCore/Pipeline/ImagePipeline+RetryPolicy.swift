import Foundation

extension ImagePipeline {
    /// How the pipeline retries a download that failed for a transient reason
    /// (``ImagePipeline/Error/isTransient``: a transport error, 5xx, 429, 408 or a truncated
    /// body). Permanent failures (404, not an image, too large) are never retried.
    ///
    /// The delay before retry *n* (1-based) is `initialDelay * backoffMultiplier^(n-1)`, at most
    /// `maximumDelay`. When the failed response carries `Retry-After` (seconds or an HTTP date), that
    /// delay is used instead; if it is longer than `maximumDelay` the pipeline gives up at once rather
    /// than ask again sooner than the server allowed.
    ///
    /// Retries are off by default (``disabled``): a retry multiplies load on a server that is
    /// already failing, an image view asks again for a transient failure when it returns after
    /// its grace period, when the app comes to the foreground and when the network comes back
    /// (`FailureRecovery`), and a stale cached image is already served when revalidation fails. Turn them on for flaky networks:
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()
    /// configuration.retryPolicy = .init(maximumRetries: 2, initialDelay: 0.5, maximumDelay: 10)
    /// ```
    ///
    /// A cancelled request stops waiting at once and throws `CancellationError`.
    public struct RetryPolicy: Sendable {
        /// Retries after the first attempt; `0` disables retrying.
        public var maximumRetries: Int
        /// The delay before the first retry, in seconds.
        public var initialDelay: TimeInterval
        /// How much each further delay grows.
        public var backoffMultiplier: Double
        /// The longest delay, in seconds, whether computed or asked for by `Retry-After`.
        public var maximumDelay: TimeInterval
        /// Waits the given number of seconds, throwing `CancellationError` if the task is
        /// cancelled. Default: `Task.sleep`. Tests inject a sleeper that records and returns.
        public var sleep: @Sendable (TimeInterval) async throws -> Void

        /// Creates a policy.
        public init(
            maximumRetries: Int = 2,
            initialDelay: TimeInterval = 0.5,
            backoffMultiplier: Double = 2,
            maximumDelay: TimeInterval = 10,
            sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { try await RetryPolicy.taskSleep($0) }
        ) {
            self.maximumRetries = max(0, maximumRetries)
            self.initialDelay = max(0, initialDelay)
            self.backoffMultiplier = max(1, backoffMultiplier)
            self.maximumDelay = max(0, maximumDelay)
            self.sleep = sleep
        }

        /// No retries: every failure is reported at once. The default.
        public static var disabled: RetryPolicy { RetryPolicy(maximumRetries: 0) }

        /// Sleeps with `Task.sleep`, honouring cancellation. A wait longer than a century (a
        /// server's `Retry-After: 99999999999999999999` under a `maximumDelay` of `.infinity`, say)
        /// sleeps a century; NaN and negative waits do not sleep.
        public static func taskSleep(_ seconds: TimeInterval) async throws {
            try await Task.sleep(nanoseconds: nanoseconds(sleeping: seconds))
        }

        /// The longest wait ``taskSleep(_:)`` makes: a century, in whole nanoseconds far inside
        /// the range `Task.sleep` takes (`UInt64(seconds * 1e9)` traps past 584 years).
        static let longestSleep: TimeInterval = 100 * 365 * 86_400

        /// `seconds` as the nanoseconds `Task.sleep` takes, clamped to `0...longestSleep`.
        static func nanoseconds(sleeping seconds: TimeInterval) -> UInt64 {
            guard seconds > 0 else { return 0 } // Also NaN.
            return UInt64(min(seconds, longestSleep) * 1_000_000_000)
        }

        /// The delay before retry number `retry` (1-based), or `nil` to give up.
        ///
        /// - Parameter retryAfter: What the failed response's `Retry-After` asked for, in
        ///   seconds, if anything: used instead of the backoff, or a reason to give up when it
        ///   is longer than ``maximumDelay``.
        func delay(beforeRetry retry: Int, retryAfter: TimeInterval?) -> TimeInterval? {
            guard retry >= 1, retry <= maximumRetries else { return nil }
            if let retryAfter {
                return retryAfter <= maximumDelay ? retryAfter : nil
            }
            let computed = initialDelay * pow(backoffMultiplier, Double(retry - 1))
            return min(computed, maximumDelay)
        }

        /// ``delay(beforeRetry:retryAfter:)`` for a raw `Retry-After` value (an unparseable one
        /// is ignored).
        func delay(beforeRetry retry: Int, retryAfter: String?, now: Date) -> TimeInterval? {
            delay(beforeRetry: retry, retryAfter: retryAfter.flatMap { Self.seconds(fromRetryAfter: $0, now: now) })
        }

        /// Runs `attempt` until it succeeds, fails for a reason that is not transient, or the
        /// policy gives up; returns its value or throws its last failure (a ``DownloadFailure``)
        /// or `CancellationError`.
        /// Waits happen in the caller, outside any download slot.
        func run<T: Sendable>(_ attempt: () async throws -> T) async throws -> T {
            var retry = 0
            while true {
                let failure: DownloadFailure
                do {
                    return try await attempt()
                } catch let error as DownloadFailure {
                    failure = error
                } catch let error as ImagePipeline.Error {
                    failure = DownloadFailure(error, retryAfter: nil)
                }
                retry += 1
                guard failure.error.isTransient, let delay = delay(beforeRetry: retry, retryAfter: failure.retryAfter) else {
                    throw failure
                }
                try Task.checkCancellation()
                try await sleep(delay)
                try Task.checkCancellation()
            }
        }

        /// Parses `Retry-After` (RFC 9110, section 10.2.3): delay-seconds or an HTTP date.
        static func seconds(fromRetryAfter value: String, now: Date) -> TimeInterval? {
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                // delay-seconds is 1*DIGIT: a number too large for an `Int` is still a very long
                // wait (past any cap), not a value to ignore.
                return TimeInterval(trimmed)
            }
            guard let date = HTTPDate.parse(trimmed, now: now) else { return nil }
            return max(0, date.timeIntervalSince(now))
        }
    }
}
