import Foundation
import LoopbackServer
import Testing
@testable import CachedImageCore

/// Progressive previews end to end: real JPEG files sent in chunks by the loopback server,
/// through the default `URLSessionDataLoader`, the data and image jobs, to a task's observers.
@Suite("Progressive JPEG previews over a chunked loopback link")
struct ProgressivePreviewLoadingTests {
    /// One event a task's observer saw: a preview or the final image.
    private struct Seen: Sendable {
        var response: ImageResponse
        /// Whether the memory cache had anything for the request when the preview arrived.
        var cachedAtThatMoment: Bool
    }

    private func serve(_ data: Data, at path: String, on fixture: PipelineFixture) {
        fixture.server.serve(path, LoopbackResponse(
            headers: ["Content-Type": "image/jpeg", "Cache-Control": "max-age=3600"],
            body: data, chunkSize: 1_000, chunkDelay: .milliseconds(3)
        ))
    }

    /// Loads `request`, returning every preview in order, then the final response.
    private func load(_ request: ImageRequest, with pipeline: ImagePipeline) async throws -> (previews: [Seen], final: ImageResponse, order: [Bool]) {
        let previews = Recorder<Seen>()
        let order = Recorder<Bool>() // true: a preview, false: the final image
        let task = pipeline.imageTask(with: request, preview: { response in
            previews.append(Seen(response: response, cachedAtThatMoment: pipeline.memoryCachedImage(for: request) != nil))
            order.append(true)
        })
        let final = try await task.response
        order.append(false)
        return (previews.values, final, order.values)
    }

    /// `previews`: on any link; `false`: never (whatever the link is measured as).
    private func request(_ url: URL, previews: Bool = true) -> ImageRequest {
        ImageRequest(url: url, options: previews ? [.showProgressivePreviews] : [.skipProgressivePreviews])
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test("a progressive JPEG shows previews before the final image; none is ever cached")
    func progressiveShowsPreviews() async throws {
        let fixture = try await PipelineFixture.start()
        defer { Task { await fixture.tearDown() } }
        let jpeg = try ProgressiveFixtures.progressive()
        serve(jpeg, at: "/photo.jpg", on: fixture)
        let pipeline = fixture.makePipeline { $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0) }

        let (previews, final, order) = try await load(request(fixture.url("/photo.jpg")), with: pipeline)

        #expect(!previews.isEmpty)
        #expect(previews.count <= ProgressiveFixtures.progressiveScanEnds.count - 1)
        #expect(order.last == false && order.filter { !$0 }.count == 1) // the final image, once, last
        #expect(!final.isPreview && final.source == .network)
        #expect(final.image.data == jpeg)
        for seen in previews {
            #expect(seen.response.isPreview)
            #expect(!seen.cachedAtThatMoment)
            // A preview is the bytes up to a complete scan, closed with EOI.
            let bytes = try #require(seen.response.image.data)
            #expect(ProgressiveFixtures.progressiveScanEnds.dropLast().contains(bytes.count - 2))
            #expect(bytes.suffix(2) == Data([0xFF, 0xD9]))
            #expect(seen.response.image.pixelSize == final.image.pixelSize)
        }
        // Each preview shows more scans than the one before.
        let lengths = previews.compactMap { $0.response.image.data?.count }
        #expect(lengths == lengths.sorted() && Set(lengths).count == lengths.count)
        // Memory and disk hold the final image's bytes, never a preview's.
        #expect(pipeline.memoryCachedImage(for: request(fixture.url("/photo.jpg")))?.data == jpeg)
        let relaunched = fixture.makePipeline()
        let fromDisk = try await relaunched.image(for: request(fixture.url("/photo.jpg")))
        #expect(fromDisk.source == .disk && fromDisk.image.data == jpeg)
        #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test("a baseline JPEG, the same bytes with previews skipped, and a cached image show no preview")
    func noPreviews() async throws {
        let fixture = try await PipelineFixture.start()
        defer { Task { await fixture.tearDown() } }
        let baseline = try ProgressiveFixtures.baseline()
        serve(baseline, at: "/baseline.jpg", on: fixture)
        serve(try ProgressiveFixtures.progressive(), at: "/progressive.jpg", on: fixture)
        let pipeline = fixture.makePipeline { $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0) }

        let fromBaseline = try await load(request(fixture.url("/baseline.jpg")), with: pipeline)
        #expect(fromBaseline.previews.isEmpty)
        #expect(fromBaseline.final.image.data == baseline)

        let notAsked = try await load(request(fixture.url("/progressive.jpg"), previews: false), with: pipeline)
        #expect(notAsked.previews.isEmpty)

        // On disk now: decoded at once, nothing to preview.
        let fromDisk = try await load(request(fixture.url("/progressive.jpg")), with: fixture.makePipeline())
        #expect(fromDisk.previews.isEmpty && fromDisk.final.source == .disk)
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test("the policy's count and interval hold on a real download (the clock never moves here)")
    func policyLimits() async throws {
        let fixture = try await PipelineFixture.start()
        defer { Task { await fixture.tearDown() } }
        serve(try ProgressiveFixtures.progressive(), at: "/a.jpg", on: fixture)
        serve(try ProgressiveFixtures.progressive(), at: "/b.jpg", on: fixture)

        let counted = fixture.makePipeline { $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 2, minimumInterval: 0) }
        let two = try await load(request(fixture.url("/a.jpg")), with: counted)
        #expect(two.previews.count <= 2)
        #expect(!two.previews.isEmpty)

        // The fixture's manual clock stands still: after the first preview the interval never passes.
        let spaced = fixture.makePipeline { $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 1) }
        let one = try await load(request(fixture.url("/b.jpg")), with: spaced)
        #expect(one.previews.count == 1)
        #expect(one.final.image.data == (try ProgressiveFixtures.progressive()))
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test("previews are decoded at the request's target size and go through its processors, on decoding threads")
    func targetSizeAndProcessors() async throws {
        let fixture = try await PipelineFixture.start()
        defer { Task { await fixture.tearDown() } }
        serve(try ProgressiveFixtures.progressive(), at: "/p.jpg", on: fixture)
        let pipeline = fixture.makePipeline { $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0) }
        let processed = Recorder<PixelSize>()
        let places = Recorder<Bool>()
        var request = request(fixture.url("/p.jpg"))
        request.targetPixelSize = PixelSize(width: 120, height: 80)
        request.processors = [ImageProcessors.Custom(id: "test.record") { image in
            processed.append(image.pixelSize)
            places.append(DecodingQueue.isCurrent)
            return image
        }]

