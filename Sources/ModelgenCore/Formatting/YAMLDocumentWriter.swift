/// Prints a `YAMLDocument` in modelgen's canonical layout: two-space indentation, block mappings
/// for sections, `{ ... }` and `[ ... ]` for short collections that fit in `lineWidth` columns,
/// scalars plain where YAML reads them back unchanged and quoted otherwise, comments where they were.
struct YAMLDocumentWriter {
    /// The longest line a flow collection may make.
    static let lineWidth = 120

    /// The text, and for each 1-based output line that starts an entry with an origin, that origin.
    static func write(_ document: YAMLDocument) -> (text: String, origins: [Int: SourceLocation]) {
        var writer = YAMLDocumentWriter()
        for comment in document.headerComments { writer.lines.append("#" + comment) }
        writer.writeMapping(document.root, indent: 0, firstLinePrefix: nil)
        for comment in document.trailingComments { writer.lines.append("#" + comment) }
        return (writer.lines.joined(separator: "\n") + "\n", writer.origins)
    }

    private var lines: [String] = []
    private var origins: [Int: SourceLocation] = [:]

    // MARK: Block layout

    private mutating func writeMapping(_ mapping: YAMLMapping, indent: Int, firstLinePrefix: String?) {
        let pad = String(repeating: " ", count: indent)
        for (index, entry) in mapping.entries.enumerated() {
            if mapping.spacesBlocks, index > 0,
               Self.isCollection(entry.value) || Self.isCollection(mapping.entries[index - 1].value) { lines.append("") }
            for comment in entry.comments.leading { lines.append(pad + "#" + comment) }
            let prefix = (index == 0 ? firstLinePrefix ?? pad : pad) + Self.key(entry.key) + ":"
            if let origin = entry.origin { origins[lines.count + 1] = origin }
            writeValue(entry.value, prefix: prefix, indent: indent, trailing: entry.comments.trailing)
        }
    }

    private mutating func writeValue(_ value: YAMLValue, prefix: String, indent: Int, trailing: String?) {
        let comment = trailing.map { "  #" + $0 } ?? ""
        switch value {
        case .scalar(let scalar) where scalar.kind == .token && scalar.value.isEmpty:
            // `Tag:` with nothing after it (an entity or composite without properties) stays so: `''`
            // would be an empty string, which those places refuse.
            lines.append(prefix + comment)
        case .scalar(let scalar):
            if scalar.kind == .text, let block = Self.literalBlock(scalar.value) {
                lines.append(prefix + " " + block.header + comment)
                let pad = String(repeating: " ", count: indent + 2)
                lines += block.lines.map { $0.isEmpty ? "" : pad + $0 }
            } else {
                lines.append(prefix + " " + Self.scalarText(scalar, inFlow: false) + comment)
            }
        case .mapping(let mapping):
            if mapping.isEmpty {
                lines.append(prefix + " {}" + comment)
            } else if mapping.layout == .flowIfFits, let flow = Self.flowText(value), fits(prefix + " " + flow) {
                lines.append(prefix + " " + flow + comment)
            } else {
                lines.append(prefix + comment)
                writeMapping(mapping, indent: indent + 2, firstLinePrefix: nil)
            }
        case .sequence(let sequence):
            if sequence.items.isEmpty {
                lines.append(prefix + " []" + comment)
            } else if sequence.layout == .flowIfFits, let flow = Self.flowText(value), fits(prefix + " " + flow) {
                lines.append(prefix + " " + flow + comment)
            } else {
                lines.append(prefix + comment)
                let pad = String(repeating: " ", count: indent + 2)
                for item in sequence.items {
                    for leading in item.comments.leading { lines.append(pad + "#" + leading) }
                    if case .mapping(let mapping) = item.value, !mapping.isEmpty, Self.flowText(item.value) == nil
                        || !fits(pad + "- " + (Self.flowText(item.value) ?? "")) {
                        // `- key: value` with the mapping's other keys under the first.
                        var mapping = mapping
                        if let trailing = item.comments.trailing, mapping.entries[0].comments.trailing == nil {
                            mapping.entries[0].comments.trailing = trailing
                        }
                        writeMapping(mapping, indent: indent + 4, firstLinePrefix: pad + "- ")
                    } else {
                        writeValue(item.value, prefix: pad + "-", indent: indent + 2, trailing: item.comments.trailing)
                    }
                }
            }
        }
    }

    private func fits(_ line: String) -> Bool {
        line.count <= Self.lineWidth
    }

    private static func isCollection(_ value: YAMLValue) -> Bool {
        if case .scalar = value { return false }
        return true
    }

    // MARK: Flow layout

