/// The slot behind ``ImagePipeline/shared`` (kept under a lock there): the app's replacement,
/// or the default pipeline, made on the first read that finds no replacement, so an app that
/// sets its own pipeline at launch never opens the default disk cache.
struct SharedPipeline: Sendable {
    private var current: ImagePipeline?
    private let makeDefault: @Sendable () -> ImagePipeline

    init(makeDefault: @escaping @Sendable () -> ImagePipeline = { ImagePipeline() }) {
        self.makeDefault = makeDefault
    }

    /// The pipeline readers get: the replacement, else the default (made now if not yet).
    var pipeline: ImagePipeline {
        mutating get {
            if let current { return current }
            let made = makeDefault()
            current = made
            return made
        }
    }

    /// Makes `pipeline` the one readers get from now on; what they read before is theirs.
    mutating func replace(with pipeline: ImagePipeline) {
        current = pipeline
    }
}
