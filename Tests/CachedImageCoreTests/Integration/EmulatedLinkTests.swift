import Foundation
import Testing
@testable import LoopbackServer

/// The loopback server's emulated downlink (the demo's and the link tests' 3G and LTE): a token
/// bucket shared by every connection, which never idles while a piece is ready.
@Suite("EmulatedLink: a shared, work-conserving downlink")
struct EmulatedLinkTests {
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    private func link() -> EmulatedLink {
        // 800 kbit/s: 1,000 bytes take 10 ms.
        EmulatedLink(profile: LinkProfile(name: "test", downlinkBitsPerSecond: 800_000, delayMilliseconds: 100))
    }

    @Test("pieces ready together leave one after another at the bandwidth")
    func piecesQueue() {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let link = link()
        let t0 = ContinuousClock.now + .seconds(10)
        #expect(link.book(1_000, readyAt: t0) == t0 + .milliseconds(10))
        #expect(link.book(1_000, readyAt: t0) == t0 + .milliseconds(20))
    }

    @Test("a piece ready while the link idled before a later booking leaves in that idle time, not after the later one")
    func idleTimeIsFilled() {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *) else { return }
        let link = link()
        let t0 = ContinuousClock.now + .seconds(10)
        // A running response's piece leaves at once; a new response's head is ready 50 ms later
        // and books first; the running response, ready since its piece left, books next.
        #expect(link.book(1_000, readyAt: t0) == t0 + .milliseconds(10))
        #expect(link.book(500, readyAt: t0 + .milliseconds(50)) == t0 + .milliseconds(55))
        #expect(link.book(1_000, readyAt: t0 + .milliseconds(10)) == t0 + .milliseconds(20), "the link was idle from 10 to 50 ms")
        #expect(link.book(1_000, readyAt: t0 + .milliseconds(20)) == t0 + .milliseconds(30))
        #expect(link.book(3_000, readyAt: t0 + .milliseconds(30)) == t0 + .milliseconds(85), "30 ms do not fit in the 20 ms left before the head: after it")
        #expect(link.book(1_000, readyAt: t0 + .milliseconds(30)) == t0 + .milliseconds(40), "10 ms do")
    }
}
