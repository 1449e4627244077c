import Foundation
import ModelgenPredicate

/// A parsed predicate of the shared NSPredicate-format language: parse once, evaluate many times.
public struct FetchPredicate: Sendable, CustomStringConvertible {
    /// The syntax tree.
    public let predicate: ModelgenPredicate.Predicate

    /// Parses a predicate: `FetchPredicate("likes >= $MIN AND author.name ==[c] 'ann'")`.
    public init(_ format: String) throws {
        if let parsed = Self.parsed.withLock({ $0[format] }) {
            predicate = parsed
            return
        }
        do {
            predicate = try PredicateParser.parsePredicate(format)
        } catch {
            throw RuntimeError.invalidPredicate("\(error.message) at offset \(error.range.start) in '\(format)'")
        }
        Self.parsed.withLock { parsed in
            if parsed.count >= Self.parsedLimit { parsed.removeAll(keepingCapacity: true) }
            parsed[format] = predicate
        }
    }

    /// Texts parsed before, with their trees: a request built again from the same text (its changing
    /// values in `$VARIABLES`) is not parsed again. Emptied when it holds `parsedLimit` texts.
    private static let parsed = Locked<[String: ModelgenPredicate.Predicate]>([:])
    private static let parsedLimit = 256

    /// Wraps a parsed predicate.
    public init(_ predicate: ModelgenPredicate.Predicate) { self.predicate = predicate }

    public var description: String { predicate.description }
}

/// A sort order: a key path (through to-one relationships) and a direction.
public struct SortDescriptor: Sendable, Hashable {
    /// The key path to sort by, as the model names it (`author.name`); to-one steps only.
    public var keyPath: String
    /// True for ascending order (smallest first; nil sorts first).
    public var ascending: Bool

    /// Sorts by `keyPath`.
    public init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// Parses `"createdAt desc"`, `"title"`, `"author.name asc"`.
    public init(parsing text: String) throws {
        do {
            let syntax = try SortDescriptorSyntax.parse(text)
            self.init(syntax.keyPathText, ascending: syntax.ascending)
        } catch {
            throw RuntimeError.invalidPredicate("sort descriptor '\(text)': \(error.message)")
        }
    }
}

/// What a fetch returns.
public enum FetchResultType: Sendable {
    /// Objects, values loaded.
    case objects
    /// Objects as faults where they are not loaded yet (values load on first access).
    case faults
}

/// A fetch of objects of an entity: predicate, sort descriptors, limit and offset, subentities.
/// Unsaved inserts, changes and deletes of the fetching context are reflected in the results.
public struct FetchRequest<Result: ManagedObject> {
    /// The entity's name; empty means the entity whose class is `Result`.
    public var entityName: String
    /// Which objects qualify (nil: every object of the entity).
    public var predicate: FetchPredicate?
    /// Values for the predicate's `$VARIABLES`, by name without `$`.
    public var variables: [String: Any?] = [:]
    /// The order of the results, most significant first (none: store order).
    public var sortDescriptors: [SortDescriptor]
    /// At most this many results (nil, 0 or less: no limit).
    public var fetchLimit: Int?
    /// Results to skip first (0 or less: none).
    public var fetchOffset: Int = 0
    /// Rows per batch (0: every row comes with the fetch). With a batch size, `fetch` reads IDs only and
    /// returns faults that load a batch of rows at a time; see also `context.fetch(_:batchSize:)`.
    public var fetchBatchSize: Int = 0
    /// Whether objects of subentities match too (default true: fetching `Person` returns `Author`s).
    public var includesSubentities = true
    /// Objects (the default), their IDs, a count, or dictionaries of attribute values.
    public var resultType: FetchResultType = .objects
    /// Relationships whose objects the fetch loads with the results (Core Data's and SwiftData's
    /// `relationshipKeyPathsForPrefetching`): names of relationships of the results, or dotted paths
    /// through them (`"authors"`, `"authors.mentor"`). Each step costs one query for the related
    /// records (and one per to-many relationship of theirs), whatever the number of results; without
    /// it they load as faults fire (a batch at a time where the fetch had a batch size).
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// The properties the fetch loads (Core Data's `propertiesToFetch` with object results): names of
    /// stored attributes and to-one relationships of the requested entity; nil (the default) loads
    /// whole objects. The SQL stores then read only those columns, and each object comes back partial
    /// (`isPartial`): reading one of these properties reads it; reading another one, or changing,
    /// deleting or validating the object, first loads the rest of every partial object of the fetch
    /// with one query (`awakeFromFetch` then). Prefetched to-many relationships load as they would for
    /// whole objects. A context with unsaved changes of these entities, a `serializable` context (its
    /// reads are checked at the versions it loaded) and a store that runs no queries load whole objects.
    public var propertiesToFetch: [String]?
    /// Properties to fetch named by typed key paths (`fetchProperties(_:)`), named through the model when the request runs.
    var typedPropertiesToFetch: [AnyKeyPath] = []
    /// Relationships to prefetch named by typed key paths (`prefetch(_:then:)`), named through the model when the request runs.
    var typedPrefetching: [(keyPath: AnyKeyPath, rest: String?)] = []
    /// A `#Predicate` and Foundation sort descriptors, translated when the request runs (the model
    /// names their key paths); the translation replaces `predicate` and comes before `sortDescriptors`.
    var typedQuery: ((ManagedObjectModel) throws -> (predicate: ModelgenPredicate.Predicate?, variables: [String: Any?], sort: [SortDescriptor]))?

