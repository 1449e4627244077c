import Foundation

/// Parsing and validation of one model file in one call: what `modelgen validate` runs per file.
public struct ModelCheck: Sendable {
    /// The parsed model, when the file had the shape of one.
    public var model: ObjectModel?
    /// Every diagnostic of parsing and validation, sorted by position.
    public var diagnostics: [Diagnostic]
    /// Inferred template variables (empty when the model did not parse).
    public var templateVariables: [String: [TemplateVariable]]
    /// The row fields of aggregate templates (empty when the model did not parse).
    public var aggregateRows: [String: [AggregateRowField]] = [:]
    /// The YAML tree the model was read from (see `SyntaxTree`).
    public var syntaxTree: SyntaxTree?

    /// True when an error was found.
    public var hasErrors: Bool { diagnostics.hasErrors }

    /// The model, validated, when it has no errors: what `ModelEmitter` generates code from.
    public var validated: ValidatedModel? {
        guard !hasErrors, let model else { return nil }
        return ValidatedModel(model: model, templateVariables: templateVariables, aggregateRows: aggregateRows, warnings: diagnostics)
    }

    /// Parses and validates model bytes; with `strict`, warnings count as errors.
    public static func run(data: Data, path: String, strict: Bool = false) -> ModelCheck {
        let parsed = ModelParser.parse(data: data, path: path)
        var diagnostics = parsed.diagnostics
        var variables: [String: [TemplateVariable]] = [:]
        var rows: [String: [AggregateRowField]] = [:]
        if let model = parsed.model {
            let validation = ModelValidator.validate(model, inChunks: true)
            // `entities:` with no value is already an error of the parser; the rules' warning would repeat it.
            let parserSaidNoEntities = diagnostics.contains { $0.id == .noEntities }
            diagnostics += validation.diagnostics.filter { !(parserSaidNoEntities && $0.id == .noEntities) }
            variables = validation.templateVariables
            rows = validation.aggregateRows
        }
        // An aliased node is read once per alias: report each of its problems once.
        var seen: Set<Diagnostic> = []
        diagnostics = diagnostics.sortedByLocation().filter { seen.insert($0).inserted }
        if strict { diagnostics = diagnostics.promotingWarnings() }
        return ModelCheck(model: parsed.model, diagnostics: diagnostics, templateVariables: variables, aggregateRows: rows, syntaxTree: parsed.syntaxTree)
    }

    /// Parses and validates model text.
    public static func run(text: String, path: String, strict: Bool = false) -> ModelCheck {
        run(data: Data(text.utf8), path: path, strict: strict)
    }
}

/// The version of modelgen.
public enum ModelgenVersion {
    /// Semantic version of the tool and the model format support.
    public static let current = "0.1.0"
}
