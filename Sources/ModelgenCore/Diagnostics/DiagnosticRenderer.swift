import Foundation

/// The output formats of `--diagnostics`.
public enum DiagnosticFormat: String, CaseIterable, Sendable {
    /// `FILE:LINE:COL: severity: message [MG0401]`, the form compilers print (with a source excerpt on a terminal).
    case text
    /// One JSON object per line: `{"column":…,"file":…,"id":"MG0401","line":…,"message":…,"name":"inverse-mismatch","notes":[…],"severity":…}`.
    case json
    /// GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=MG0401 inverse-mismatch::message`.
    case github
}

/// Turns diagnostics into text in one of the `DiagnosticFormat`s.
public struct DiagnosticRenderer: Sendable {
    /// The format to write.
    public var format: DiagnosticFormat
    /// Returns the text of a source line (1-based) of a file, for the excerpt and caret; nil for none.
    public var sourceLine: @Sendable (_ file: String, _ line: Int) -> String?

    /// Creates a renderer; pass `sourceLine` to show each diagnostic's line with a caret (text format only).
    public init(format: DiagnosticFormat, sourceLine: @escaping @Sendable (String, Int) -> String? = { _, _ in nil }) {
        self.format = format
        self.sourceLine = sourceLine
    }

    /// The rendered text of one diagnostic with its notes, ending in a newline.
    public func render(_ diagnostic: Diagnostic) -> String {
        switch format {
        case .text: return renderText(diagnostic)
        case .json: return renderJSON(diagnostic)
        case .github: return renderGitHub(diagnostic)
        }
    }

    private func renderText(_ d: Diagnostic) -> String {
        var out = "\(d.location): \(d.severity.rawValue): \(d.message) [\(d.id.code)]\n"
        out += excerpt(at: d.location)
        for note in d.notes {
            let location = note.location ?? d.location
            out += "\(location): note: \(note.message)\n"
            if note.location != nil && note.location != d.location { out += excerpt(at: location) }
        }
        return out
    }

    private func excerpt(at location: SourceLocation) -> String {
        guard let line = sourceLine(location.file, location.line) else { return "" }
        // The caret sits under the column, copying tabs so it lines up in any terminal.
        var pad = ""
        for (i, scalar) in line.unicodeScalars.enumerated() where i < location.column - 1 {
            pad += scalar == "\t" ? "\t" : " "
        }
        return line + "\n" + pad + "^\n"
    }

    private struct JSONDiagnostic: Encodable {
        struct JSONNote: Encodable {
            var file: String, line: Int, column: Int, message: String
        }
        var file: String, line: Int, column: Int, severity: String, id: String, name: String, message: String, notes: [JSONNote]
    }

    private func renderJSON(_ d: Diagnostic) -> String {
        let value = JSONDiagnostic(
            file: d.location.file, line: d.location.line, column: d.location.column,
            severity: d.severity.rawValue, id: d.id.code, name: d.id.name, message: d.message,
            notes: d.notes.map { n in
                let l = n.location ?? d.location
                return .init(file: l.file, line: l.line, column: l.column, message: n.message)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private func renderGitHub(_ d: Diagnostic) -> String {
        // Workflow commands: properties escape % \r \n : , ; the message escapes % \r \n.
        func escapeData(_ s: String) -> String {
            s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
                .replacingOccurrences(of: "\n", with: "%0A")
        }
        func escapeProperty(_ s: String) -> String {
            escapeData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
        }
        let command = d.severity == .note ? "notice" : d.severity.rawValue
        var message = d.message
        for note in d.notes { message += "\nnote: " + note.message }
        let l = d.location
        return "::\(command) file=\(escapeProperty(l.file)),line=\(l.line),col=\(l.column),title=\(escapeProperty(d.id.label))::\(escapeData(message))\n"
    }
}
