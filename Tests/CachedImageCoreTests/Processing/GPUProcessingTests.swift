import Foundation
import Testing
@testable import CachedImageCore

/// Core Image processors render on the GPU only in the foreground: a load that finishes in the
/// background (or in an extension, never told its state) renders on the CPU, not black.
@Suite("Processing: GPU only in the foreground")
struct GPUProcessingTests {
    @Test("GPU work only while active: in the background and in an extension (unknown), the CPU")
    func lifecycleRule() {
        #expect(GPUProcessing.isAllowed(in: .active))
        #expect(!GPUProcessing.isAllowed(in: .background))
        #expect(!GPUProcessing.isAllowed(in: .unknown))
    }

    @Test("the app's lifecycle, as the gate is told it, decides: background -> CPU, active again -> GPU")
    func followsTheApp() {
        let gate = BackgroundExecutionGate()
        gate.install(ScriptedAssertionProvider(), lifecycle: .active)
        #expect(GPUProcessing.isAllowed(by: gate))
        gate.didEnterBackground()
        #expect(!GPUProcessing.isAllowed(by: gate), "a load finishing after didEnterBackground renders on the CPU")
        gate.didBecomeActive()
        #expect(GPUProcessing.isAllowed(by: gate))
        let appExtension = BackgroundExecutionGate()
        appExtension.install(ScriptedAssertionProvider(), lifecycle: .unknown)
        #expect(!GPUProcessing.isAllowed(by: appExtension))
    }
}
