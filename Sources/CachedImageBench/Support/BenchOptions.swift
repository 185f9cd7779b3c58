import LoopbackServer

/// Command-line options: `--quick` shrinks every workload so the whole run takes under two
/// minutes; `--only a,b` runs selected sections (memory, firstframe, hitratio, disk, diskwrite, e2e, diskhit,
/// scaling, thumbnails, decodememory, drawn, firstdisk, animation, parsers, placeholders, progressive, processed; `memloop` and `diskwriteloop`, loops for instruction and
/// system call counts, run only when named); `--corpus DIR` adds a fuzz corpus's files to `parsers`;
/// `--link NAME` makes the loopback servers (e2e, progressive) emulate a network link
/// (`LinkProfile`: loopback, the default, wifi, lte, 3g, edge, very-bad-network).
struct BenchOptions {
    var quick = false
    var sections: Set<String> = BenchOptions.allSections
    /// A folder of inputs for the parser benchmark (a fuzz corpus).
    var corpus: String?
    /// The link the loopback servers emulate.
    var link = LinkProfile.loopback

    static let allSections: Set<String> = ["memory", "firstframe", "hitratio", "disk", "diskwrite", "e2e", "diskhit", "scaling", "thumbnails", "decodememory", "drawn", "firstdisk", "animation", "parsers", "placeholders", "progressive", "processed"]

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--quick":
                quick = true
            case "--corpus":
                corpus = iterator.next()
            case "--link":
                if let name = iterator.next(), let profile = LinkProfile.named(name) {
                    link = profile
                } else {
                    print("--link takes one of: \(LinkProfile.all.map(\.name).joined(separator: ", "))")
                }
            case "--only":
                if let list = iterator.next() {
                    sections = Set(list.split(separator: ",").map(String.init))
                }
            default:
                print("usage: cachedimage-bench [--quick] [--only memory,memloop,firstframe,hitratio,disk,diskwrite,diskwriteloop,e2e,diskhit,scaling,thumbnails,decodememory,firstdisk,animation,parsers,placeholders,progressive,processed] [--corpus DIR] [--link NAME]")
            }
        }
    }

    func runs(_ section: String) -> Bool { sections.contains(section) }

    /// Picks the quick or the full value of a workload parameter.
    func pick<T>(quick quickValue: T, full fullValue: T) -> T { quick ? quickValue : fullValue }
}
