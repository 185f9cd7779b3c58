import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port that refuses every connection, and that no other socket can take while this
/// value lives: a TCP socket bound to `127.0.0.1` (ephemeral port) that never listens. A port
/// freed by shutting a server down can be taken at once by another test's server, which then
/// answers what was meant to be refused.
final class RefusingPort: Sendable {
    let port: Int
    private let socketDescriptor: Int32

    init() throws {
        (socketDescriptor, port) = try LoopbackSocket.open(listening: false)
    }

    deinit {
        close(socketDescriptor)
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }
}
