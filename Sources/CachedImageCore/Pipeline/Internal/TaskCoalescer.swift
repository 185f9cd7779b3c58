import Foundation

/// Runs at most one job per key: callers asking for a key that is already in flight subscribe to
/// the running job instead of starting another. A job's priority is the highest of its
/// subscribers', it reports progress to all of them, and it is cancelled only when its last
/// subscriber leaves.
///
/// One lock guards the registry and every job's state, so joining a job and the last subscriber
/// leaving it can never interleave badly. Callbacks (priority observers, continuations) always
/// run outside the lock. Priority observers are called by one thread at a time per job, with
/// the priority current when they are called, so the last call always carries the job's
/// latest priority (two changes racing on two threads never deliver out of order).
final class TaskCoalescer<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    typealias Priority = ImageRequest.Priority
    typealias ProgressHandler = @Sendable (_ received: Int64, _ expected: Int64?) -> Void
    /// Receives what a job has before its value: body chunks (data jobs), previews (image jobs).
    typealias UpdateHandler = @Sendable (JobUpdate) -> Void
    typealias Work = @Sendable (JobContext) async throws -> Value

    /// Internal for tests (`isLocked`); nothing outside this file takes it.
    let lock = Lock()
    private var jobs: [Key: Job] = [:]

    /// The number of jobs in flight (for tests and statistics).
    var activeJobCount: Int { lock.withLock { jobs.count } }

    /// Subscribes to the job for `key`, starting it with `work` when none is in flight.
    /// Await ``Subscription/value()`` for the result.
    func subscribe(
        to key: Key,
        priority: Priority,
        progress: ProgressHandler? = nil,
        work: @escaping Work
    ) -> Subscription {
        let subscription = subscribe(to: key, priority: priority, progress: progress)
        if subscription.isOwner { subscription.start(work) }
        return subscription
    }

    /// Subscribes to the job for `key`, creating it when none is in flight.
    ///
    /// When ``Subscription/isOwner`` is `true` the caller created the job and must, exactly
    /// once, either finish it on the spot with ``Subscription/complete(with:)`` (work that needs
    /// no suspension, such as a disk hit) or hand it to a task with ``Subscription/start(_:)``.
    /// Other callers asking for the same key meanwhile join it.
    ///
    /// `updates` gets the job's updates; `observesImages` says whether it wants the images only
    /// a view shows (previews, the stale copy: ``JobContext/takesUpdates``), or only the rest
    /// (the image's size).
    func subscribe(
        to key: Key, priority: Priority, progress: ProgressHandler? = nil, updates: UpdateHandler? = nil, observesImages: Bool = true
    ) -> Subscription {
        // Never nil: a missing job is created.
        addSubscriber(to: key, priority: priority, progress: progress, updates: updates, observesImages: observesImages, creatingJob: true)!
    }

    /// Subscribes to the job for `key` only if one is in flight; `nil` otherwise (nothing is
    /// created). Holds a job another caller may be about to leave until this caller decides
    /// whether it needs it.
    func join(_ key: Key, priority: Priority) -> Subscription? {
        addSubscriber(to: key, priority: priority, progress: nil, updates: nil, observesImages: true, creatingJob: false)
    }

    /// Adds a subscriber to the job for `key` (created first if `creatingJob`), raising the
    /// job's priority to the subscriber's if it is higher.
    private func addSubscriber(
        to key: Key,
        priority: Priority,
        progress: ProgressHandler?,
        updates: UpdateHandler?,
        observesImages: Bool,
        creatingJob: Bool
    ) -> Subscription? {
        let added: (job: Job, id: Int, isNew: Bool, isRaised: Bool, replay: [JobUpdate])? = lock.withLock {
            var isNew = false
            let job: Job
            if let existing = jobs[key] {
                job = existing
            } else if creatingJob {
                job = Job(key: key, priority: priority)
                jobs[key] = job
                isNew = true
            } else {
                return nil
            }
            let id = job.nextSubscriberID
            job.nextSubscriberID += 1
            job.subscribers[id] = Subscriber(priority: priority, progress: progress, updates: updates, observesImages: observesImages)
            let isRaised = priority > job.priority
            if isRaised { job.priority = priority }
            return (job, id, isNew, isRaised, updates == nil ? [] : job.stickyUpdates(observingImages: observesImages))
        }
        guard let added else { return nil }
        if added.isRaised { deliverPriority(of: added.job) }
        for replay in added.replay { updates?(replay) }
        return Subscription(coalescer: self, job: added.job, id: added.id, isCoalesced: !added.isNew)
    }

    /// Runs `work` for a job in a task of its own (cancelled once the last subscriber leaves).
    fileprivate func start(_ job: Job, work: @escaping Work) {
        let context = JobContext(coalescer: self, job: job)
        let task = Task {
            let result: Result<Value, any Error>
            do {
                result = .success(try await work(context))
            } catch {
                result = .failure(error)
            }
            self.finish(job, with: result)
        }
        let cancelled = lock.withLock {
            job.task = task
            return job.isCancelled
        }
        if cancelled { task.cancel() }
    }

    // MARK: Subscriber operations

    fileprivate func attach(_ continuation: CheckedContinuation<Value, any Error>, to job: Job, id: Int) {
        let result: Result<Value, any Error>? = lock.withLock {
            guard job.subscribers[id] != nil else { return .failure(CancellationError()) }
            if let result = job.result {
                job.subscribers[id] = nil
                return result
            }
            job.continuations[id] = continuation
            return nil
        }
        if let result { continuation.resume(with: result) }
    }

    fileprivate func unsubscribe(_ job: Job, id: Int) {
        var continuation: CheckedContinuation<Value, any Error>?
        var taskToCancel: Task<Void, Never>?
        var isChanged = false
        lock.withLock {
            guard job.subscribers.removeValue(forKey: id) != nil else { return }
            continuation = job.continuations.removeValue(forKey: id)
            guard job.result == nil else { return }
            if job.subscribers.isEmpty {
                job.isCancelled = true
                taskToCancel = job.task
                if jobs[job.key] === job { jobs[job.key] = nil }
            } else if let highest = job.subscribers.values.map(\.priority).max(), highest != job.priority {
                job.priority = highest
                isChanged = true
            }
        }
        continuation?.resume(throwing: CancellationError())
        taskToCancel?.cancel()
        if isChanged { deliverPriority(of: job) }
    }

    fileprivate func setPriority(_ priority: Priority, of job: Job, id: Int) {
        let isChanged = lock.withLock {
            guard job.result == nil, job.subscribers[id] != nil else { return false }
            job.subscribers[id]?.priority = priority
            let highest = job.subscribers.values.map(\.priority).max() ?? priority
            guard highest != job.priority else { return false }
            job.priority = highest
            return true
        }
        if isChanged { deliverPriority(of: job) }
    }

    /// Calls the job's priority observers with its current priority, outside the lock. One
    /// thread delivers at a time: a change made meanwhile (on another thread, or by an observer)
    /// only asks it for one more round, which reads the priority again. So observers never get
    /// an older priority after a newer one, and no caller blocks on another's callbacks.
    fileprivate func deliverPriority(of job: Job) {
        let isDeliverer = lock.withLock {
            guard !job.isDeliveringPriority else {
                job.needsPriorityRedelivery = true
                return false
            }
            job.isDeliveringPriority = true
            return true
        }
        guard isDeliverer else { return }
        while true {
            let (priority, observers) = lock.withLock {
                job.needsPriorityRedelivery = false
                return (job.priority, job.priorityObservers)
            }
            for observer in observers { observer(priority) }
            let isDone = lock.withLock {
                guard !job.needsPriorityRedelivery else { return false }
                job.isDeliveringPriority = false
                return true
            }
            if isDone { return }
        }
    }

    // MARK: Job operations

    fileprivate func finish(_ job: Job, with result: Result<Value, any Error>) {
        // Released after unlocking: the observers' captures can be the last references to a
        // download's state, and nothing is freed under the lock every job shares.
        var observers: [@Sendable (Priority) -> Void] = []
        let continuations: [CheckedContinuation<Value, any Error>] = lock.withLock {
            job.result = result
            swap(&observers, &job.priorityObservers)
            if let index = jobs.index(forKey: job.key), jobs.values[index] === job { jobs.remove(at: index) }
            // Subscribers already waiting get the result now and leave; the others (the owner
            // finishing on the spot, anyone who joined and has not awaited yet) read it later.
            // Nobody waits on a disk hit: nothing to copy.
            guard !job.continuations.isEmpty else { return [] }
            for id in job.continuations.keys { job.subscribers[id] = nil }
            let waiting = Array(job.continuations.values)
            job.continuations = [:]
            return waiting
        }
        observers = [] // released here: after unlocking, and before anyone waiting resumes
        for continuation in continuations { continuation.resume(with: result) }
    }

    fileprivate func priority(of job: Job) -> Priority {
        lock.withLock { job.priority }
    }

    /// Registers `observer` and returns the job's priority at that moment (`nil` once finished).
    fileprivate func addPriorityObserver(_ observer: @escaping @Sendable (Priority) -> Void, to job: Job) -> Priority? {
        lock.withLock {
            guard job.result == nil else { return nil }
            job.priorityObservers.append(observer)
            return job.priority
        }
    }

    fileprivate func setProgress(_ progress: ProgressHandler?, of job: Job, id: Int) {
        lock.withLock { job.subscribers[id]?.progress = progress }
    }

    /// Replaces a subscriber's update handler; it gets what the job kept for later subscribers
    /// (``Job/stickyUpdates(observingImages:)``) at once.
    fileprivate func setUpdates(_ updates: UpdateHandler?, of job: Job, id: Int) {
        let replay: [JobUpdate] = lock.withLock {
            guard var subscriber = job.subscribers[id] else { return [] }
            subscriber.updates = updates
            job.subscribers[id] = subscriber
            return updates == nil ? [] : job.stickyUpdates(observingImages: subscriber.observesImages)
        }
        for update in replay { updates?(update) }
    }

    fileprivate func takesUpdates(_ job: Job) -> Bool {
        lock.withLock { job.subscribers.values.contains { $0.updates != nil && $0.observesImages } }
    }

    fileprivate func report(_ update: JobUpdate, of job: Job) {
        let handlers: [UpdateHandler] = lock.withLock {
            switch update {
            case .stale:
                job.stale = update
            case .imageSize(let size):
                guard job.imageSize != size else { return [] } // told already
                job.imageSize = size
            case .bytes, .restarted, .preview:
                break
            }
            return job.subscribers.values.compactMap { subscriber in
                update.isImage && !subscriber.observesImages ? nil : subscriber.updates
            }
        }
        for handler in handlers { handler(update) }
    }

    fileprivate func reportProgress(_ received: Int64, _ expected: Int64?, of job: Job) {
        let handlers = lock.withLock { job.subscribers.values.compactMap(\.progress) }
        for handler in handlers { handler(received, expected) }
    }
}

