import Foundation
import Testing

/// Each library target that calls one of Apple's required-reason APIs ships a
/// `PrivacyInfo.xcprivacy` declaring that category, with no tracking and no collected data; a
/// target's manifest declares nothing its code does not call.
///
/// Target `X`'s manifest is the resource of a code-less C target `XPrivacy` that `X` depends on
/// (a Swift target with resources gets a generated `Bundle.module` accessor that Swift 6 rejects
/// against the iOS 16 SDK, where `Bundle` is not `Sendable`).
@Suite("Privacy manifests")
struct PrivacyManifestTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The required-reason API categories, each with the calls that put a target in it
    /// (Apple's "Describing use of required reason API" list), as regular expressions.
    private static let categories: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            #"\bstat\("#, #"\bfstat\("#, #"\bfstatat\("#, #"\blstat\("#, #"getattrlist"#,
            #"\bcreationDate\b"#, #"\bfileModificationDate\b"#, #"contentModificationDateKey"#,
            #"creationDateKey"#, #"FileAttributeKey\.modificationDate"#, #"attributesOfItem"#,
        ],
        "NSPrivacyAccessedAPICategorySystemBootTime": [#"\bsystemUptime\b"#, #"mach_absolute_time"#],
        "NSPrivacyAccessedAPICategoryDiskSpace": [
            #"volumeAvailableCapacity"#, #"volumeTotalCapacity"#, #"\bsystemFreeSize\b"#, #"\bsystemSize\b"#,
            #"\bstatvfs\b"#, #"\bstatfs\b"#, #"\bfstatfs\b"#, #"\bfstatvfs\b"#,
        ],
        "NSPrivacyAccessedAPICategoryUserDefaults": [#"\bUserDefaults\b"#],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": [#"\bactiveInputModes\b"#],
    ]

    /// The approved reason this package gives for each category it uses.
    private static let reasons = [
        // Timestamps of the cache's own files, inside the app's (or App Group's) container.
        "NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"],
        // Time between events inside the app (animation frame timing), never sent off the device.
        "NSPrivacyAccessedAPICategorySystemBootTime": ["35F9.1"],
    ]

    /// The categories a target's Swift code uses (comment lines left out).
    private func categoriesUsed(inTarget target: String) throws -> Set<String> {
        let directory = Self.root.appendingPathComponent("Sources/\(target)")
        let files = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil))
        var used = Set<String>()
        for case let file as URL in files where file.pathExtension == "swift" {
            let code = try String(contentsOf: file, encoding: .utf8)
                .split(separator: "\n")
                .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                .joined(separator: "\n")
            for (category, patterns) in Self.categories
            where patterns.contains(where: { code.range(of: $0, options: .regularExpression) != nil }) {
                used.insert(category)
            }
        }
        return used
    }

    private func manifest(ofTarget target: String) throws -> [String: Any]? {
        let url = Self.root.appendingPathComponent("Sources/\(target)Privacy/PrivacyInfo.xcprivacy")
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    @Test("every library target declares exactly the required-reason APIs it calls", arguments: [
        "CachedImageCore", "CachedImage", "CCachedImageChecksum", "CachedImageExamples",
    ])
    func manifestMatchesCode(target: String) throws {
        let used = try categoriesUsed(inTarget: target)
        guard let manifest = try manifest(ofTarget: target) else {
            #expect(used.isEmpty, "\(target) calls \(used.sorted()) but has no PrivacyInfo.xcprivacy")
            return
        }
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        #expect((manifest["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
        #expect((manifest["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
        let accessed = try #require(manifest["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var declared: [String: [String]] = [:]
        for entry in accessed {
            let category = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            declared[category] = try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String])
        }
        #expect(Set(declared.keys) == used, "\(target)'s manifest declares \(declared.keys.sorted()), its code uses \(used.sorted())")
        for (category, reasons) in declared {
            #expect(reasons == Self.reasons[category], "\(target): \(category) gives \(reasons)")
        }
    }

    @Test("the build copies each manifest into its target's resource bundle, as apps receive it", arguments: [
        "CachedImageCore",
    ])
    func manifestIsInTheResourceBundle(target: String) throws {
        let source = try Data(contentsOf: Self.root.appendingPathComponent("Sources/\(target)Privacy/PrivacyInfo.xcprivacy"))
        // The target depends on the one that carries its manifest, so every app that links it
        // gets the bundle.
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = manifest.split(separator: "\n").first { $0.contains(".target(name: \"\(target)\",") }
        #expect(declaration?.contains("\"\(target)Privacy\"") == true, "\(target) does not depend on \(target)Privacy")
        // The bundle sits next to the test product: `<bin>/CachedImage_<target>Privacy.resources`
        // on Linux, `<bin>/CachedImage_<target>Privacy.bundle` on Apple platforms (the test runner is
        // inside `<bin>/<tests>.xctest` there).
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var copied: Data?
        for _ in 0..<5 where copied == nil {
            for bundle in ["CachedImage_\(target)Privacy.resources", "CachedImage_\(target)Privacy.bundle"] {
                for inner in ["PrivacyInfo.xcprivacy", "Contents/Resources/PrivacyInfo.xcprivacy"] where copied == nil {
                    copied = try? Data(contentsOf: directory.appendingPathComponent("\(bundle)/\(inner)"))
                }
            }
            directory.deleteLastPathComponent()
        }
        #expect(copied == source, "no copy of \(target)'s PrivacyInfo.xcprivacy in the CachedImage_\(target)Privacy bundle")
    }
}
