// CachedImage's privacy manifest (PrivacyInfo.xcprivacy, next to this file) travels in this
// target's resource bundle. A C target, because SwiftPM gives a Swift target with resources a
// generated `Bundle.module` accessor, which Swift 6 rejects against SDKs where `Bundle` is not
// yet `Sendable` (iOS 16); a C target gets no accessor. Nothing here is called.
