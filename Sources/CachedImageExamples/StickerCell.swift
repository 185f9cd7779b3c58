#if canImport(UIKit) && canImport(ImageIO) && !os(watchOS)
import CachedImage
import UIKit

/// A collection view cell playing a sticker: set the image in `cellForItemAt` (before the cell
/// is in a window); it decodes at the cell's size, plays while seen and stops, keeping one frame,
/// when it leaves (or is kept hidden for reuse).
public final class StickerCell: UICollectionViewCell {
    public let sticker = CachedAnimatedImageView()

    public override init(frame: CGRect) {
        super.init(frame: frame)
        sticker.frame = contentView.bounds
        sticker.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        sticker.contentMode = .scaleAspectFit
        contentView.addSubview(sticker)
    }

    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        contentView.addSubview(sticker)
    }

    /// Shows `url`, decoded for the sticker's bounds at its screen's scale.
    public func configure(with url: URL?) {
        sticker.setImage(with: ImageRequest(url: url))
    }
}

/// The collection view's side: tells each cell when it is displayed, for what the view cannot
/// see by itself (a cell covered by another view).
@MainActor
public final class StickerGridDelegate: NSObject, UICollectionViewDelegate {
    public func collectionView(_ collectionView: UICollectionView, willDisplay cell: UICollectionViewCell, forItemAt indexPath: IndexPath) {
        (cell as? StickerCell)?.sticker.isDisplayed = true
    }

    public func collectionView(_ collectionView: UICollectionView, didEndDisplaying cell: UICollectionViewCell, forItemAt indexPath: IndexPath) {
        (cell as? StickerCell)?.sticker.isDisplayed = false
    }
}
#endif