    /// A request for an entity's objects.
    public init(entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [SortDescriptor] = [],
                fetchLimit: Int? = nil, fetchOffset: Int = 0) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }

    /// A request with a predicate string, parsed now.
    public init(entityName: String, predicate format: String, variables: [String: Any?] = [:], sortDescriptors: [SortDescriptor] = []) throws {
        self.init(entityName: entityName, predicate: try FetchPredicate(format), sortDescriptors: sortDescriptors)
        self.variables = variables
    }
}

extension FetchRequest {
    /// A typed request, as SwiftData writes one: `FetchRequest(predicate: #Predicate<Item> { $0.quantity > 10 },
    /// sortBy: [SortDescriptor(\.sku)])`. Key paths are the generated properties (a typo is a compile
    /// error); the query runs as a string predicate does, in SQL on the SQL stores. An expression the
    /// runtime cannot translate makes the fetch throw `UnsupportedPredicateError` naming it.
    public init(predicate: Foundation.Predicate<Result>? = nil, sortBy: [Foundation.SortDescriptor<Result>] = [],
                fetchLimit: Int? = nil, fetchOffset: Int = 0) {
        self.init(entityName: "", fetchLimit: fetchLimit, fetchOffset: fetchOffset)
        typedQuery = { model in
            var translator = FoundationPredicateTranslator(model: model)
            let translated = try predicate.map { try translator.translate($0) }
            return (translated, translator.variables, try sortBy.map { try translator.translate($0) })
        }
    }

    /// A typed request with a predicate (the same as the initializer above; written out so that
    /// `context.count(for: FetchRequest(predicate: #Predicate<Book> { … }))` infers `Book` where the
    /// request is an argument, which the optional parameter alone does not let the compiler do).
    public init(predicate: Foundation.Predicate<Result>, sortBy: [Foundation.SortDescriptor<Result>] = [],
                fetchLimit: Int? = nil, fetchOffset: Int = 0) {
        self.init(predicate: Optional(predicate), sortBy: sortBy, fetchLimit: fetchLimit, fetchOffset: fetchOffset)
    }

    /// Prefetches a relationship named by a typed key path, as `relationshipKeyPathsForPrefetching`
    /// does by name: `request.prefetch(\.authors)`; `then:` goes on from the related objects by name
    /// (`request.prefetch(\.authors, then: "mentor")` prefetches `authors.mentor`). The model names
    /// the key path when the request runs (a key path that names no relationship throws then).
    public mutating func prefetch<Value>(_ keyPath: KeyPath<Result, Value>, then rest: String? = nil) {
        typedPrefetching.append((keyPath, rest))
    }

    /// Loads only these properties, named by typed key paths, as `propertiesToFetch` does by name:
    /// `request.fetchProperties(\.title, \.publisher)` (added to the names `propertiesToFetch` holds).
    public mutating func fetchProperties(_ keyPaths: PartialKeyPath<Result>...) {
        typedPropertiesToFetch += keyPaths as [AnyKeyPath]
    }

    /// The request as the store runs it: a typed query translated for `model`, typed prefetching and
    /// properties to fetch named (others unchanged).
    func resolved(for model: ManagedObjectModel) throws -> FetchRequest<Result> {
        if !typedPropertiesToFetch.isEmpty {
            var request = self
            request.typedPropertiesToFetch = []
            request.propertiesToFetch = (propertiesToFetch ?? []) + (try typedPropertiesToFetch.map { try Self.name(of: $0, in: model, for: "properties to fetch") })
            return try request.resolved(for: model)
        }
        if !typedPrefetching.isEmpty {
            var request = self
            request.typedPrefetching = []
            for (keyPath, rest) in typedPrefetching {
                let name = try Self.name(of: keyPath, in: model, for: "prefetching")
                request.relationshipKeyPathsForPrefetching.append(rest.map { "\(name).\($0)" } ?? name)
            }
            return try request.resolved(for: model)
        }
        guard let typedQuery else { return self }
        var request = self
        let (predicate, variables, sort) = try typedQuery(model)
        request.typedQuery = nil
        if let predicate {
            request.predicate = FetchPredicate(predicate)
            request.variables.merge(variables) { _, translated in translated }
        }
        request.sortDescriptors = sort + sortDescriptors
        return request
    }
}

