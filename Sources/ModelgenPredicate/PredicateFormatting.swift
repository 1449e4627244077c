/// Canonical NSPredicate-format text for an AST, so a parsed predicate can be
/// printed back (for generated code, error messages and `description`).
extension Expression: CustomStringConvertible {
    public var description: String {
        switch kind {
        case .keyPath(let components):
            // A key spelled like a reserved word begins with `#`, as it was written (found by fuzz-predicate:
            // `t = #YES` printed as `t == YES`, which reads back as the Boolean).
            if case .key(let name)? = components.first?.kind, ReservedWords.all.contains(name.uppercased()) {
                return "#" + components.keyPathText
            }
            return components.keyPathText
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .string(let value):
            var escaped = ""
            for c in value.unicodeScalars {
                switch c {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                case "\t": escaped += "\\t"
                case "\r": escaped += "\\r"
                default: escaped.unicodeScalars.append(c)
                }
            }
            return "\"" + escaped + "\""
        case .number(let text): return text
        case .bool(let value): return value ? "TRUE" : "FALSE"
        case .null: return "NIL"
        case .aggregate(let items): return "{" + items.map(\.description).joined(separator: ", ") + "}"
        case .variableKeyPath(let name, let components):
            return "$" + name + (components.first.map { if case .index = $0.kind { "" } else { "." } } ?? "") + components.keyPathText
        case .subquery(let collection, let variable, let predicate, let suffix):
            let tail = suffix.isEmpty ? "" : (suffix.first.map { if case .index = $0.kind { "" } else { "." } } ?? "") + suffix.keyPathText
            return "SUBQUERY(\(collection), $\(variable), \(predicate))" + tail
        case .function(let name, let arguments):
            let args = arguments.map(\.description).joined(separator: ", ")
            if name == "now" { return "now()" }
            return name.uppercased() == "CAST" ? "CAST(\(args))" : "\(name):(\(args))"
        }
    }
}

extension Comparison: CustomStringConvertible {
    public var description: String {
        let prefix = modifier == .direct ? "" : modifier.rawValue + " "
        return "\(prefix)\(left) \(self.operator.rawValue)\(options.text) \(right)"
    }
}

extension Predicate: CustomStringConvertible {
    public var description: String { format(parentPrecedence: 0) }

    private var precedence: Int {
        switch self {
        case .or: return 1
        case .and: return 2
        case .not: return 3
        case .comparison, .constant: return 4
        }
    }

    private func format(parentPrecedence: Int) -> String {
        let text: String
        switch self {
        case .constant(let value, _): text = value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let c): text = c.description
        case .not(let inner, _): text = "NOT " + inner.format(parentPrecedence: 3)
        case .and(let items, _): text = items.map { $0.format(parentPrecedence: 2) }.joined(separator: " AND ")
        case .or(let items, _): text = items.map { $0.format(parentPrecedence: 1) }.joined(separator: " OR ")
        }
        return precedence < parentPrecedence ? "(" + text + ")" : text
    }
}
