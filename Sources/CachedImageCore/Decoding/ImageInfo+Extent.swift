extension ImageInfo.Extent {
    /// `.displayed` when every frame lies inside `canvas`, else the box around both.
    static func union(_ canvas: PixelSize, _ frames: PixelSize?) -> Self {
        guard let frames, frames.width > canvas.width || frames.height > canvas.height else { return .displayed }
        return .coded(PixelSize.boundingBox(canvas, frames))
    }
}

extension PixelSize {
    /// The smallest size, anchored at the origin, that holds both (just `size` when `other` is `nil`).
    static func boundingBox(_ other: PixelSize?, _ size: PixelSize) -> PixelSize {
        guard let other else { return size }
        return PixelSize(width: max(other.width, size.width), height: max(other.height, size.height))
    }
}
