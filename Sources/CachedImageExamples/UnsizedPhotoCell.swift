#if canImport(UIKit) && !os(watchOS)
import CachedImage
import UIKit

/// The same row in a self-sizing table cell: the image view's height follows the photo's aspect
/// ratio from its first bytes (`onImageSize`), and the table is asked to lay the row out again.
public final class UnsizedPhotoCell: UITableViewCell {
    public let photoView = UIImageView()
    /// Called when the row's height changed (the table calls `performBatchUpdates(nil)`).
    public var onHeightChange: (() -> Void)?
    private lazy var heightConstraint = photoView.heightAnchor.constraint(equalTo: photoView.widthAnchor, multiplier: 3 / 4)
    private lazy var loader: CachedImageViewLoader = {
        let loader = CachedImageViewLoader(imageView: photoView)
        loader.onImageSize = { [weak self] size in self?.setAspectRatio(size.aspectRatio) }
        return loader
    }()

    public override init(style: UITableViewCell.CellStyle, reuseIdentifier: String?) {
        super.init(style: style, reuseIdentifier: reuseIdentifier)
        photoView.contentMode = .scaleAspectFit
        photoView.translatesAutoresizingMaskIntoConstraints = false
        contentView.addSubview(photoView)
        NSLayoutConstraint.activate([
            photoView.leadingAnchor.constraint(equalTo: contentView.leadingAnchor),
            photoView.trailingAnchor.constraint(equalTo: contentView.trailingAnchor),
            photoView.topAnchor.constraint(equalTo: contentView.topAnchor),
            photoView.bottomAnchor.constraint(equalTo: contentView.bottomAnchor),
            heightConstraint,
        ])
    }

    @available(*, unavailable)
    public required init?(coder: NSCoder) { fatalError("init(coder:) is not supported") }

    public func configure(with url: URL?) {
        loader.load(url)
    }

    public override func prepareForReuse() {
        super.prepareForReuse()
        loader.prepareForReuse()
        setAspectRatio(4 / 3)
    }

    private func setAspectRatio(_ ratio: Double) {
        guard ratio > 0 else { return }
        let multiplier = CGFloat(1 / ratio)
        guard abs(heightConstraint.multiplier - multiplier) > 0.001 else { return }
        heightConstraint.isActive = false
        heightConstraint = photoView.heightAnchor.constraint(equalTo: photoView.widthAnchor, multiplier: multiplier)
        heightConstraint.isActive = true
        onHeightChange?()
    }
}
#endif
