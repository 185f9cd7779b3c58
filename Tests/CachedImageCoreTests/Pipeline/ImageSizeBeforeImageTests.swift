import Foundation
import ImageFixtures
import LoopbackServer
import Testing
@_spi(Testing) @testable import CachedImageCore

/// The image's size before the image: read from the first bytes of the body as they arrive
/// over a throttled loopback response, published long before the last byte.
@Suite("The size before the image", .timeLimit(.minutes(3)))
@MainActor
struct ImageSizeBeforeImageTests {
    /// A 256x192 PNG of noise (about 200 KB), sent 2 KB at a time.
    private func start() async throws -> (PipelineFixture, ImagePipeline, Data) {
        let fixture = try await PipelineFixture.start()
        let png = ImageFixtures.png(width: 256, height: 192, seed: 4)
        fixture.server.serve("/photo.png", LoopbackResponse(
            headers: ["Content-Type": "image/png"], body: png, chunkSize: 2_048, chunkDelay: .milliseconds(2)
        ))
        return (fixture, fixture.makePipeline(), png)
    }

    @Test("a view's loading phase has the size (and aspect ratio) while most of the body is still to come, published once")
    @available(macOS 14.0, *)
    func loaderPublishesTheSizeEarly() async throws {
        let (fixture, pipeline, png) = try await start()
        defer { Task { await fixture.tearDown() } }
        let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
        var sized: [ImageLoadingProgress] = []
        var successes = 0
        loader.onChange = { (phase: ImageLoader.Phase) in
            if case .loading(let progress) = phase, progress.pixelSize != nil { sized.append(progress) }
            if case .success = phase {
                #expect(!sized.isEmpty, "the size came before the image")
                successes += 1
            }
        }
        loader.load(ImageRequest(url: fixture.url("/photo.png")))
        await loader.settle()
        let first = try #require(sized.first, "the size was published while loading")
        #expect(first.pixelSize == PixelSize(width: 256, height: 192))
        #expect(first.pixelSize?.aspectRatio == 256.0 / 192.0)
        #expect(sized.count == 1, "published once")
        #expect(successes == 1)
        _ = png
        #expect(loader.phase.response?.image.pixelSize != nil)
    }

    @Test("an observed ImageTask has the size before its response; the UIKit controller reports it once, before the image")
    @available(macOS 14.0, *)
    func taskAndController() async throws {
        let (fixture, pipeline, png) = try await start()
        defer { Task { await fixture.tearDown() } }
        let seenAt = Locked<[Int64]>([])
        let box = Locked<ImageTask?>(nil)
        let task = pipeline.imageTask(with: ImageRequest(url: fixture.url("/photo.png")), progress: { received, _ in
            if box.withLock({ $0?.imageSize }) != nil { seenAt.withLock { $0.append(received) } }
        })
        box.withLock { $0 = task }
        _ = try await task.response
        #expect(task.imageSize == PixelSize(width: 256, height: 192))
        let firstSeen = try #require(seenAt.withLock { $0 }.first)
        #expect(firstSeen < Int64(png.count), "the size was there before the last byte")

        // Another image: the first is on disk now, and a disk hit arrives whole at once.
        fixture.server.serve("/other.png", LoopbackResponse(
            headers: ["Content-Type": "image/png"], body: png, chunkSize: 2_048, chunkDelay: .milliseconds(2)
        ))
        var events: [String] = []
        let controller = ImageViewLoadingController(pipeline: fixture.makePipeline(), scheduler: ManualScheduler(clock: fixture.clock))
        controller.onImageSize = { (size: PixelSize) in events.append("size \(size)") }
        controller.onDisplay = { (display: ImageViewLoadingController.Display) in if case .image = display { events.append("image") } }
        controller.setRequest(ImageRequest(url: fixture.url("/other.png")), fittingWidth: 100, height: 75, scale: 1)
        await controller.loader.settle()
        #expect(events == ["size 256x192", "image"])

        // From memory, whole at once: the image's own size, once; again for a reused cell.
        events = []
        let cached = ImageViewLoadingController(pipeline: controller.loader.pipeline, scheduler: ManualScheduler(clock: fixture.clock))
        cached.onImageSize = { (size: PixelSize) in events.append("size \(size)") }
        cached.setRequest(ImageRequest(url: fixture.url("/other.png")), fittingWidth: 100, height: 75, scale: 1)
        cached.setRequest(ImageRequest(url: fixture.url("/other.png")), fittingWidth: 100, height: 75, scale: 1)
        cached.prepareForReuse()
        cached.setRequest(ImageRequest(url: fixture.url("/other.png")), fittingWidth: 100, height: 75, scale: 1)
        #expect(events == ["size 256x192", "size 256x192"])
    }