extension FetchRequest {
    /// The name the model gives the property of a typed key path, or an error saying what it was for.
    static func name(of keyPath: AnyKeyPath, in model: ManagedObjectModel, for use: String) throws -> String {
        guard let name = model.keyPathName(keyPath) else {
            throw RuntimeError.unknownKey(entity: "\(Result.self)", key: "\(keyPath) (\(use): the model names no property for it; a class written by hand passes keyPaths: to its EntityDescription)")
        }
        return name
    }
}

/// Gives every managed object class a typed `fetchRequest()`.
public protocol ManagedObjectFetching: AnyObject {}

extension ManagedObject: ManagedObjectFetching {}

extension ManagedObjectFetching where Self: ManagedObject {
    /// A request for every object of this class's entity (and its subentities): `Post.fetchRequest()`.
    /// The entity is found from the class when the request runs.
    public static func fetchRequest() -> FetchRequest<Self> {
        FetchRequest<Self>(entityName: "")
    }
}

extension ManagedObjectModel {
    /// A fetch request from a named template, with values for its `$VARIABLES`.
    public func fetchRequest<Result: ManagedObject>(fromTemplate name: String, variables: [String: Any?] = [:],
                                                    as type: Result.Type = Result.self) throws -> FetchRequest<Result> {
        let (template, parsed) = try template(named: name, variables: variables)
        if template.isAggregate {
            throw RuntimeError.invalidModel("fetch request template '\(name)' asks for groups, not objects: use aggregateRequest(fromTemplate:)")
        }
        return objectsRequest(template, parsed, variables: variables)
    }

    /// The fetch of a template's objects: its entity, predicate, sort and window.
    private func objectsRequest<Result: ManagedObject>(_ template: FetchRequestTemplate, _ parsed: ParsedFetch, variables: [String: Any?]) -> FetchRequest<Result> {
        var request = FetchRequest<Result>(entityName: template.entityName, sortDescriptors: parsed.sortDescriptors,
                                           fetchLimit: template.fetchLimit, fetchOffset: template.fetchOffset ?? 0)
        request.predicate = parsed.predicate
        request.variables = variables
        return request
    }

    /// The aggregate request of a named template that groups or computes columns (`groupBy`, `columns`
    /// and `having` in the model file), with values for the `$VARIABLES` of its predicate and having predicate.
    public func aggregateRequest<Result: ManagedObject>(fromTemplate name: String, variables: [String: Any?] = [:],
                                                        as type: Result.Type = Result.self) throws -> AggregateRequest<Result> {
        let (template, parsed) = try template(named: name, variables: variables)
        guard template.isAggregate else {
            throw RuntimeError.invalidModel("fetch request template '\(name)' asks for objects, not groups: use fetchRequest(fromTemplate:)")
        }
        var fetch = FetchRequest<Result>(entityName: template.entityName)
        fetch.predicate = parsed.predicate
        fetch.variables = variables
        return AggregateRequest(fetch, groupBy: template.groupBy, columns: template.columns,
                                sortBy: parsed.sortDescriptors.map { (key: $0.keyPath, ascending: $0.ascending) }, having: parsed.having)
    }

    /// The projection of a named template with `properties` (in the model file), with values for its
    /// `$VARIABLES`: those values of each matching record, in the template's order and window.
    public func projectionRequest<Result: ManagedObject>(fromTemplate name: String, variables: [String: Any?] = [:],
                                                         as type: Result.Type = Result.self) throws -> ProjectionRequest<Result> {
        let (template, parsed) = try self.template(named: name, variables: variables)
        guard template.isProjection else {
            throw RuntimeError.invalidModel("fetch request template '\(name)' asks for \(template.isAggregate ? "groups: use aggregateRequest(fromTemplate:)" : "objects: use fetchRequest(fromTemplate:)")")
        }
        return ProjectionRequest(objectsRequest(template, parsed, variables: variables), properties: template.properties)
    }

    /// A template and its parsed strings, after checking that `variables` has a value for each variable they name.
    private func template(named name: String, variables: [String: Any?]) throws -> (FetchRequestTemplate, ParsedFetch) {
        guard let template = fetchRequestTemplates[name], let parsed = parsedTemplates[name] else {
            throw RuntimeError.invalidModel("no fetch request template '\(name)'")
        }
        for predicate in [parsed.predicate, parsed.having].compactMap({ $0 }) {
            for name in predicate.predicate.variableNames where variables[name] == nil {
                throw RuntimeError.missingVariable(name)
            }
        }
        return (template, parsed)
    }
}
