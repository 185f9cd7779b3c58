import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket bound to `127.0.0.1` on an ephemeral port, for the tests' hand-made servers.
enum LoopbackSocket {
    struct StartError: Error {
        let call: String
        let code: Int32
    }

    /// A new socket bound to a free loopback port, listening when `listening` (bound but not
    /// listening, it refuses every connection and no other socket can take its port).
    static func open(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw StartError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, !listening || listen(fd, 16) == 0, named == 0 else {
            let code = errno
            close(fd)
            throw StartError(call: listening ? "bind/listen" : "bind", code: code)
        }
        return (fd, Int(UInt16(bigEndian: actual.sin_port)))
    }
}
