/// A model the validator accepted, with what validation inferred (the typed template variables of its
/// fetch requests): the only input `ModelEmitter` takes, so code is never generated from a model that
/// was not checked. Only validation makes one (`ModelCheck.validated`, `Modelgen.generate`).
public struct ValidatedModel: Sendable {
    /// The model, free of errors.
    public let model: ObjectModel
    /// Each fetch request's template variables (`$NAME`), typed from the predicate.
    public let templateVariables: [String: [TemplateVariable]]
    /// The warnings validation reported.
    public let warnings: [Diagnostic]

    init(model: ObjectModel, templateVariables: [String: [TemplateVariable]], warnings: [Diagnostic]) {
        self.model = model
        self.templateVariables = templateVariables
        self.warnings = warnings
    }
}
