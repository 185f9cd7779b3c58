#if canImport(UIKit)
import CachedImage
import UIKit

/// A cell that paints a feed photo's BlurHash while the photo loads, then shows a progressive
/// JPEG scan by scan: `placeholderHash` on `CachedImageViewLoader`, `.progressivePreviews` on the
/// request.
public final class FeedPhotoCell: UICollectionViewCell {
    public let imageView = UIImageView()
    private lazy var loader = CachedImageViewLoader(imageView: imageView)

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

    public func configure(with url: URL?, blurHash: String?) {
        loader.placeholderHash = blurHash.map(HashPlaceholder.blurHash) // before load(_:)
        loader.load(ImageRequest(url: url, options: [.progressivePreviews]))
    }

    public override func prepareForReuse() {
        super.prepareForReuse()
        loader.prepareForReuse()
    }
}
#endif
