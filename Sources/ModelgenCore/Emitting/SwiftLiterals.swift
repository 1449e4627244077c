import Foundation

/// Swift source text for names and literals: keywords escaped, strings escaped, numbers printed to round-trip.
public enum SwiftLiterals {
    /// A name as a Swift identifier, in backticks when it is a keyword (`default`, `for`).
    public static func identifier(_ name: String) -> String {
        SwiftNames.keywords.contains(name) || name == "Type" || name == "Protocol" ? "`\(name)`" : name
    }

    /// A Swift string literal: quotes, backslashes, control characters and `\(` escaped; non-ASCII kept as is.
    public static func string(_ value: String) -> String {
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
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A Double printed so it reads back as the same value (Swift's shortest round-trip form).
    public static func double(_ value: Double) -> String {
        let text = "\(value)"
        return text.contains(".") || text.contains("e") || text.contains("n") || text.contains("i") ? text : text + ".0"
    }

    /// Lines of a doc comment (`/// …`) at an indentation.
    public static func docComment(_ text: String?, indent: String) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.isEmpty ? indent + "///" : indent + "/// " + line
        }
    }
}
