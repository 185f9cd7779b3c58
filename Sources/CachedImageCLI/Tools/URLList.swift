import Foundation

/// A list of URLs for `cachedimage prefetch`: one per line; blank lines and lines starting with
/// `#` are ignored; repeated URLs count once.
struct URLList: Sendable, Hashable {
    /// A line that is not a usable URL.
    struct InvalidLine: Sendable, Hashable {
        var lineNumber: Int
        var message: String
    }

    var urls: [URL]
    var invalidLines: [InvalidLine]
    /// Lines that repeated an earlier URL.
    var duplicateCount: Int

    init(text: String) {
        var urls: [URL] = []
        var seen: Set<String> = []
        var invalid: [InvalidLine] = []
        var duplicates = 0
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            do {
                let url = try ImageURL.parse(line)
                if seen.insert(url.absoluteString).inserted {
                    urls.append(url)
                } else {
                    duplicates += 1
                }
            } catch {
                invalid.append(InvalidLine(lineNumber: offset + 1, message: (error as? CLIError)?.description ?? "\(error)"))
            }
        }
        self.urls = urls
        self.invalidLines = invalid
        self.duplicateCount = duplicates
    }

    /// Reads the list at `path`.
    static func read(path: String) throws -> URLList {
        let expanded = NSString(string: path).expandingTildeInPath
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: expanded))
        } catch {
            throw CLIError("cannot read the URL list \(path): \((error as NSError).localizedFailureReason ?? error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError("the URL list \(path) is not UTF-8 text")
        }
        return URLList(text: text)
    }
}
