#if canImport(UIKit)
import CachedImage
import UIKit

/// A `UICollectionView` cell showing a photo through `CachedImageViewLoader`: the placeholder
/// at once, the image decoded for the cell's size, never the previous row's image after reuse.
public final class PhotoCell: UICollectionViewCell {
    public let imageView = UIImageView()
    private lazy var loader: CachedImageViewLoader = {
        let loader = CachedImageViewLoader(imageView: imageView)
        loader.placeholder = UIImage(systemName: "photo")
        loader.failureImage = UIImage(systemName: "exclamationmark.triangle")
        // Scrolled away before it loaded: finish at low priority, so scrolling back is instant.
        loader.reuseBehavior = .lowerPriority(to: .low)
        return loader
    }()

    public override init(frame: CGRect) {
        super.init(frame: frame)
        imageView.contentMode = .scaleAspectFill
        imageView.clipsToBounds = true
        imageView.frame = contentView.bounds
        imageView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        contentView.addSubview(imageView)
    }

    @available(*, unavailable)
    public required init?(coder: NSCoder) { fatalError("init(coder:) is not supported") }

    public func configure(with photo: Photo) {
        loader.load(photo.url)
    }

    public override func prepareForReuse() {
        super.prepareForReuse()
        loader.prepareForReuse()
    }
}
#endif
