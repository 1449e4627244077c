/// Repeated warnings of one kind, shown once: a model whose 57 optional numeric attributes each get
/// MG0301 prints the first of them, saying how many more there are and where the next few are.
/// Errors are never collapsed (every error is shown). Machine-readable output (`--diagnostics json`)
/// keeps every warning; this is for people reading a terminal or a pull request's annotations.
public enum RepeatedWarnings {
    /// How many further places the collapsed warning names.
    public static let placesShown = 3

    /// `diagnostics` with each kind of warning that occurs more than once in a file kept only at its
    /// first place, its message naming the count and the next places; everything else as it was, in order.
    public static func collapse(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        struct Kind: Hashable {
            var file: String
            var id: DiagnosticID
        }
        var places: [Kind: [SourceLocation]] = [:]
        for diagnostic in diagnostics where diagnostic.severity == .warning {
            places[Kind(file: diagnostic.location.file, id: diagnostic.id), default: []].append(diagnostic.location)
        }
        guard places.values.contains(where: { $0.count > 1 }) else { return diagnostics }
        var shown: Set<Kind> = []
        var result: [Diagnostic] = []
        for diagnostic in diagnostics {
            let kind = Kind(file: diagnostic.location.file, id: diagnostic.id)
            guard diagnostic.severity == .warning, let all = places[kind], all.count > 1 else {
                result.append(diagnostic)
                continue
            }
            guard shown.insert(kind).inserted else { continue }
            let next = all.dropFirst().prefix(placesShown).map { "\($0.line):\($0.column)" }
            let more = all.count - 1 > placesShown ? ", …" : ""
            var first = diagnostic
            first.message += " (and \(all.count - 1) more like it in this file, at \(next.joined(separator: ", "))\(more); --diagnostics json lists each)"
            result.append(first)
        }
        return result
    }
}
