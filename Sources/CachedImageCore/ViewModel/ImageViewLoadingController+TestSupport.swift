/// Inspection for tests: nothing in the library calls it.
extension ImageViewLoadingController {
    /// Number of loads handed off at a lower priority and still running.
    var handedOffCount: Int { handedOff.count }
}