    // MARK: Joining a download under way (virtual time on a simulated 3G link)

    /// A pipeline on a simulated 3G link and a 256x192 PNG of noise (about 200 KB, several
    /// seconds on it) served at `/photo.png`.
    private func simulated(_ fixture: ScriptedFixture) -> (SimulatedNetwork, ImagePipeline, URL, Int) {
        let network = SimulatedNetwork(profile: .threeG)
        let pipeline = fixture.makePipeline {
            $0.dataLoader = network
            $0.linkClock = network.clock
        }
        let png = ImageFixtures.png(width: 256, height: 192, seed: 4)
        return (network, pipeline, network.serve("/photo.png", png), png.count)
    }

    /// Runs `network` until the photo's transfer has delivered more than its header and less than
    /// half its body.
    private func runIntoTheBody(_ network: SimulatedNetwork, _ pipeline: ImagePipeline, total: Int) async {
        let started = await network.run(pipeline) { network.deliveredBytes(of: "/photo.png") > 4_096 }
        #expect(started)
        #expect(network.deliveredBytes(of: "/photo.png") < total / 2, "the body is still mostly to come")
    }

    /// A prefetch of the photo on the simulated link, run into its body, and a row's loader.
    private func prefetchedIntoTheBody(
        _ fixture: ScriptedFixture
    ) async -> (network: SimulatedNetwork, pipeline: ImagePipeline, url: URL, prefetcher: ImagePrefetcher, loader: ImageLoader) {
        let (network, pipeline, url, total) = simulated(fixture)
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [ImageRequest(url: url)])
        await runIntoTheBody(network, pipeline, total: total)
        let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
        return (network, pipeline, url, prefetcher, loader)
    }

    @Test("a view joining a prefetch's download mid-body has the size in its first loading phase, before load returns")
    func prefetchThenRow() async throws {
        try await withScriptedFixture { fixture in
            let (network, pipeline, url, prefetcher, loader) = await prefetchedIntoTheBody(fixture)
            loader.load(ImageRequest(url: url, targetPixelSize: PixelSize(width: 64, height: 48)))
            #expect(loader.phase.progress?.pixelSize == PixelSize(width: 256, height: 192), "known from the prefetch's first bytes")
            #expect(loader.task?.imageSize == PixelSize(width: 256, height: 192))

            // Another size joins the same download: its task knows the size as it starts.
            let other = pipeline.imageTask(with: ImageRequest(url: url, targetPixelSize: PixelSize(width: 128, height: 96)))
            #expect(other.imageSize == PixelSize(width: 256, height: 192))
            #expect(network.requests(for: "/photo.png").count == 1, "one download for all")
            other.cancel()
            loader.cancel()
            prefetcher.stopPrefetching()
        }
    }

    @Test("the size's publication is progress too: onProgress gets it at once, not at the next throttled tick")
    func onProgressGetsTheSize() async throws {
        try await withScriptedFixture { fixture in
            let (network, pipeline, url, total) = simulated(fixture)
            let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            var sizes: [PixelSize?] = []
            loader.callbacks.onProgress = { progress in sizes.append(progress.pixelSize) }
            loader.load(ImageRequest(url: url))
            await runIntoTheBody(network, pipeline, total: total)
            if loader.phase.progress?.pixelSize == nil {
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    loader.onChange = { phase in
                        guard phase.progress?.pixelSize != nil, loader.onChange != nil else { return }
                        loader.onChange = nil
                        done.resume()
                    }
                }
            }
            #expect(sizes.contains(PixelSize(width: 256, height: 192)))
            loader.cancel()
        }
    }

    @Test("a row that had the size from a prefetch keeps it when its load starts again after the download was let go")
    func sizeFromJoinKeptAcrossLoads() async throws {
        try await withScriptedFixture { fixture in
            let (network, pipeline, url, prefetcher, loader) = await prefetchedIntoTheBody(fixture)
            let request = ImageRequest(url: url)
            loader.load(request)
            #expect(loader.phase.progress?.pixelSize == PixelSize(width: 256, height: 192))
            loader.cancel()
            prefetcher.stopPrefetching()
            #expect(await network.run(pipeline) { pipeline.activeDataJobCount == 0 })
            loader.load(request)
            #expect(loader.task?.imageSize == nil, "a new download")
            #expect(loader.phase.progress?.pixelSize == PixelSize(width: 256, height: 192), "the row keeps its reserved space")
            loader.cancel()
        }
    }

    @Test("a load started again (cancelled, then loaded) keeps the size the view reserved its space with")
    func newLoadKeepsTheSize() async throws {
        try await withScriptedFixture { fixture in
            let (network, pipeline, url, total) = simulated(fixture)
            let loader = ImageLoader(pipeline: pipeline, scheduler: ManualScheduler(clock: fixture.clock))
            let request = ImageRequest(url: url)
            loader.load(request)
            await runIntoTheBody(network, pipeline, total: total)
            if loader.phase.progress?.pixelSize == nil {
                // The size's hop to the main actor: the next change publishes it.
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    loader.onChange = { phase in
                        guard phase.progress?.pixelSize != nil, loader.onChange != nil else { return }
                        loader.onChange = nil
                        done.resume()
                    }
                }
            }
            var sizes: [PixelSize?] = []
            loader.onChange = { (phase: ImageLoader.Phase) in if case .loading(let progress) = phase { sizes.append(progress.pixelSize) } }
            loader.cancel()
            loader.load(request)
            #expect(loader.task?.imageSize == nil, "the download was cancelled with its last subscriber: a new one starts")
            #expect(sizes.first == PixelSize(width: 256, height: 192), "the new load's first phase keeps the size")
            let task = try #require(loader.task)
            let readAgain = await network.run(pipeline) { task.imageSize != nil }
            #expect(readAgain)
            await Task.yield()
            #expect(!sizes.contains(nil), "never a loading phase without the size")
            loader.cancel()
        }
    }

    @Test("a task that observes only progress and the size does not make its job decode the stale copy; a view's task does")
    func sizeOnlyObserversDecodeNoStaleCopy() async throws {
        try await withScriptedFixture { fixture in
            fixture.servePNG("/photo.png", seed: 1, headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""])
            _ = try await fixture.makePipeline().image(for: ImageRequest(url: fixture.url("/photo.png")))
            // Changed on the server: the revalidation brings new bytes, decoded once.
            fixture.servePNG("/photo.png", seed: 2, headers: ["Cache-Control": "max-age=0", "ETag": "\"v2\""])

            let request = ImageRequest(url: fixture.url("/photo.png"), options: .skipMemoryCache)
            let progress: @Sendable (Int64, Int64?) -> Void = { _, _ in }
            let size: @Sendable (PixelSize) -> Void = { _ in }
            let stale: @Sendable (ImageResponse) -> Void = { _ in }

            let quiet = CountingDecoder()
            let quietTask = fixture.makePipeline { $0.decoder = quiet }.imageTask(
                with: request, progress: progress, preview: nil, stale: nil, size: size
            )
            _ = try await quietTask.response
            let quietDecodes = quiet.decodeCount
            #expect(quietDecodes == 1, "only the new image")

            fixture.servePNG("/photo.png", seed: 3, headers: ["Cache-Control": "max-age=0", "ETag": "\"v3\""])
            let viewing = CountingDecoder()
            let viewingTask = fixture.makePipeline { $0.decoder = viewing }.imageTask(
                with: request, progress: progress, preview: nil, stale: stale, size: size
            )
            _ = try await viewingTask.response
            let viewingDecodes = viewing.decodeCount
            #expect(viewingDecodes == 2, "a view's task shows the stored copy while it is asked")
        }
    }
}
