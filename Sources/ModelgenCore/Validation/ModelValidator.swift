import Foundation

/// A `$VARIABLE` of a fetch request template with the type inferred for it.
public struct TemplateVariable: Sendable, Hashable {
    /// The name as written, without `$` (`MIN_LIKES`).
    public var name: String
    /// The Swift parameter name of the generated helper (`minLikes`).
    public var parameterName: String
    /// The inferred type.
    public var type: PredicateValueType

    /// Creates a template variable.
    public init(name: String, parameterName: String, type: PredicateValueType) {
        self.name = name
        self.parameterName = parameterName
        self.type = type
    }
}

/// What validation found: diagnostics, and facts later stages need (inferred variable types).
public struct ValidationResult: Sendable {
    /// Errors and warnings, in the order found.
    public var diagnostics: [Diagnostic]
    /// The variables of each fetch request template, by template name, in order of first use.
    public var templateVariables: [String: [TemplateVariable]]
    /// The row fields of each aggregate and projection fetch request template, by template name.
    public var aggregateRows: [String: [AggregateRowField]] = [:]

    /// True when an error was found.
    public var hasErrors: Bool { diagnostics.hasErrors }
}

/// Checks a parsed model against every rule of the model format and what
/// Xcode's model editor refuses: names, inheritance, attribute values and
/// bounds, relationship inverses, predicates and derivations resolved against
/// the entity graph. Reports all problems, each at its position.
public final class ModelValidator {
    let model: ObjectModel
    let graph: EntityGraph
    var diagnostics = DiagnosticList()
    var templateVariables: [String: [TemplateVariable]] = [:]
    var aggregateRows: [String: [AggregateRowField]] = [:]
    /// Compiled regexes by pattern, shared with the validators of this model's chunks.
    let regexes: RegexCache

    /// False to check everything on the calling thread (tests compare the two ways).
    private let checksInChunks: Bool

    private init(_ model: ObjectModel, graph: EntityGraph, regexes: RegexCache = RegexCache(), checksInChunks: Bool = true) {
        self.model = model
        self.graph = graph
        self.regexes = regexes
        self.checksInChunks = checksInChunks
    }

    /// Validates a model.
    public static func validate(_ model: ObjectModel) -> ValidationResult {
        validate(model, inChunks: true)
    }

    /// Validates a model, with `inChunks` false on the calling thread alone (the result is the same);
    /// `graph` is the model's entity graph when it was built while parsing (used if it `describes` the model).
    static func validate(_ model: ObjectModel, inChunks: Bool, graph: EntityGraph? = nil) -> ValidationResult {
        let graph = graph.flatMap { $0.describes(model) ? $0 : nil } ?? EntityGraph(model)
        let validator = ModelValidator(model, graph: graph, checksInChunks: inChunks)
        validator.run()
        return ValidationResult(diagnostics: validator.diagnostics.all, templateVariables: validator.templateVariables,
                                aggregateRows: validator.aggregateRows)
    }

    private func run() {
        checkModel()
        checkComposites()
        checkEveryEntity()
        checkInheritanceCycles()
        var functions: [String: FetchRequestTemplate] = [:]
        for (template, found) in zip(model.fetchRequests, checkEveryFetchRequest()) {
            diagnostics.append(contentsOf: found)
            let function = template.functionName
            if let other = functions[function.value] {
                error(.nameCollision, "fetch requests '\(other.name.value)' and '\(template.name.value)' both generate the function '\(function.value)'; give one another swiftName", at: function.location)
            } else {
                functions[function.value] = template
            }
        }
        checkConfigurations()
    }

    /// Large models are checked in chunks of entities on all cores, each by a validator of its own (the
    /// rules of one entity read the model and the graph, and write only diagnostics and the shared
    /// regex cache); the chunks' diagnostics join in entity order, as checking the entities in turn gives them.
    private func checkEveryEntity() {
        let entities = model.entities
        let chunks = inChunks(of: entities.count) { validator, range in
            // By index: iterating the slice copied each entity whole.
            for position in range { validator.checkEntityAndProperties(entities[position]) }
            return validator.diagnostics.all
        }
        for found in chunks { diagnostics.append(contentsOf: found) }
    }

