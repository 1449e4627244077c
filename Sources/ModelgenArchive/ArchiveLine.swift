/// One line of an archived model: a kind (`E` entity, `A` attribute, `R` relationship, `F` fetched
/// property, `U` uniqueness constraint, `I` index, `D` a computed property's dependencies), its
/// positional fields, and named options left out when they have their default. Fields and values are
/// escaped so that a line holds no tab, line break or carriage return; option names have no `=`.
///
/// The generator writes these lines from a model file and the runtime from a model description; both
/// go through this one type, so equal models make equal bytes on every platform.
public struct ArchiveLine: Sendable, Hashable {
    /// The line's kind (one letter).
    public var kind: String
    /// The fields every line of the kind has, in order.
    public var fields: [String]
    /// Named values, in the order they were added (writers add them in one fixed order).
    public var options: [(name: String, value: String)]

    /// A line of `kind` with `fields` and no options.
    public init(_ kind: String, _ fields: [String]) {
        self.kind = kind
        self.fields = fields
        self.options = []
    }

    /// Adds a named value.
    public mutating func set(_ name: String, _ value: String) {
        options.append((name, value))
    }

    /// The value of a named option, nil when the line does not have it.
    public func option(_ name: String) -> String? {
        options.first { $0.name == name }?.value
    }

    /// The line's text: kind, fields and `name=value` options, tab-separated and escaped.
    public var text: String {
        var parts = [kind] + fields.map(Self.escape)
        for option in options { parts.append(Self.escape(option.name) + "=" + Self.escape(option.value)) }
        return parts.joined(separator: "\t")
    }

    /// Reads a line written by `text`, with `fieldCount` positional fields; nil when it is not one.
    public init?(text: String, fieldCount: Int) {
        let parts = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard let kind = parts.first, parts.count >= 1 + fieldCount else { return nil }
        self.kind = kind
        self.fields = parts[1...fieldCount].map(Self.unescape)
        var options: [(String, String)] = []
        for part in parts.dropFirst(1 + fieldCount) {
            guard let equals = part.firstIndex(of: "=") else { return nil }
            options.append((Self.unescape(String(part[..<equals])), Self.unescape(String(part[part.index(after: equals)...]))))
        }
        self.options = options
    }

    /// Lines are equal when their text is.
    public static func == (a: ArchiveLine, b: ArchiveLine) -> Bool { a.text == b.text }
    /// Hashes the text.
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// `\` `\t` `\n` `\r` and `=` written as two characters each.
    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "=" || $0 == "\r\n" }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "=": out += "\\e"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var out = ""
        var escaped = false
        for scalar in text.unicodeScalars {
            if escaped {
                switch scalar {
                case "t": out += "\t"
                case "n": out += "\n"
                case "r": out += "\r"
                case "e": out += "="
                default: out.unicodeScalars.append(scalar)
                }
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
