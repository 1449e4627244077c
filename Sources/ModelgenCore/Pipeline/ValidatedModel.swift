/// A model the validator accepted, with what validation inferred (the typed template variables of its
/// fetch requests): the only input `ModelEmitter` takes, so code is never generated from a model that
/// was not checked. Only validation makes one (`ModelCheck.validated`, `Modelgen.generate`).
public struct ValidatedModel: Sendable {
    /// The model, free of errors.
    public let model: ObjectModel
    /// Each fetch request's template variables (`$NAME`), typed from the predicate.
    public let templateVariables: [String: [TemplateVariable]]
    /// Each aggregate fetch request's row fields (its group keys and columns, typed).
    public let aggregateRows: [String: [AggregateRowField]]
    /// The warnings validation reported.
    public let warnings: [Diagnostic]

    init(model: ObjectModel, templateVariables: [String: [TemplateVariable]], aggregateRows: [String: [AggregateRowField]], warnings: [Diagnostic]) {
        self.model = model
        self.templateVariables = templateVariables
        self.aggregateRows = aggregateRows
        self.warnings = warnings
    }
}
