import Yams

/// The keys a mapping allows: a set to look keys up, the declared order to list them in messages.
struct KeySet: Sendable {
    let ordered: [String]
    let set: Set<String>
    init(_ keys: [String]) {
        ordered = keys
        set = Set(keys)
    }
}

/// Reads YAML nodes as the schema expects them, turning every mismatch into a
/// diagnostic at the node's position. Also bounds the work an alias-heavy
/// document can cause: every node read spends from a budget proportional to
/// the file size, so an alias bomb ends in one error within milliseconds.
final class NodeReader {
    let file: String
    private(set) var diagnostics = DiagnosticList()
    private var budget: Int
    private let initialBudget: Int
    private(set) var budgetExhausted = false

    init(file: String, byteCount: Int) {
        self.file = file
        // A document without aliases has fewer nodes than bytes; aliases may at most double the walk.
        budget = 2 * byteCount + 10_000
        initialBudget = budget
    }

    /// Takes over what a reader of another part of the same document (read on another thread) found:
    /// its diagnostics, in their order, and the budget it spent, so the two together spend no more
    /// than one reader may (`at`: where to report it when only the sum is over).
    func absorb(_ other: NodeReader, at node: Node) {
        diagnostics.append(contentsOf: other.diagnostics.all)
        guard !budgetExhausted else { return }
        budget -= other.initialBudget - other.budget
        if other.budgetExhausted {
            budgetExhausted = true
        } else if budget < 0 {
            budget = 0
            _ = spend(node)
        }
    }

    /// True for `key:` with nothing after it (an empty plain scalar, not `''`).
    func isEmpty(_ node: Node) -> Bool {
        if case .scalar(let s) = node { return s.string.isEmpty && s.style == .plain }
        return false
    }

    func location(_ node: Node) -> SourceLocation {
        location(node.mark)
    }

    /// A scalar's position from its own mark (`Node.mark` copies the whole scalar to read it).
    func location(_ mark: Mark?) -> SourceLocation {
        SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    func error(_ id: DiagnosticID, _ message: String, at node: Node, notes: [Diagnostic.Note] = []) {
        diagnostics.error(id, message, at: location(node), notes: notes)
    }

    func error(_ id: DiagnosticID, _ message: String, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
        diagnostics.error(id, message, at: location, notes: notes)
    }

    func warning(_ id: DiagnosticID, _ message: String, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
        diagnostics.warning(id, message, at: location, notes: notes)
    }

    /// Spends one unit of the node budget; false (after one diagnostic) once it is exhausted.
    func spend(_ node: Node) -> Bool {
        if budgetExhausted { return false }
        budget -= 1
        if budget < 0 {
            budgetExhausted = true
            error(.yamlTooComplex, "aliases expand to too many nodes (more than twice the file's size); the document is refused", at: node)
            return false
        }
        return true
    }

    /// Spends `units` of the node budget when it holds them all; false, spending nothing and reporting
    /// nothing, when it does not.
    func spend(units: Int) -> Bool {
        guard !budgetExhausted, budget >= units else { return false }
        budget -= units
        return true
    }

    private func kindName(_ node: Node) -> String {
        switch node {
        case .scalar(let s): return s.string.isEmpty && s.style == .plain ? "nothing" : "a scalar"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        default: return "an alias" // Yams 6's alias case (Yams 5 has none)
        }
    }

    // MARK: Mappings

    /// One entry of a mapping: its key text and nodes.
    struct Entry {
        var key: String
        var value: Node
        var keyLocation: SourceLocation
    }

    /// The entries of a mapping node, or nil (with an error) if it is not a mapping.
    /// Keys must be scalars; with `allowedKeys`, unknown keys are reported (with a suggestion) and dropped.
    func entries(of node: Node, _ what: @autoclosure () -> String, allowedKeys: KeySet? = nil) -> [Entry]? {
        guard spend(node) else { return nil }
        guard case .mapping(let mapping) = node else {
            error(.wrongKind, "expected a mapping for \(what()), found \(kindName(node))", at: node)
            return nil
        }
        var result: [Entry] = []
        result.reserveCapacity(mapping.count)
        for index in mapping.indices {
            let (keyNode, value) = mapping[index]
            guard spend(keyNode) else { return nil }
            guard case .scalar(let scalar) = keyNode else {
                error(.wrongKind, "expected a name as key in \(what()), found \(kindName(keyNode))", at: keyNode)
                continue
            }
            let key = scalar.string
            if let allowedKeys, !allowedKeys.set.contains(key) {
                let allowed = allowedKeys.ordered.joined(separator: ", ")
                var notes: [Diagnostic.Note] = []
                if let suggestion = Suggestions.closest(to: key, in: allowedKeys.ordered) {
                    notes.append(.init("did you mean '\(suggestion)'?"))
                }
                let extra = key == "<<" ? " (YAML merge keys are not supported)" : ""
                error(.unknownKey, "unknown key '\(key)' in \(what())\(extra); allowed keys: \(allowed)", at: keyNode, notes: notes)
                continue
            }
            result.append(Entry(key: key, value: value, keyLocation: location(scalar.mark)))
        }
        return result
    }

    // MARK: Scalars

    /// The text of a scalar node; nil (with an error) for a collection or an empty value.
    func string(_ node: Node, _ what: @autoclosure () -> String, allowEmpty: Bool = false) -> Located<String>? {
        guard spend(node) else { return nil }
        guard case .scalar(let scalar) = node else {
            error(.wrongKind, "expected a single value for \(what()), found \(kindName(node))", at: node)
            return nil
        }
        if scalar.string.isEmpty && (scalar.style == .plain || !allowEmpty) {
            error(.wrongKind, "expected a value for \(what()), found nothing", at: node)
            return nil
        }
        return Located(scalar.string, at: location(scalar.mark))
    }

    /// `true` or `false`, nothing else.
    func bool(_ node: Node, _ what: @autoclosure () -> String) -> Located<Bool>? {
        guard let text = string(node, what()) else { return nil }
        switch text.value {
        case "true": return Located(true, at: text.location)
        case "false": return Located(false, at: text.location)
        default:
            let lowered = text.value.lowercased()
            let guess = ["yes", "y", "on", "1", "true"].contains(lowered) ? "true"
                : ["no", "n", "off", "0", "false"].contains(lowered) ? "false" : nil
            let notes = guess.map { [Diagnostic.Note("did you mean '\($0)'?")] } ?? []
            error(.invalidValue, "expected 'true' or 'false' for \(what()), found '\(text.value)'", at: node, notes: notes)
            return nil
        }
    }

    /// A non-negative decimal integer.
    func count(_ node: Node, _ what: @autoclosure () -> String) -> Located<Int>? {
        guard let text = string(node, what()) else { return nil }
        guard !text.value.isEmpty, text.value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text.value) else {
            error(.invalidValue, "expected a non-negative whole number for \(what()), found '\(text.value)'", at: node)
            return nil
        }
        return Located(value, at: text.location)
    }