    /// Checks each fetch request (its predicate against the entity graph, its sort, its name) and
    /// infers its template variables; returns each one's diagnostics, in order. Many fetch requests are
    /// checked in chunks on all cores, as entities are.
    private func checkEveryFetchRequest() -> [[Diagnostic]] {
        let templates = model.fetchRequests
        let chunks = inChunks(of: templates.count) { validator, range in
            var found: [[Diagnostic]] = []
            for template in templates[range] {
                let start = validator.diagnostics.all.count
                validator.checkFetchRequest(template)
                found.append(Array(validator.diagnostics.all[start...]))
            }
            return (diagnostics: found, variables: validator.templateVariables, rows: validator.aggregateRows)
        }
        for chunk in chunks {
            templateVariables.merge(chunk.variables) { _, new in new }
            aggregateRows.merge(chunk.rows) { _, new in new }
        }
        return chunks.flatMap(\.diagnostics)
    }

    /// `body` over `0..<count` in consecutive ranges, each with a validator of its own, the results in
    /// order: in `chunkCount` chunks on all cores for `itemsForChunks` items or more (unless
    /// `checksInChunks` is off), else in one on this thread.
    private func inChunks<T: Sendable>(of count: Int, _ body: @Sendable (ModelValidator, Range<Int>) -> T) -> [T] {
        let chunkCount = checksInChunks && count >= Self.itemsForChunks ? Self.chunkCount : 1
        let (model, graph, regexes) = (model, graph, regexes)
        @Sendable func chunk(_ index: Int) -> T {
            body(ModelValidator(model, graph: graph, regexes: regexes), count * index / chunkCount..<count * (index + 1) / chunkCount)
        }
        return chunkCount == 1 ? [chunk(0)] : ParallelMap.map(chunkCount, chunk)
    }

    /// Fewer entities (or fetch requests) than this are checked on one thread; more in `chunkCount`
    /// chunks (ParallelMap runs eight items or more on all cores).
    private static let itemsForChunks = 64
    private static let chunkCount = 8

    private func checkEntityAndProperties(_ entity: Entity) {
        checkEntity(entity)
        // By index: iterating the arrays copied each property whole.
        for index in entity.attributes.indices { checkAttribute(entity.attributes[index], in: entity) }
        for index in entity.relationships.indices { checkRelationship(entity.relationships[index], in: entity) }
        for index in entity.fetchedProperties.indices { checkFetchedProperty(entity.fetchedProperties[index], in: entity) }
        for index in entity.computedProperties.indices { checkComputedProperty(entity.computedProperties[index], in: entity) }
    }

    // MARK: Helpers shared by the rules

    func error(_ id: DiagnosticID, _ message: String, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
        diagnostics.error(id, message, at: location, notes: notes)
    }

    func warning(_ id: DiagnosticID, _ message: String, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
        diagnostics.warning(id, message, at: location, notes: notes)
    }

    /// Reports an unknown entity name with a suggestion; true when the entity exists.
    @discardableResult
    func requireEntity(_ name: Located<String>, _ role: @autoclosure () -> String) -> Bool {
        if graph.position(of: name.value) != nil { return true }
        let notes = Suggestions.note(for: name.value, in: model.entities.map(\.name.value)).map { [Diagnostic.Note($0)] } ?? []
        error(.unknownEntity, "unknown entity '\(name.value)' named as \(role())", at: name.location, notes: notes)
        return false
    }

    /// The rules every property name follows: a lower-camel Swift identifier that is not a runtime member.
    func checkPropertyName(_ name: Located<String>, kind: String, in entity: Entity) {
        let text = name.value
        if !SwiftNames.isIdentifier(text) {
            error(.invalidIdentifier, "\(kind) name '\(text)' is not a Swift identifier (letters, digits and '_', not starting with a digit)", at: name.location)
        } else if !SwiftNames.startsLowerCase(text) {
            let suggestion = text.prefix(1).lowercased() + text.dropFirst()
            error(.nameCase, "\(kind) name '\(text)' must start with a lower-case letter (as in Core Data)", at: name.location,
                  notes: [.init("did you mean '\(suggestion)'?")])
        }
        if text == "Keys" {
            error(.reservedName, "\(kind) name 'Keys' collides with the enum 'Keys' generated classes declare (their property names); choose another name",
                  at: name.location)
        } else if SwiftNames.reservedPropertyNames.contains(text) {
            error(.reservedName, "\(kind) name '\(text)' collides with the runtime's own member '\(text)' of ManagedObject; choose another name",
                  at: name.location)
        }
    }
}
