import Foundation

/// The text of a model file, checked for what YAML itself cannot report well:
/// emptiness, binary content, invalid UTF-8 and tab indentation.
public struct SourceText: Sendable {
    /// The path as given.
    public let path: String
    /// The decoded text (a UTF-8 byte order mark removed).
    public let text: String
    /// The UTF-8 size of the file in bytes.
    public let byteCount: Int

    /// The largest file modelgen reads: 10 MB, or `MODELGEN_MAX_FILE_BYTES` (a model of 10,000 entities
    /// is about 9 MB). Past it, a file is refused (by its size, before it is read, where the command
    /// line reads it), so a runaway or hostile input cannot hold the tool's memory and time.
    public static let maximumByteCount: Int = {
        if let text = ProcessInfo.processInfo.environment["MODELGEN_MAX_FILE_BYTES"], let value = Int(text), value > 0 { return value }
        return 10 * 1024 * 1024
    }()

    /// The diagnostic for a file over `maximumByteCount`; nil within it.
    public static func sizeProblem(_ byteCount: Int, path: String) -> Diagnostic? {
        guard byteCount > maximumByteCount else { return nil }
        // Megabytes with one decimal, or bytes below one (a limit set low for a test reads "40 bytes", not "0.0 MB").
        func size(_ n: Int) -> String { n < 1_048_576 ? "\(n) bytes" : String(format: "%.1f MB", Double(n) / 1_048_576) }
        return Diagnostic(.error, .fileTooLarge, "the file is \(size(byteCount)), over the \(size(maximumByteCount)) modelgen reads; set MODELGEN_MAX_FILE_BYTES to read larger files",
                          at: SourceLocation(file: path, line: 1, column: 1))
    }

    /// The diagnostic for the file at `path` when its size is over `maximumByteCount`, read from the file
    /// system before the file is; nil within it (or when its size cannot be read: reading it will say why).
    public static func sizeProblem(ofFileAt path: String) -> Diagnostic? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else { return nil }
        return sizeProblem(size, path: path)
    }

    /// Decodes file bytes (refusing binary data, invalid UTF-8 and files over `maximumByteCount`), or returns the diagnostics that make the file unusable.
    public static func decode(_ data: Data, path: String) -> Result<SourceText, DiagnosticList> {
        var diagnostics = DiagnosticList()
        let start = SourceLocation(file: path, line: 1, column: 1)
        if let problem = sizeProblem(data.count, path: path) {
            diagnostics.append(problem)
            return .failure(diagnostics)
        }
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }

        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            diagnostics.error(.emptyFile, "the model file is empty; expected a mapping with 'model:' and 'entities:'", at: start)
            return .failure(diagnostics)
        }
        // Walk the bytes once: find the first invalid UTF-8 sequence or control byte, with its line and column.
        var line = 1, column = 1, i = 0
        while i < bytes.count {
            let b = bytes[i]
            let length: Int
            switch b {
            case 0x0A: line += 1; column = 1; i += 1; continue
            case 0x0D where i + 1 < bytes.count && bytes[i + 1] == 0x0A: i += 1; continue   // CR LF: the LF ends the line
            case 0x0D: line += 1; column = 1; i += 1; continue                               // a lone CR ends a line too (as in libyaml)
            case 0x09, 0x20...0x7E: length = 1
            case 0x00...0x1F, 0x7F:
                let here = SourceLocation(file: path, line: line, column: column)
                diagnostics.error(.notUTF8, String(format: "binary data: control byte 0x%02X; a model file is UTF-8 text", b), at: here)
                return .failure(diagnostics)
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: length = 0
            }
            var valid = length > 0 && i + length <= bytes.count
            if valid && length > 1 {
                for k in 1..<length where bytes[i + k] & 0xC0 != 0x80 { valid = false }
                if valid {
                    let second = bytes[i + 1]
                    if (b == 0xE0 && second < 0xA0) || (b == 0xED && second > 0x9F) ||
                        (b == 0xF0 && second < 0x90) || (b == 0xF4 && second > 0x8F) { valid = false }
                }
            }
            if !valid {
                let here = SourceLocation(file: path, line: line, column: column)
                diagnostics.error(.notUTF8, String(format: "invalid UTF-8 (byte 0x%02X); save the model file as UTF-8", b), at: here)
                return .failure(diagnostics)
            }
            let isLineBreak = (length == 2 && b == 0xC2 && bytes[i + 1] == 0x85) ||                              // NEL
                (length == 3 && b == 0xE2 && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9))   // LS, PS
            i += length
            if isLineBreak { line += 1; column = 1 } else { column += 1 }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return .success(SourceText(path: path, text: text, byteCount: bytes.count))
    }

    /// The text's lines, numbered as libyaml numbers them in its marks: a line ends at LF, CR LF, a lone CR,
    /// NEL (U+0085), LS (U+2028) or PS (U+2029). (Splitting the `String` at `"\n"` would not do: Swift
    /// reads CR LF as one `Character`, so a file with Windows line endings would be one line.)
    var lines: [Substring] { Self.lines(of: text) }

    /// `text` split into lines as `lines` describes.
    static func lines(of text: String) -> [Substring] {
        var result: [Substring] = []
        let utf8 = text.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            let next = utf8.index(after: index)
            let byte = utf8[index]
            var end: String.Index?          // where the line break ends, when `index` starts one
            switch byte {
            case 0x0A: end = next
            case 0x0D: end = next != utf8.endIndex && utf8[next] == 0x0A ? utf8.index(after: next) : next
            case 0xC2 where next != utf8.endIndex && utf8[next] == 0x85: end = utf8.index(after: next)
            case 0xE2 where utf8[next...].starts(with: [0x80, 0xA8]) || utf8[next...].starts(with: [0x80, 0xA9]):
                end = utf8.index(next, offsetBy: 2)
            default: break
            }
            if let end {
                result.append(Substring(text.unicodeScalars[start..<index]))
                start = end
                index = end
            } else {
                index = next
            }
        }
        result.append(Substring(text.unicodeScalars[start..<utf8.endIndex]))
        return result
    }

    /// Tabs in the indentation of any line: YAML indents with spaces only.
    func tabIndentationDiagnostics() -> [Diagnostic] {
        var result: [Diagnostic] = []
        var lineNumber = 0
        for line in lines {
            lineNumber += 1
            var column = 1
            for scalar in line.unicodeScalars {
                if scalar == "\t" {
                    result.append(Diagnostic(.error, .yamlSyntax, "tab character in indentation; YAML indents with spaces only",
                                             at: SourceLocation(file: path, line: lineNumber, column: column)))
                    break
                }
                if scalar != " " { break }
                column += 1
            }
        }
        return result
    }
}
