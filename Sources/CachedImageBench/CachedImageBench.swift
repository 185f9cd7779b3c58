import Foundation

/// `swift run -c release cachedimage-bench [--quick] [--only sections]`: every benchmark of
/// issue 5, printed as Markdown tables.
@main
struct CachedImageBench {
    static func main() async throws {
        let options = BenchOptions(arguments: CommandLine.arguments)
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("cachedimage-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        let start = Stopwatch.nanos()
        print("# cachedimage-bench \(options.quick ? "--quick" : "(full)")" + (options.link.isUnlimited ? "" : " --link \(options.link.name)"))
        print("\n\(machineDescription())")
        if options.runs("memory") { MemoryCacheBench(options: options).run() }
        if options.runs("memloop") { MemoryLoopBench(options: options).run() }
        if options.runs("firstframe") {
            FirstFrameBench(options: options).run()
            EvictionStallBench(options: options).run()
        }
        if options.runs("hitratio") { HitRatioBench(options: options).run() }
        if options.runs("disk") { try DiskCacheBench(options: options, root: root).run() }
        if options.runs("diskwrite") { try DiskWriteBench(options: options, root: root).run() }
        if options.runs("diskwriteloop") { try DiskWriteBench(options: options, root: root).loop() }
        if options.runs("e2e") { try await EndToEndBench(options: options, root: root).run() }
        if options.runs("diskhit") { try await DiskHitBench(options: options, root: root).run() }
        if options.runs("scaling") { try ScalingBench(options: options, root: root).run() }
        if options.runs("decodememory") { try DecodeMemoryBench(options: options).run() }
        if options.runs("drawn") { try DrawnSizeBench(options: options).run() }
        if options.runs("firstdisk") { try SynchronousDiskReadBench(options: options, root: root).run() }
        if options.runs("thumbnails") { try await ThumbnailRelaunchBench(options: options, root: root).run() }
        if options.runs("animation") { try await AnimationMemoryBench(options: options).run(root: root) }
        if options.runs("parsers") { try ParserWorstCaseBench(options: options).run() }
        if options.runs("placeholders") { try PlaceholderDecodeBench(options: options).run() }
        if options.runs("progressive") { try await ProgressivePreviewBench(options: options, root: root).run() }
        if options.runs("processed") { try await ProcessedDeliveryBench(options: options, root: root).run() }
        print("\nTotal time: \(Format.number(Double(Stopwatch.nanos() - start) / 1e9, 1)) s")
    }

    static func machineDescription() -> String {
        let info = ProcessInfo.processInfo
        var cpu = "unknown CPU"
        if let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let name = line.split(separator: ":", maxSplits: 1).last {
            cpu = name.trimmingCharacters(in: .whitespaces)
        }
        #if os(Linux)
        let system = "Linux"
        #elseif os(macOS)
        let system = "macOS"
        #else
        let system = "unknown OS"
        #endif
        return "Machine: \(system) \(info.operatingSystemVersionString), \(cpu), \(info.activeProcessorCount) active cores, "
            + "\(info.physicalMemory / 1_073_741_824) GB RAM. Date: \(Date())."
    }
}