    /// One of an enumeration's raw values, with a suggestion when misspelt.
    func choice<E: RawRepresentable & CaseIterable>(_ node: Node, _ what: @autoclosure () -> String, as type: E.Type) -> Located<E>?
    where E.RawValue == String {
        guard let text = string(node, what()) else { return nil }
        if let value = E(rawValue: text.value) { return Located(value, at: text.location) }
        let options = E.allCases.map(\.rawValue)
        let notes = Suggestions.note(for: text.value, in: options).map { [Diagnostic.Note($0)] } ?? []
        error(.invalidValue, "unknown \(what()) '\(text.value)'; expected one of: \(options.joined(separator: ", "))", at: node, notes: notes)
        return nil
    }

    // MARK: Lists

    /// The items of a list node; nil (with an error) if it is not a list.
    func items(of node: Node, _ what: @autoclosure () -> String) -> [Node]? {
        guard spend(node) else { return nil }
        guard case .sequence(let sequence) = node else {
            error(.wrongKind, "expected a list for \(what()), found \(kindName(node))", at: node)
            return nil
        }
        return Array(sequence)
    }

    /// A list of scalar strings.
    func strings(_ node: Node, _ what: @autoclosure () -> String) -> [Located<String>]? {
        guard let items = items(of: node, what()) else { return nil }
        return items.compactMap { string($0, "an item of \(what())") }
    }

    /// A `userInfo` mapping: names to scalar values.
    func userInfo(_ node: Node, _ what: @autoclosure () -> String) -> [UserInfoEntry] {
        guard let entries = entries(of: node, "userInfo of \(what())") else { return [] }
        return entries.compactMap { entry in
            guard let value = string(entry.value, "userInfo '\(entry.key)' of \(what())", allowEmpty: true) else { return nil }
            return UserInfoEntry(key: Located(entry.key, at: entry.keyLocation), value: value)
        }
    }
}