        let (previews, final, _) = try await load(request, with: pipeline)

        #expect(!previews.isEmpty)
        #expect(final.image.pixelSize == PixelSize(width: 120, height: 80))
        for seen in previews { #expect(seen.response.image.pixelSize == PixelSize(width: 120, height: 80)) }
        #expect(processed.values.count >= previews.count + 1) // a preview overtaken by the end is decoded, not shown
        #expect(!places.values.contains(false), "every processor ran on a decoding thread, never the shared pool")
    }

    @available(macOS 14.0, iOS 17.0, tvOS 17.0, visionOS 1.0, *)
    @Test("a request without previews joins the download of one with them: one request, both images, the previews")
    func sharedDownloadAndDefaults() async throws {
        let fixture = try await PipelineFixture.start()
        defer { Task { await fixture.tearDown() } }
        let jpeg = try ProgressiveFixtures.progressive()
        let gate = Gate()
        fixture.server.serve("/shared.jpg") { _ in
            await gate.wait()
            return LoopbackResponse(headers: ["Content-Type": "image/jpeg"], body: jpeg, chunkSize: 1_000, chunkDelay: .milliseconds(3))
        }
        let pipeline = fixture.makePipeline { $0.progressivePreviewPolicy = ProgressivePreviewPolicy(maximumPreviewCount: 10, minimumInterval: 0) }
        // A subtree default turns previews on.
        let withPreviews = ImageRequestDefaults(options: [.showProgressivePreviews]).applied(to: ImageRequest(url: fixture.url("/shared.jpg")))
        #expect(withPreviews.options.contains(.showProgressivePreviews))

        let previews = Recorder<Int>()
        let previewing = pipeline.imageTask(with: withPreviews, preview: { previews.append($0.image.data?.count ?? 0) })
        // The request is at the server: the previewing job's download is under way; the other joins it.
        #expect(await eventually { fixture.server.requestCount(for: "/shared.jpg") == 1 })
        let plain = pipeline.imageTask(with: request(fixture.url("/shared.jpg"), previews: false))
        gate.open()
        let (a, b) = (try await plain.response, try await previewing.response)

        #expect(a.image.data == jpeg && b.image.data == jpeg)
        #expect(!previews.values.isEmpty)
        #expect(fixture.server.requestCount(for: "/shared.jpg") == 1)
    }
}
