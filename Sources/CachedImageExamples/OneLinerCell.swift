#if canImport(UIKit)
import CachedImage
import UIKit

/// Kingfisher's `imageView.kf.setImage(with:)` in one line, from `cellForRowAt`: the image
/// view's own loader is attached on first use and handles reuse (a reused cell never shows the
/// previous row's image).
@MainActor
public func configureContactCell(_ cell: UITableViewCell, name: String, avatar: URL?) {
    cell.textLabel?.text = name
    // Sized by its image: loads after the cell's first layout, at the pipeline's cap.
    cell.imageView?.cachedImage.setImage(with: avatar, placeholder: UIImage(systemName: "person.circle"))
}
#endif
