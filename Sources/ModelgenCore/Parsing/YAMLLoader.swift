import Foundation
import Yams

/// Composes a model file's YAML into a `Yams.Node` tree, every scalar kept a
/// string (the basic resolver): each field later reads its scalar by what it
/// expects, so `no`, `on` or `1e3` stay what the field means.
enum YAMLLoader {
    /// A file's bytes checked (UTF-8, binary, emptiness) and composed: what every YAML file modelgen reads goes through.
    static func loadDocument(_ data: Data, path: String) -> Result<(source: SourceText, root: Node), DiagnosticList> {
        SourceText.decode(data, path: path).flatMap { source in load(source).map { (source, $0) } }
    }

    /// The root node, or the diagnostics of a YAML-level failure.
    static func load(_ source: SourceText) -> Result<Node, DiagnosticList> {
        var diagnostics = DiagnosticList()
        let file = source.path
        if YAMLComplexKeys.mayHave(source.text), let (line, column) = YAMLComplexKeys.first(in: source.text) {
            diagnostics.error(.wrongKind, "a mapping key here is itself a mapping or a list (a YAML complex key); keys are plain names",
                              at: SourceLocation(file: file, line: line, column: column))
            return .failure(diagnostics)
        }
        do {
            let parser = try Parser(yaml: source.text, resolver: .basic, constructor: .default, encoding: .utf8)
            guard let root = try parser.singleRoot() else {
                diagnostics.error(.emptyFile, "the model file is empty; expected a mapping with 'model:' and 'entities:'",
                                  at: SourceLocation(file: file, line: 1, column: 1))
                return .failure(diagnostics)
            }
            return .success(root)
        } catch let error as YamlError {
            // libyaml stops at its first error; a tab in indentation is its most common cause, so say so plainly.
            let tabs = source.tabIndentationDiagnostics()
            if !tabs.isEmpty {
                diagnostics.append(contentsOf: tabs)
            } else {
                diagnostics.append(diagnostic(for: error, source: source))
            }
            return .failure(diagnostics)
        } catch {
            diagnostics.error(.yamlSyntax, "cannot read YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
            return .failure(diagnostics)
        }
    }

    private static func diagnostic(for error: YamlError, source: SourceText) -> Diagnostic {
        let file = source.path
        func at(_ mark: Mark) -> SourceLocation { SourceLocation(file: file, line: mark.line, column: mark.column) }
        func message(_ context: YamlError.Context?, _ problem: String) -> String {
            if problem.hasPrefix("Maximum nesting level") {
                return "the document nests deeper than libyaml's limit of 1000 levels"
            }
            guard let context else { return "invalid YAML: \(problem)" }
            return "invalid YAML: \(problem) (\(context.text) started at line \(context.mark.line), column \(context.mark.column))"
        }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _):
            var notes: [Diagnostic.Note] = []
            if let context { notes.append(.init("\(context.text) started here", at: at(context.mark))) }
            let id: DiagnosticID = problem.hasPrefix("Maximum nesting level") ? .yamlTooComplex : .yamlSyntax
            return Diagnostic(.error, id, message(context, problem), at: at(mark), notes: notes)
        case let .composer(context, problem, mark, _):
            let text = problem == "found undefined alias"
                ? "alias refers to an anchor that is not defined before it (aliases cannot refer forward or to themselves)"
                : message(context, problem)
            return Diagnostic(.error, .yamlSyntax, text, at: at(mark))
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            let first = at(context.mark)
            let message = "duplicate key \(keys) in one mapping; each key may appear once"
            // Yams names the first occurrence; point at the repetition when it is a block key in the same column.
            if duplicates.count == 1, let again = repetition(of: duplicates[0], after: first, in: source) {
                return Diagnostic(.error, .duplicateKey, message, at: again, notes: [.init("first written here", at: first)])
            }
            return Diagnostic(.error, .duplicateKey, message, at: first)
        case let .reader(problem, offset, _, yaml):
            var line = 1, column = 1
            if let offset {
                for character in yaml.prefix(offset) {
                    if character == "\n" || character == "\r\n" { line += 1; column = 1 } else { column += character.unicodeScalars.count }
                }
            }
            return Diagnostic(.error, .notUTF8, "invalid input: \(problem)", at: SourceLocation(file: file, line: line, column: column))
        default:
            return Diagnostic(.error, .yamlSyntax, "cannot read YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
    }

    /// The next line after `first` that holds `key:` at the same column, before the mapping ends
    /// (a line indented less than that column).
    private static func repetition(of key: String, after first: SourceLocation, in source: SourceText) -> SourceLocation? {
        let lines = source.lines
        guard first.line - 1 < lines.count else { return nil }
        for index in first.line..<lines.count {
            let scalars = Array(lines[index].unicodeScalars)
            let indent = scalars.prefix { $0 == " " }.count
            if indent == scalars.count || scalars[indent] == "#" { continue }
            if indent < first.column - 1 { return nil }
            guard indent == first.column - 1 else { continue }
            let rest = String(String.UnicodeScalarView(scalars[indent...]))
            for candidate in [key, "'\(key)'", "\"\(key)\""] where rest.hasPrefix(candidate + ":") {
                return SourceLocation(file: source.path, line: index + 1, column: first.column)
            }
        }
        return nil
    }
}
