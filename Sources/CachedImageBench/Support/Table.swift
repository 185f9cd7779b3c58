/// A Markdown table printed to standard output (so the run can be pasted into BENCHMARKS.md).
struct Table {
    let title: String
    let columns: [String]
    private var rows: [[String]] = []

    init(_ title: String, columns: [String]) {
        self.title = title
        self.columns = columns
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    func print(note: String? = nil) {
        Swift.print("\n### \(title)\n")
        if let note { Swift.print(note + "\n") }
        Swift.print("| " + columns.joined(separator: " | ") + " |")
        Swift.print("|" + columns.enumerated().map { $0.offset == 0 ? "---" : "---:" }.joined(separator: "|") + "|")
        for row in rows {
            Swift.print("| " + row.joined(separator: " | ") + " |")
        }
    }
}
