import Foundation

/// One image of the demo feed: where the server serves it, its bytes and its HTTP identity.
struct FeedImage: Sendable {
    /// What kind of picture a feed cell shows; decides the format and the size range.
    enum Kind: String, Sendable, CaseIterable {
        case avatar, thumbnail, photo
    }

    /// Position in the generated feed: day 1's images first (0 is the top of day 1's feed), then
    /// each later day's batch.
    let index: Int
    /// The day the image is published: 1 for the initial feed, 3 and later for the week's batches.
    let day: Int
    let kind: Kind
    /// The path on the server, laid out as CDNs and APIs commonly do: avatars at
    /// `/users/<id>/avatar.png` and photos at `/posts/<id>/original.jpg` (last path components
    /// that repeat), thumbnails at `/feed/thumbnail-0042.jpg` (unique).
    let path: String
    let data: Data
    let contentType: String
    /// A strong validator: the generator seed and the byte count.
    let etag: String
    let width: Int
    let height: Int
}
