import Foundation
import ImageFixtures
import Testing
@testable import CachedImageCore

@Suite("Low Data Mode by default: NetworkMonitor feeds the pipeline")
struct NetworkMonitorTests {
    @Test("the default configuration reads NetworkMonitor.shared (unconstrained where nothing reports)")
    func defaultReadsShared() {
        let configuration = ImagePipeline.Configuration()
        #expect(configuration.isNetworkConstrained() == NetworkMonitor.shared.isConstrained)
        #if !canImport(Network)
        #expect(NetworkMonitor.shared.conditions == NetworkMonitor.Conditions())
        #endif
    }

    @Test("updates are seen at once; expensive counts only when asked")
    func expensiveFlag() {
        let monitor = NetworkMonitor()
        var plain = ImagePipeline.Configuration()
        plain.useNetworkMonitor(monitor)
        var cellularSaver = ImagePipeline.Configuration()
        cellularSaver.useNetworkMonitor(monitor, treatingExpensiveAsConstrained: true)
        #expect(!plain.isNetworkConstrained() && !cellularSaver.isNetworkConstrained())

        monitor.update(.init(isConstrained: false, isExpensive: true))
        #expect(!plain.isNetworkConstrained())
        #expect(cellularSaver.isNetworkConstrained())

        monitor.update(.init(isConstrained: true, isExpensive: false))
        #expect(plain.isNetworkConstrained() && cellularSaver.isNetworkConstrained())
    }

    @Test("a monitor switching to Low Data Mode makes requests load their fallback URL, and back")
    @available(macOS 14.0, *)
    func fallbackFollowsMonitor() async throws {
        let fixture = try await PipelineFixture.start()
        fixture.servePNG("/full.png", width: 400, height: 400)
        fixture.servePNG("/small.png", width: 40, height: 40)
        let monitor = NetworkMonitor(conditions: .init(isConstrained: true))
        let pipeline = fixture.makePipeline { $0.useNetworkMonitor(monitor) }
        let request = ImageRequest(url: fixture.url("/full.png"), constrainedNetworkPolicy: .fallback(fixture.url("/small.png")))

        #expect(try await pipeline.image(for: request).image.pixelSize == PixelSize(width: 40, height: 40))
        #expect(fixture.server.requestCount(for: "/full.png") == 0)

        monitor.update(.init(isConstrained: false))
        #expect(try await pipeline.image(for: request).image.pixelSize == PixelSize(width: 400, height: 400))
        #expect(fixture.server.requestCount(for: "/full.png") == 1)
        await fixture.tearDown()
    }
}
