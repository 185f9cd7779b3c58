import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One network request's part in resuming downloads (``RangeResumption``): the kept bytes it asks
/// the rest of, what its response's head means for them, what it keeps when its body stops
/// early, and the whole body it assembles when a `206` continues them.
///
/// The kept bytes leave the store only on a definite answer: a whole body (`200` or an appended
/// `206`), a `416`, or a `206` that does not continue them. A failure before the head or a
/// status that is no answer about the range (a `503`) leaves them for a later attempt.
final class ResumableTransfer: Sendable {
    /// What the request produced once its load returned.
    enum Outcome: Sendable {
        /// The body to handle as any other, `resumedFrom` of its bytes kept from before.
        case response(data: Data, response: URLResponse, resumedFrom: Int)
        /// The kept bytes were refused: ask again, without a range.
        case restart
    }

    private struct State {
        /// What the head said about the kept bytes; `nil` before the head, or when nothing
        /// was resumed.
        var answer: RangeResumption.Answer?
        /// What an early stop keeps: the validator, the complete length, and the bytes before
        /// this response's body. `nil`: this response cannot be resumed.
        var base: PartialDownload?
    }

    private let store: PartialDownloadStore
    private let key: String
    private let url: URL
    /// The kept bytes this request asks the rest of, if any.
    let resumed: PartialDownload?
    private let state = Locked(State())

    /// A transfer for the download of `url` stored under `key`, resuming the bytes kept for it
    /// unless `mayResume` is `false` (a conditional request, or a retry after a refusal).
    init(store: PartialDownloadStore, key: String, url: URL, mayResume: Bool) {
        self.store = store
        self.key = key
        self.url = url
        self.resumed = mayResume ? store.partial(forKey: key, url: url) : nil
    }

    /// Adds `Range` and `If-Range` to `request` when resuming.
    func prepare(_ request: inout URLRequest) {
        guard let resumed else { return }
        for (field, value) in RangeResumption.requestFields(resuming: resumed) {
            request.setValue(value, forHTTPHeaderField: field)
        }
    }

    /// The bytes before this response's body: the kept ones when a `206` continues them.
    var offset: Int {
        state.withLock { state in
            guard case .append = state.answer else { return 0 }
            return state.base?.data.count ?? 0
        }
    }

    /// Reads the final response's head. Returns the kept bytes and the complete length when a
    /// `206` continues them (the caller reports them as received), else `nil`.
    @discardableResult
    func didReceiveHead(_ response: URLResponse) -> (prefix: Data, total: Int)? {
        guard let http = response as? HTTPURLResponse else { return nil }
        let headers = HTTPHeaders(http)
        let answer = resumed.map { RangeResumption.interpret(status: http.statusCode, headers: headers, resuming: $0) }
        let base: PartialDownload?
        switch answer {
        case .append(let total):
            base = resumed.map { PartialDownload(url: url, validator: $0.validator, data: $0.data, totalLength: total) }
        case .restart:
            store.remove(forKey: key)
            base = nil
        case .unrelated:
            base = nil
        case .replaced, nil:
            base = RangeResumption.validator(status: http.statusCode, headers: headers).map {
                let length = headers["Content-Length"].flatMap(ResponseValidator.Transfer.contentLength)
                return PartialDownload(url: url, validator: $0, data: Data(), totalLength: length)
            }
        }
        state.withLock { state in
            state.answer = answer
            state.base = base
        }
        if case .append(let total) = answer, let base { return (base.data, total) }
        return nil
    }

    /// The body stopped before its end with `received` of its bytes: keeps what may be resumed.
    func interrupted(_ received: Data) {
        guard var partial = state.withLock({ $0.base }) else { return }
        partial.data.append(received)
        store.keep(partial, forKey: key)
    }

    /// What the load that returned `loaded` produced.
    func finish(_ loaded: DataLoadResponse) -> Outcome {
        if resumed != nil, state.withLock({ $0.answer == nil }) {
            // A loader that reported no head: its response is read now.
            didReceiveHead(loaded.response)
        }
        let (answer, base) = state.withLock { ($0.answer, $0.base) }
        switch answer {
        case .append(let total):
            guard let base, let http = loaded.response as? HTTPURLResponse,
                  let head = RangeResumption.assembledHead(of: http, total: total) else { return .restart }
            store.remove(forKey: key)
            return .response(data: base.data + loaded.data, response: head, resumedFrom: base.data.count)
        case .restart:
            return .restart
        case .unrelated:
            return .response(data: loaded.data, response: loaded.response, resumedFrom: 0)
        case .replaced, nil:
            if let status = (loaded.response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) {
                // A whole body: whatever was kept for this resource is obsolete.
                store.remove(forKey: key)
            }
            return .response(data: loaded.data, response: loaded.response, resumedFrom: 0)
        }
    }
}
