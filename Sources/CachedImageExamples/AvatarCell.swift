#if canImport(UIKit)
import CachedImage
import UIKit

/// The smallest cell that shows a remote image: one loader per cell, `load` when configuring,
/// `prepareForReuse()` on reuse (a reused cell never shows the previous row's image).
public final class AvatarCell: UICollectionViewCell {
    private lazy var loader: CachedImageViewLoader = {
        let imageView = UIImageView()
        backgroundView = imageView   // UIKit sizes it to the cell
        return CachedImageViewLoader(imageView: imageView)
    }()

    public func configure(with url: URL?) { loader.load(url) }

    public override func prepareForReuse() {
        super.prepareForReuse()
        loader.prepareForReuse()
    }
}
#endif
