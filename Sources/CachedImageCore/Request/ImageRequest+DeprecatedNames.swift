extension ImageRequest.Options {
    /// The old name of ``reloadIgnoringLocalCacheData`` (`URLRequest.CachePolicy`'s spelling).
    @available(*, deprecated, renamed: "reloadIgnoringLocalCacheData")
    public static var reloadIgnoringCachedData: ImageRequest.Options { .reloadIgnoringLocalCacheData }

    /// The old name of ``reloadRevalidatingCacheData`` (`URLRequest.CachePolicy`'s spelling).
    @available(*, deprecated, renamed: "reloadRevalidatingCacheData")
    public static var reloadRevalidatingCachedData: ImageRequest.Options { .reloadRevalidatingCacheData }
}
