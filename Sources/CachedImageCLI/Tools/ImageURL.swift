import Foundation

/// Checks a URL given on the command line or in a list before anything is loaded.
enum ImageURL {
    /// `text` as an `http`, `https` or `file` URL, or a ``CLIError`` saying what is wrong.
    static func parse(_ text: String) throws -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased() else {
            throw CLIError("invalid URL '\(text)': expected http://, https:// or file://")
        }
        switch scheme {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else {
                throw CLIError("invalid URL '\(text)': no host")
            }
        case "file":
            break
        default:
            throw CLIError("invalid URL '\(text)': unsupported scheme '\(scheme)' (use http, https or file)")
        }
        return url
    }
}