    /// The value on one line, or nil when it cannot be (comments inside, several lines, a block-only mapping).
    static func flowText(_ value: YAMLValue) -> String? {
        switch value {
        case .scalar(let scalar):
            if scalar.kind == .token && scalar.value.isEmpty { return nil }   // nothing: written in block layout
            if scalar.value.contains("\n") || scalar.value.contains("\r") {
                return scalar.kind == .text && literalBlock(scalar.value) != nil ? nil : scalarText(scalar, inFlow: true)
            }
            return scalarText(scalar, inFlow: true)
        case .mapping(let mapping):
            if mapping.isEmpty { return "{}" }
            guard mapping.layout == .flowIfFits else { return nil }
            var parts: [String] = []
            for entry in mapping.entries {
                guard entry.comments.isEmpty, let text = flowText(entry.value) else { return nil }
                parts.append(key(entry.key) + ": " + text)
            }
            return "{ " + parts.joined(separator: ", ") + " }"
        case .sequence(let sequence):
            guard sequence.layout == .flowIfFits else { return nil }
            var parts: [String] = []
            for item in sequence.items {
                guard item.comments.isEmpty, let text = flowText(item.value) else { return nil }
                parts.append(text)
            }
            return "[" + parts.joined(separator: ", ") + "]"
        }
    }

    // MARK: Scalars

    static func key(_ key: String) -> String {
        isPlainSafe(key, inFlow: true) ? key : quoted(key)
    }

    /// The scalar as written: plain when that reads back as the same string, else quoted.
    static func scalarText(_ scalar: YAMLScalar, inFlow: Bool) -> String {
        switch scalar.kind {
        case .token:
            return isPlainSafe(scalar.value, inFlow: inFlow) ? scalar.value : quoted(scalar.value)
        case .text:
            return readsAsWords(scalar.value) && isPlainSafe(scalar.value, inFlow: inFlow) ? scalar.value : quoted(scalar.value)
        case .expression:
            return quoted(scalar.value)
        }
    }

    /// A `|` block for text of several lines, nil when a block cannot hold it exactly.
    static func literalBlock(_ text: String) -> (header: String, lines: [String])? {
        guard text.contains("\n"), !text.contains("\r") else { return nil }
        var body = Substring(text)
        var header = "|-"
        if body.hasSuffix("\n") {
            body.removeLast()
            header = "|"
            if body.hasSuffix("\n") || body.isEmpty { return nil }
        }
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first, !first.isEmpty, first.first != " ", first.first != "\t" else { return nil }
        guard lines.allSatisfy({ line in line.unicodeScalars.allSatisfy { !isControl($0) || $0 == "\t" } }) else { return nil }
        return (header, lines)
    }

    /// True when YAML reads `text` written plain as exactly `text` (a string, in block or flow context).
    static func isPlainSafe(_ text: String, inFlow: Bool) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
        if first == " " || last == " " || last == ":" { return false }
        if "?:,[]{}#&*!|>'\"%@`".unicodeScalars.contains(first) { return false }
        if first == "-" {
            let rest = text.unicodeScalars.dropFirst()
            if rest.isEmpty || rest.first == " " || text.hasPrefix("---") { return false }
        }
        if text.contains(": ") || text.contains(" #") { return false }
        if inFlow, text.unicodeScalars.contains(where: { ",[]{}:".unicodeScalars.contains($0) }) { return false }
        return !text.unicodeScalars.contains { isControl($0) || $0 == "\t" || $0 == "\u{FEFF}" }
    }

    /// True for text made of words (letters, digits, `_ . $ / -`, single spaces) that no YAML reader takes
    /// for a boolean, null or number.
    static func readsAsWords(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" || first == "$" else {
            return false
        }
        if text.contains("  ") { return false }
        guard text.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.$/- ".unicodeScalars.contains($0) })
        else { return false }
        let special: Set<String> = ["true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf"]
        return !special.contains(text.lowercased())
    }

    /// Characters written escaped: C0 and C1 controls, the line and paragraph separators, and what YAML
    /// does not allow in a file at all (U+FFFE and U+FFFF, which libyaml refuses as "control characters").
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
            || scalar.value == 0xFFFE || scalar.value == 0xFFFF
    }

    /// Single quotes when the text has nothing to escape, else double quotes with escapes.
    static func quoted(_ text: String) -> String {
        if !text.unicodeScalars.contains(where: { isControl($0) || $0 == "\t" || $0 == "\u{FEFF}" }) {
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where isControl(scalar) || scalar == "\u{FEFF}":
                out += scalar.value <= 0xFF ? "\\x" + hex(scalar.value, 2) : "\\u" + hex(scalar.value, 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func hex(_ value: UInt32, _ digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(digits - text.count, 0)) + text
    }
}
