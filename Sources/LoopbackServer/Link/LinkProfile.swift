import Foundation

/// A network link the loopback server emulates: one downlink shared by every connection (a
/// bandwidth), a delay each way, and optionally lost packets and dropped connections. The named
/// profiles follow Apple's Network Link Conditioner presets (downlink and delays; the uplink's
/// bandwidth is not emulated: requests are a few hundred bytes).
///
/// ```swift
/// let server = try await LoopbackServer.start(link: .lte)
/// server.setLink(.threeG)                 // later responses use the new link
/// LinkProfile.named("very-bad-network")   // what the command lines' --link flags accept
/// ```
public struct LinkProfile: Sendable, Hashable, Codable {
    /// The name the command lines accept (`loopback`, `wifi`, `lte`, `3g`, `edge`, `very-bad-network`).
    public var name: String
    /// The downlink bandwidth shared by all connections, in bits per second; `nil`: unlimited.
    public var downlinkBitsPerSecond: Int?
    /// The delay added in each direction, in milliseconds (a round trip costs twice this).
    public var delayMilliseconds: Int
    /// The share of packets lost, `0...1`: a lost packet takes the link twice and arrives a
    /// round trip late, holding back the bytes behind it (TCP delivers in order).
    public var packetLoss: Double
    /// The share of responses whose connection drops partway through the body, `0...1`.
    public var droppedConnections: Double

    /// Creates a profile.
    public init(name: String, downlinkBitsPerSecond: Int?, delayMilliseconds: Int, packetLoss: Double = 0, droppedConnections: Double = 0) {
        self.name = name
        self.downlinkBitsPerSecond = downlinkBitsPerSecond
        self.delayMilliseconds = delayMilliseconds
        self.packetLoss = packetLoss
        self.droppedConnections = droppedConnections
    }

    /// The plain loopback: no bandwidth limit, no delay (the default).
    public static let loopback = LinkProfile(name: "loopback", downlinkBitsPerSecond: nil, delayMilliseconds: 0)
    /// Network Link Conditioner's "Wi-Fi": 40 Mbit/s down, 1 ms each way.
    public static let wifi = LinkProfile(name: "wifi", downlinkBitsPerSecond: 40_000_000, delayMilliseconds: 1)
    /// Network Link Conditioner's "LTE": 50 Mbit/s down, 50 ms each way.
    public static let lte = LinkProfile(name: "lte", downlinkBitsPerSecond: 50_000_000, delayMilliseconds: 50)
    /// Network Link Conditioner's "3G": 780 kbit/s down, 100 ms each way.
    public static let threeG = LinkProfile(name: "3g", downlinkBitsPerSecond: 780_000, delayMilliseconds: 100)
    /// Network Link Conditioner's "Edge": 240 kbit/s down, 400 ms each way.
    public static let edge = LinkProfile(name: "edge", downlinkBitsPerSecond: 240_000, delayMilliseconds: 400)
    /// Network Link Conditioner's "Very Bad Network": 1 Mbit/s down, 500 ms each way, 10% of
    /// packets lost; here also 5% of connections dropped mid-body.
    public static let veryBadNetwork = LinkProfile(
        name: "very-bad-network", downlinkBitsPerSecond: 1_000_000, delayMilliseconds: 500, packetLoss: 0.1, droppedConnections: 0.05
    )

    /// Every named profile, the default first.
    public static let all: [LinkProfile] = [.loopback, .wifi, .lte, .threeG, .edge, .veryBadNetwork]

    /// The profile called `name` (case-insensitive), or `nil`.
    public static func named(_ name: String) -> LinkProfile? {
        all.first { $0.name == name.lowercased() }
    }

    /// Whether the link adds nothing to the plain loopback.
    public var isUnlimited: Bool {
        downlinkBitsPerSecond == nil && delayMilliseconds == 0 && packetLoss == 0 && droppedConnections == 0
    }

    /// A round trip: twice the delay.
    public var roundTrip: Duration { .milliseconds(2 * delayMilliseconds) }

    /// The fastest the link can deliver `bytes` of responses asked for at once: a round trip,
    /// then the bytes at the downlink's bandwidth (the physical limit a client is compared with).
    public func transferTime(ofBytes bytes: Int) -> Duration {
        guard let bits = downlinkBitsPerSecond, bits > 0 else { return roundTrip }
        return roundTrip + .nanoseconds(Int64((Double(bytes) * 8 / Double(bits) * 1e9).rounded()))
    }
}