extension TaskCoalescer {
    /// A subscriber's handle on a job: await its value, change its priority, or leave.
    struct Subscription: Sendable {
        fileprivate let coalescer: TaskCoalescer
        fileprivate let job: Job
        fileprivate let id: Int
        /// `true` when this subscriber joined a job another caller had already started.
        let isCoalesced: Bool

        /// `true` when this subscriber created the job and must run it (see
        /// ``TaskCoalescer/subscribe(to:priority:progress:)``).
        var isOwner: Bool { !isCoalesced }

        /// Whether any subscriber of the job takes updates now (a view).
        var takesUpdates: Bool {
            coalescer.takesUpdates(job)
        }

        /// Runs the job's work in a task of its own; for the owner only.
        func start(_ work: @escaping Work) {
            precondition(isOwner, "only the subscriber that created a job starts it")
            coalescer.start(job, work: work)
        }

        /// Finishes the job at once with `result`, delivering it to every subscriber that joined
        /// meanwhile; for the owner only. The owner's own ``value()`` then returns `result` too.
        func complete(with result: Result<Value, any Error>) {
            precondition(isOwner, "only the subscriber that created a job completes it")
            coalescer.finish(job, with: result)
        }

        /// Waits for the job's result. Cancelling the waiting task unsubscribes; the job itself
        /// is cancelled only when no subscribers remain.
        func value() async throws -> Value {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    coalescer.attach(continuation, to: job, id: id)
                }
            } onCancel: {
                coalescer.unsubscribe(job, id: id)
            }
        }

        /// Changes this subscriber's priority; the job follows the highest of its subscribers.
        func setPriority(_ priority: Priority) {
            coalescer.setPriority(priority, of: job, id: id)
        }

        /// Replaces the progress handler this subscriber was given (a job joined by
        /// ``TaskCoalescer/join(_:priority:)`` before its subscriber could report progress).
        func setProgress(_ progress: ProgressHandler?) {
            coalescer.setProgress(progress, of: job, id: id)
        }

        /// Replaces the update handler this subscriber was given (see ``setProgress(_:)``); it
        /// gets what the job kept for later subscribers at once (the image's size).
        func setUpdates(_ updates: UpdateHandler?) {
            coalescer.setUpdates(updates, of: job, id: id)
        }

        /// Tells the job's subscribers `update` before the job runs (the image's size a download
        /// in flight read already); for the owner only.
        func report(_ update: JobUpdate) {
            precondition(isOwner, "only the subscriber that created a job reports for it")
            coalescer.report(update, of: job)
        }

        /// The image's size the job was told (``JobUpdate/imageSize(_:)``), if any.
        var imageSize: PixelSize? {
            coalescer.lock.withLock { job.imageSize }
        }

        /// Leaves the job (throwing `CancellationError` to a pending ``value()``).
        func cancel() {
            coalescer.unsubscribe(job, id: id)
        }
    }

    /// What a running job sees of itself: its current priority, and a way to report progress.
    struct JobContext: Sendable {
        fileprivate let coalescer: TaskCoalescer
        fileprivate let job: Job

        /// The highest priority among the job's subscribers right now.
        var priority: Priority { coalescer.priority(of: job) }

        /// Calls `observer` whenever the job's priority changes, until the job finishes.
        ///
        /// - Parameter initial: The priority the caller already acted on (read from
        ///   ``priority`` before registering). A change that happened in between is passed to
        ///   `observer` at once, so none is lost.
        func onPriorityChange(after initial: Priority, _ observer: @escaping @Sendable (Priority) -> Void) {
            let current = coalescer.addPriorityObserver(observer, to: job)
            if let current, current != initial { coalescer.deliverPriority(of: job) }
        }

        /// Forwards download progress to every subscriber.
        func reportProgress(_ received: Int64, _ expected: Int64?) {
            coalescer.reportProgress(received, expected, of: job)
        }

        /// Forwards a body chunk or a preview to every subscriber that takes updates.
        func report(_ update: JobUpdate) {
            coalescer.report(update, of: job)
        }

        /// Whether any subscriber takes updates now (a view: work only a view would see is
        /// skipped otherwise).
        var takesUpdates: Bool {
            coalescer.takesUpdates(job)
        }


    }

    fileprivate struct Subscriber {
        var priority: Priority
        var progress: ProgressHandler?
        var updates: UpdateHandler?
        /// Whether ``updates`` wants previews and the stale copy, not only the image's size.
        var observesImages: Bool
    }

    /// A job's mutable state; guarded by the coalescer's lock.
    fileprivate final class Job: @unchecked Sendable {
        let key: Key
        var priority: Priority
        var subscribers: [Int: Subscriber] = [:]
        /// Subscribers awaiting ``Subscription/value()`` before the job finished, by id.
        var continuations: [Int: CheckedContinuation<Value, any Error>] = [:]
        var nextSubscriberID = 0
        var priorityObservers: [@Sendable (Priority) -> Void] = []
        /// Whether a thread is calling the priority observers (``TaskCoalescer/deliverPriority(of:)``).
        var isDeliveringPriority = false
        /// Whether the priority changed while they were being called: one more round is due.
        var needsPriorityRedelivery = false
        var task: Task<Void, Never>?
        /// The stored copy a view shows while the job runs (``JobUpdate/stale(_:)``), for later subscribers.
        var stale: JobUpdate?
        /// The image's size read from the body so far (``JobUpdate/imageSize(_:)``), for later subscribers.
        var imageSize: PixelSize?
        var isCancelled = false
        var result: Result<Value, any Error>?

        init(key: Key, priority: Priority) {
            self.key = key
            self.priority = priority
        }

        /// What a subscriber that takes updates gets as it joins.
        func stickyUpdates(observingImages: Bool) -> [JobUpdate] {
            var updates: [JobUpdate] = []
            if let imageSize { updates.append(.imageSize(imageSize)) }
            if observingImages, let stale { updates.append(stale) }
            return updates
        }
    }
}
