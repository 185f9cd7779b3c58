import Foundation

/// Decoders for bytes the core does not recognise itself (SVG, PDF, a house format), each
/// matched by a sniffing closure, by the response's MIME type, or both.
///
/// The pipeline consults the registry only for bytes that ``ImageInfo/init(data:)`` does not
/// recognise (where a body would otherwise fail with
/// ``ImagePipeline/Error/notAnImage(url:contentType:)``); the formats the core parses keep the
/// configuration's ``ImagePipeline/Configuration/decoder``. The first registration that matches
/// wins. Matched bytes are ``ImageFormat/other`` with ``ImageInfo/registeredDecoder`` set to the
/// registration's name; they are cached on disk and in memory like any image.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.decoderRegistry.register(
///     SVGDecoder(), name: "svg", mimeTypes: ["image/svg+xml"],
///     matching: { data in data.prefix(256).contains(Array("<svg".utf8)) }
/// )
/// ```
///
/// The header does not give such an image's size, so the pixel limit is applied to what the
/// decoder produces: it is asked for at most the request's target size, and without one for
/// at most the largest square within ``ImagePipeline/Configuration/maximumPixelCount``; a result
/// over the limit fails with ``ImagePipeline/Error/imageTooLarge(url:size:maximumPixelCount:)``.
/// A decoder that throws fails the request with
/// ``ImagePipeline/Error/decodingFailed(url:underlying:)``.
public struct ImageDecoderRegistry: Sendable {
    /// One registered decoder and what it matches.
    package struct Registration: Sendable {
        /// The name given at registration (``ImageInfo/registeredDecoder`` for matched bytes).
        public let name: String
        /// The decoder.
        public let decoder: any ImageDecoding
        /// Lowercased media types (`image/svg+xml`) whose responses this decoder takes.
        public let mimeTypes: Set<String>
        /// Whether bytes are this decoder's, by their content.
        let matches: (@Sendable (Data) -> Bool)?
        /// The size of the image the matched bytes hold, when their header gives it (a video's
        /// presentation size): the decoding budget, the pixel limit and the disk policy use it.
        var pixelSize: (@Sendable (Data) -> PixelSize?)? = nil
    }

    /// The registrations, in the order they are tried.
    package private(set) var registrations: [Registration] = []

    /// An empty registry.
    public init() {}

    /// Registers `decoder` for bytes the core does not recognise that `matching` accepts, or
    /// whose response's `Content-Type` is one of `mimeTypes` (parameters such as `; charset=`
    /// are ignored).
    ///
    /// - Parameters:
    ///   - decoder: Decodes the matched bytes. `info.pixelSize` is `nil` for them.
    ///   - name: Identifies the registration; a later registration with the same name replaces it.
    ///   - mimeTypes: Media types that select the decoder, compared case-insensitively;
    ///     `type/*` selects every subtype of `type` (`image/*`, `video/*`).
    ///   - matching: Looks at the bytes (cheaply: it runs for every unrecognised body, and on
    ///     every disk read of such bytes). `nil` to match by MIME type only.
    public mutating func register(
        _ decoder: any ImageDecoding,
        name: String,
        mimeTypes: [String] = [],
        matching: (@Sendable (Data) -> Bool)? = nil
    ) {
        register(decoder, name: name, mimeTypes: mimeTypes, matching: matching, pixelSize: nil)
    }

    /// Registers `decoder` as ``register(_:name:mimeTypes:matching:)`` does, with `pixelSize`
    /// reading the size of the image in matched bytes (``ImageInfo/pixelSize``; `nil` when it
    /// cannot tell).
    package mutating func register(
        _ decoder: any ImageDecoding,
        name: String,
        mimeTypes: [String],
        matching: (@Sendable (Data) -> Bool)?,
        pixelSize: (@Sendable (Data) -> PixelSize?)?
    ) {
        registrations.removeAll { $0.name == name }
        registrations.append(Registration(
            name: name, decoder: decoder, mimeTypes: Set(mimeTypes.map { $0.lowercased() }), matches: matching,
            pixelSize: pixelSize
        ))
    }

    /// The first registration that takes `data` (its closure, else the media type of `contentType`).
    func registration(for data: Data, contentType: String?) -> Registration? {
        guard !registrations.isEmpty else { return nil }
        let mediaType = contentType.map(Self.mediaType)
        return registrations.first { registration in
            if let matches = registration.matches, matches(data) { return true }
            guard let mediaType else { return false }
            return registration.mimeTypes.contains(mediaType) || Self.wildcard(of: mediaType).map(registration.mimeTypes.contains) == true
        }
    }

    /// The registration called `name`.
    func registration(named name: String) -> Registration? {
        registrations.first { $0.name == name }
    }

    /// What the pipeline knows about bytes: the core's sniffing, else a registered decoder's
    /// match (format ``ImageFormat/other``, the size its registration reads, if any), else `nil`.
    func info(for data: Data, contentType: String?) -> ImageInfo? {
        if let info = ImageInfo(data: data) { return info }
        guard !data.isEmpty, let registration = registration(for: data, contentType: contentType) else { return nil }
        var info = ImageInfo(format: .other, pixelSize: registration.pixelSize?(data))
        info.registeredDecoder = registration.name
        return info
    }

    /// The decoder for bytes described by `info`: their registered decoder, else `fallback`.
    func decoder(for info: ImageInfo, fallback: any ImageDecoding) -> any ImageDecoding {
        info.registeredDecoder.flatMap { registration(named: $0)?.decoder } ?? fallback
    }

    /// `image/*` from `image/svg+xml`: the registration for every subtype of a type; `nil` for
    /// a media type without a subtype (a bare `video` names no type).
    static func wildcard(of mediaType: String) -> String? {
        guard let slash = mediaType.firstIndex(of: "/"), slash != mediaType.startIndex,
              mediaType.index(after: slash) != mediaType.endIndex else { return nil }
        return String(mediaType[..<slash]) + "/*"
    }

    /// `image/svg+xml` from `Image/SVG+XML; charset=utf-8`.
    static func mediaType(_ contentType: String) -> String {
        String(contentType.split(separator: ";", maxSplits: 1).first ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
    }
}
