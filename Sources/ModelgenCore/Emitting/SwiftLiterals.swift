import Foundation

/// Swift source text for names and literals: keywords escaped, strings escaped, numbers printed to round-trip.
enum SwiftLiterals {
    /// A name as a Swift identifier, in backticks when it is a keyword (`default`, `for`).
    static func identifier(_ name: String) -> String {
        SwiftNames.keywords.contains(name) || name == "Type" || name == "Protocol" ? "`\(name)`" : name
    }

    /// A Swift string literal: quotes, backslashes, control characters and `\(` escaped; invisible
    /// characters (`isInvisible`: bidirectional overrides, zero-width characters) escaped as `\u{…}`, so
    /// the source shows what the string holds ("Trojan Source"); other non-ASCII kept as is.
    static func string(_ value: String) -> String {
        // The usual case, printable ASCII without quotes or backslashes, needs no scalar-by-scalar copy.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            return "\"" + value + "\""
        }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            default:
                if isInvisible(scalar) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A Double printed so it reads back as the same value (Swift's shortest round-trip form).
    static func double(_ value: Double) -> String {
        let text = "\(value)"
        // Bytes, not `String.contains(_:)`, which on Linux goes through Foundation's string search.
        return text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "n") || $0 == UInt8(ascii: "i") } ? text : text + ".0"
    }

    /// Control, format and separator characters (Unicode categories Cc, Cf, Zl, Zp, and unassigned Cn): the ones source
    /// code should not hold as they are, since they end lines or change how text displays.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value >= 0x20 && scalar.value < 0x7F { return false }   // printable ASCII: no table lookup
        switch scalar.properties.generalCategory {
        // Unassigned code points include U+FFFE and U+FFFF (noncharacters, which no font draws).
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned: return true
        default: return false
        }
    }

    /// Lines of a doc comment (`/// …`) at an indentation. Every line break (LF, CR, CRLF, the Unicode
    /// separators) starts a new `///` line, so no text can end the comment and become code; other
    /// invisible characters are shown as `\u{…}`.
    static func docComment(_ text: String?, indent: String) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return commentLines(text).map { line in line.isEmpty ? indent + "///" : indent + "/// " + line }
    }

    /// Text for a one-line `//` comment (a file name in the header): line breaks and invisible
    /// characters shown as `\u{…}`.
    static func commentText(_ text: String) -> String {
        commentLines(text).joined(separator: "\\u{a}")
    }

    /// The text's lines, split at every line break, each with invisible characters shown as `\u{…}`.
    static func commentLines(_ text: String) -> [String] {
        if text.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A }) {   // the usual case: split at line feeds only
            // One line (most docs) as it is; else split the bytes (ASCII: no character can span a line feed).
            guard text.utf8.contains(0x0A) else { return [text] }
            return text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(Substring($0)) }
        }
        var lines: [String] = [""]
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            switch scalar {
            case "\n" where previous == "\r": continue
            case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}": lines.append("")
            case "\t": lines[lines.count - 1].unicodeScalars.append(scalar)
            default:
                if isInvisible(scalar) {
                    lines[lines.count - 1] += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    lines[lines.count - 1].unicodeScalars.append(scalar)
                }
            }
        }
        return lines
    }
}
