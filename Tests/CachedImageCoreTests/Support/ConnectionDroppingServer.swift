import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import CachedImageCore

/// A loopback TCP server that answers every request with the same raw bytes (a response head and
/// part of its body) and then really ends the connection: with a FIN (`close`) or a RST
/// (`SO_LINGER` 0). Hummingbird always sends a `Content-Length` and closes politely; this
/// server also sends chunked bodies and resets, which is what a connection dropping mid-body
/// looks like to a client.
final class ConnectionDroppingServer: Sendable {
    /// How the connection ends after the bytes are written.
    enum Ending: Sendable {
        /// `close()`: a FIN, the orderly end of the TCP connection.
        case close
        /// `SO_LINGER` 0, then `close()`: a RST, "connection reset by peer".
        case reset
    }

    let port: Int
    private let listener: Int32
    private let response: Data
    private let ending: Ending
    private let state = Locked((requests: 0, isStopped: false))
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts listening on `127.0.0.1` (ephemeral port) and serving on a thread of its own.
    init(response: Data, ending: Ending) throws {
        self.response = response
        self.ending = ending
        (listener, port) = try LoopbackSocket.open(listening: true)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Requests answered so far.
    var requestCount: Int { state.withLock { $0.requests } }

    /// Stops accepting and closes the listening socket; returns once the serving thread ended.
    func shutdown() {
        let wasStopped = state.withLock { state -> Bool in
            defer { state.isStopped = true }
            return state.isStopped
        }
        guard !wasStopped else { return }
        stopped.wait()
        close(listener)
    }

    private func acceptLoop() {
        while !state.withLock({ $0.isStopped }) {
            // Poll so that `shutdown()` is noticed within 50 ms on every platform.
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            serve(connection)
        }
        stopped.signal()
    }

    private func serve(_ connection: Int32) {
        // Read the request head (the client sends nothing after it).
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while !head.contains(terminator) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { break }
            head.append(contentsOf: buffer[0 ..< count])
        }
        state.withLock { $0.requests += 1 }
        response.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(connection, raw.baseAddress! + offset, raw.count - offset)
                guard written > 0 else { break }
                offset += written
            }
        }
        if ending == .reset {
            var noLinger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &noLinger, socklen_t(MemoryLayout<linger>.size))
        }
        close(connection)
    }
}

private extension Array where Element == UInt8 {
    func contains(_ needle: [UInt8]) -> Bool {
        guard count >= needle.count else { return false }
        for start in 0 ... (count - needle.count) where Array(self[start ..< start + needle.count]) == needle {
            return true
        }
        return false
    }
}
