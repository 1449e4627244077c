import Foundation
import Yams

/// Composes a model file's YAML into a `Yams.Node` tree (`YAMLComposer`), every scalar kept a
/// string: each field later reads its scalar by what it expects, so `no`, `on` or `1e3` stay what
/// the field means.
package enum YAMLLoader {
    /// A file's bytes checked (UTF-8, binary, emptiness) and composed: what every YAML file modelgen reads goes through.
    package static func loadDocument(_ data: Data, path: String) -> Result<(source: SourceText, root: Node), DiagnosticList> {
        SourceText.decode(data, path: path).flatMap { source in load(source).map { (source, $0) } }
    }

    /// The root node, or the diagnostics of a YAML-level failure.
    static func load(_ source: SourceText) -> Result<Node, DiagnosticList> {
        var diagnostics = DiagnosticList()
        let file = source.path
        switch YAMLComposer.compose(source) {
        case .success(let root?):
            return .success(root)
        case .success(nil):
            diagnostics.error(.emptyFile, "the model file is empty; expected a mapping with 'model:' and 'entities:'",
                              at: SourceLocation(file: file, line: 1, column: 1))
        case .failure(.diagnostics(let problems)):
            diagnostics.append(contentsOf: problems.all)
        case .failure(.libyaml(let error)):
            // libyaml stops at its first error; a tab in indentation is its most common cause, so say so plainly.
            let tabs = source.tabIndentationDiagnostics()
            diagnostics.append(contentsOf: tabs.isEmpty ? [diagnostic(for: error, source: source)] : tabs)
        }
        return .failure(diagnostics)
    }

    private static func diagnostic(for error: YAMLComposer.LibyamlError, source: SourceText) -> Diagnostic {
        let file = source.path
        switch error {
        case let .syntax(problem, line, column, context):
            let at = SourceLocation(file: file, line: line, column: column)
            let notes = context.map { [Diagnostic.Note("\($0.text) started here", at: SourceLocation(file: file, line: $0.line, column: $0.column))] } ?? []
            if problem.hasPrefix("Maximum nesting level") {
                return Diagnostic(.error, .yamlTooComplex, "the document nests deeper than libyaml's limit of 1000 levels", at: at, notes: notes)
            }
            let message = context.map { "invalid YAML: \(problem) (\($0.text) started at line \($0.line), column \($0.column))" } ?? "invalid YAML: \(problem)"
            return Diagnostic(.error, .yamlSyntax, message, at: at, notes: notes)
        case let .reader(problem, offset):
            // Lines end at LF (CR LF counts once); columns count Unicode scalars, as libyaml's marks do.
            var line = 1, column = 1
            for byte in source.text.utf8.prefix(offset) {
                if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
            }
            return Diagnostic(.error, .notUTF8, "invalid input: \(problem)", at: SourceLocation(file: file, line: line, column: column))
        }
    }
}
