import Foundation
import TourModel

/// Columns of text aligned under a header, for the commands that list things.
package struct TextTable {
    package init(header: [String], rows: [[String]] = []) {
        self.header = header
        self.rows = rows
    }

    package var header: [String]
    package var rows: [[String]] = []

    /// Cells are made one line each (text from the service may hold newlines or control
    /// characters), so the columns stay columns.
    package func render() -> String {
        let all = ([header] + rows).map { $0.map { TerminalText.sanitized($0, keepingNewlines: false) } }
        let widths = header.indices.map { column in
            all.map { $0.indices.contains(column) ? TerminalWidth.of($0[column]) : 0 }.max() ?? 0
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : TerminalWidth.padded(cell, to: widths[column])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
