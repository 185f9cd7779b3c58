import Foundation

/// The tasks a loader awaits its pipeline tasks in, and how tests wait for them.
extension ImageLoader {
    /// Awaits `task` in a task of this loader's (``settle()`` waits for it) and hands its result to `body`.
    func track(_ task: ImageTask, _ body: @escaping @MainActor (Result<ImageResponse, any Error>) -> Void) {
        workCount += 1
        let id = workCount
        work[id] = Task { [weak self] in
            let result: Result<ImageResponse, any Error>
            do {
                result = .success(try await task.response)
            } catch {
                result = .failure(error)
            }
            self?.work[id] = nil
            body(result)
        }
    }

    /// Waits until every load this loader started has delivered (or dropped) its result.
    /// For tests: after it returns, no late result
    /// can still change the phase.
    package func settle() async {
        while let next = work.first {
            await next.value.value
            work[next.key] = nil
        }
    }
}
