import Foundation
import ModelgenPredicate
import Yams

/// The result of parsing a model file: the model (when the file had the shape of one) and what was wrong.
public struct ParseResult: Sendable {
    /// The parsed model; nil when the file is not YAML or not a model at all.
    public var model: ObjectModel?
    /// Every problem found while parsing, in the order found.
    public var diagnostics: [Diagnostic]
    /// The YAML tree the model was read from, kept so a short-lived process can skip freeing it.
    var syntaxTree: SyntaxTree?
}

/// The composed YAML of a model file. Holding on to it until exit lets a command-line run skip
/// tearing down a large tree, as compilers skip freeing their ASTs (clang's `-disable-free`).
public final class SyntaxTree: @unchecked Sendable {
    let root: Node
    init(_ root: Node) { self.root = root }
}

/// Reads a model file (`*.model.yaml`) into an `ObjectModel`: every key of the
/// format, short and long attribute forms, typed values with their positions.
/// Every problem becomes a diagnostic; parsing goes on past errors so a run reports them all.
public struct ModelParser {
    /// The keys each mapping of the format allows.
    enum Keys {
        static let topLevel = KeySet(["model", "formatVersion", "options", "composites", "entities", "fetchRequests", "configurations"])
        static let composite = KeySet(["attributes", "doc"])
        /// A composite's fields: scalar values (or another composite), stored as columns of the entity.
        static let compositeField = KeySet(["type", "optional", "default", "min", "max", "regex", "userInfo", "doc"])
        static let options = KeySet(["codegen", "access", "imports"])
        static let entity = KeySet(["abstract", "parent", "class", "codegen", "renamingIdentifier", "versionHashModifier", "attributes", "relationships",
                             "fetchedProperties", "computed", "unique", "indexes", "userInfo", "doc"])
        static let attribute = KeySet(["type", "optional", "default", "transient", "min", "max", "regex", "swiftType",
                                "transformer", "externalStorage", "derived", "renamingIdentifier", "versionHashModifier", "userInfo", "doc"])
        static let relationship = KeySet(["destination", "toMany", "ordered", "inverse", "deleteRule", "optional",
                                   "min", "max", "transient", "renamingIdentifier", "versionHashModifier", "userInfo", "doc"])
        static let fetchedProperty = KeySet(["destination", "predicate", "sort", "userInfo", "doc"])
        static let computed = KeySet(["type", "dependsOn", "doc"])
        static let fetchRequest = KeySet(["entity", "predicate", "sort", "limit", "offset", "swiftName", "doc", "groupBy", "columns", "having", "properties"])
        static let firstMember = KeySet(["first", "by", "as"])
    }

    /// The format versions this modelgen reads.
    public static let supportedFormatVersions = [1]

    let reader: NodeReader
    private let mapper: EmbeddedSourceMapper
    /// The names under `composites:`, read before any attribute so a type can name one.
    private let compositeNames = CompositeNames()

    private final class CompositeNames {
        var names: Set<String> = []
    }

    /// A parser of the model in `source`.
    init(source: SourceText) {
        reader = NodeReader(file: source.path, byteCount: source.byteCount)
        mapper = EmbeddedSourceMapper(file: source.path, text: source.text)
    }

    /// Parses the bytes of a model file.
    public static func parse(data: Data, path: String) -> ParseResult {
        let source: SourceText
        switch SourceText.decode(data, path: path) {
        case .failure(let diagnostics): return ParseResult(model: nil, diagnostics: diagnostics.all)
        case .success(let decoded): source = decoded
        }
        switch YAMLLoader.load(source) {
        case .failure(let diagnostics):
            return ParseResult(model: nil, diagnostics: diagnostics.all)
        case .success(let root):
            let parser = ModelParser(source: source)
            let model = parser.model(root, path: source.path)
            // An alias bomb is refused whole: the part read before the budget ran out is not validated
            // (which would cost memory in proportion to the expansion, not to the file).
            if parser.reader.budgetExhausted { return ParseResult(model: nil, diagnostics: parser.reader.diagnostics.all) }
            return ParseResult(model: model, diagnostics: parser.reader.diagnostics.all, syntaxTree: SyntaxTree(root))
        }
    }

    /// Parses model text.
    public static func parse(text: String, path: String) -> ParseResult {
        parse(data: Data(text.utf8), path: path)
    }

    // MARK: Top level

    private func model(_ root: Node, path: String) -> ObjectModel? {
        guard let entries = reader.entries(of: root, "the model file", allowedKeys: Keys.topLevel) else { return nil }
        let top = Dictionary(entries.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let rootLocation = reader.location(root)

        var name = Located("", at: rootLocation)
        if let entry = top["model"] {
            if let value = reader.string(entry.value, "'model'") { name = value }
        } else {
            reader.error(.missingKey, "missing required key 'model' (the model name, e.g. 'model: Blog')", at: rootLocation)
        }
        var formatVersion = 1
        if let entry = top["formatVersion"], let text = reader.string(entry.value, "'formatVersion'") {
            let supported = Self.supportedFormatVersions.map(String.init).joined(separator: ", ")
            if let version = Int(text.value), Self.supportedFormatVersions.contains(version) {
                formatVersion = version
            } else {
                reader.error(.unsupportedFormatVersion, "unsupported formatVersion '\(text.value)'; this modelgen reads format version \(supported)", at: text.location)
            }
        }
        var options = ModelOptions()
        if let entry = top["options"] { options = self.options(entry.value) }

        var composites: [CompositeType] = []
        if let entry = top["composites"], let items = reader.entries(of: entry.value, "'composites'") {
            compositeNames.names = Set(items.map(\.key))
            composites = items.compactMap { composite($0) }
        }
        var entities: [Entity] = []
        if let entry = top["entities"] {
            if reader.isEmpty(entry.value) {
                reader.error(.noEntities, "'entities' is empty; declare at least one entity under it", at: entry.keyLocation)
            } else if let items = reader.entries(of: entry.value, "'entities'") {
                entities = items.compactMap { self.entity($0) }
            }
        } else {
            reader.error(.missingKey, "missing required key 'entities' (a mapping of entity names to entities)", at: rootLocation)
        }
        var fetchRequests: [FetchRequestTemplate] = []
        if let entry = top["fetchRequests"] {
            if let items = reader.entries(of: entry.value, "'fetchRequests'") {
                fetchRequests = items.compactMap { fetchRequest($0) }
            }
        }
        var configurations: [Configuration] = []
        if let entry = top["configurations"], let items = reader.entries(of: entry.value, "'configurations'") {
            configurations = items.compactMap { item in
                guard let names = reader.strings(item.value, "configuration '\(item.key)'") else { return nil }
                return Configuration(name: Located(item.key, at: item.keyLocation), entities: names)
            }
        }
        return ObjectModel(name: name, formatVersion: formatVersion, options: options, entities: entities,
                           fetchRequests: fetchRequests, configurations: configurations, sourcePath: path, composites: composites)
    }

    private func options(_ node: Node) -> ModelOptions {
        var options = ModelOptions()
        guard let entries = reader.entries(of: node, "'options'", allowedKeys: Keys.options) else { return options }
        for entry in entries {
            switch entry.key {
            case "codegen": options.codegen = reader.choice(entry.value, "codegen mode", as: CodegenMode.self)
            case "access": options.access = reader.choice(entry.value, "access level", as: AccessLevel.self)
            default: options.imports = reader.strings(entry.value, "'imports'") ?? []
            }
        }
        return options
    }

    // MARK: Entities

    func entity(_ item: NodeReader.Entry) -> Entity? {
        func what() -> String { "entity '\(item.key)'" }
        var entity = Entity(name: Located(item.key, at: item.keyLocation))
        if reader.isEmpty(item.value) {
            return entity // `Tag:` with nothing under it: an entity without properties.
        }
        guard let entries = reader.entries(of: item.value, what(), allowedKeys: Keys.entity) else { return nil }
        for entry in entries {
            switch entry.key {
            case "abstract": entity.isAbstract = reader.bool(entry.value, "'abstract' of \(what())")?.value ?? false
            case "parent": entity.parent = reader.string(entry.value, "'parent' of \(what())")
            case "class": entity.className = reader.string(entry.value, "'class' of \(what())")
            case "codegen": entity.codegen = reader.choice(entry.value, "codegen mode", as: CodegenMode.self)
            case "renamingIdentifier": entity.renamingIdentifier = reader.string(entry.value, "'renamingIdentifier' of \(what())")
            case "versionHashModifier": entity.versionHashModifier = reader.string(entry.value, "'versionHashModifier' of \(what())")
            case "attributes":
                entity.attributes = reader.entries(of: entry.value, "attributes of \(what())")?
                    .compactMap { attribute($0, of: item.key) } ?? []
            case "relationships":
                entity.relationships = reader.entries(of: entry.value, "relationships of \(what())")?
                    .compactMap { relationship($0, of: item.key) } ?? []
            case "fetchedProperties":
                entity.fetchedProperties = reader.entries(of: entry.value, "fetched properties of \(what())")?
                    .compactMap { fetchedProperty($0, of: item.key) } ?? []
            case "computed":
                entity.computedProperties = reader.entries(of: entry.value, "computed properties of \(what())")?
                    .compactMap { computedProperty($0, of: item.key) } ?? []
            case "unique": entity.uniquenessConstraints = propertyLists(entry.value, "'unique' of \(what())")
            case "indexes": entity.indexes = propertyLists(entry.value, "'indexes' of \(what())")
            case "userInfo": entity.userInfo = reader.userInfo(entry.value, what())
            default: entity.doc = reader.string(entry.value, "'doc' of \(what())", allowEmpty: true)?.value
            }
        }
        return entity
    }

    /// `[[a], [b, c]]`; a bare name in the outer list stands for a one-property list.
    private func propertyLists(_ node: Node, _ what: @autoclosure () -> String) -> [PropertyNameList] {
        guard let items = reader.items(of: node, what()) else { return [] }
        return items.compactMap { item in
            if case .scalar = item {
                guard let name = reader.string(item, "an item of \(what())") else { return nil }
                return PropertyNameList(names: [name], location: name.location)
            }
            guard let names = reader.strings(item, what()) else { return nil }
            return PropertyNameList(names: names, location: reader.location(item))
        }
    }

    // MARK: Composites

    private func composite(_ item: NodeReader.Entry) -> CompositeType? {
        func what() -> String { "composite '\(item.key)'" }
        var composite = CompositeType(name: Located(item.key, at: item.keyLocation))
        if reader.isEmpty(item.value) {
            return composite // `Empty:` with nothing under it: a composite without fields.
        }
        guard let entries = reader.entries(of: item.value, what(), allowedKeys: Keys.composite) else { return nil }
        for entry in entries {
            switch entry.key {
            case "attributes":
                composite.attributes = reader.entries(of: entry.value, "attributes of \(what())")?
                    .compactMap { attribute($0, of: item.key, allowedKeys: Keys.compositeField) } ?? []
            default: composite.doc = reader.string(entry.value, "'doc' of \(what())", allowEmpty: true)?.value
            }
        }
        return composite
    }

    // MARK: Attributes

    /// A type keyword, or the name of a composite type (then `composite` is that name).
    private func attributeType(_ text: Located<String>) -> (type: Located<AttributeType>, composite: Located<String>?)? {
        if let type = AttributeType(rawValue: text.value), type != .composite { return (Located(type, at: text.location), nil) }
        if compositeNames.names.contains(text.value) { return (Located(.composite, at: text.location), text) }
        let options = AttributeType.keywordCases.map(\.rawValue)
        let composites = compositeNames.names.sorted()
        let notes = Suggestions.note(for: text.value, in: options + composites).map { [Diagnostic.Note($0)] } ?? []
        let listed = options.joined(separator: ", ") + (composites.isEmpty ? "" : ", or a composite type (\(composites.joined(separator: ", ")))")
        reader.error(.unknownAttributeType, "unknown attribute type '\(text.value)'; expected one of: \(listed)", at: text.location, notes: notes)
        return nil
    }

    private func attribute(_ item: NodeReader.Entry, of entityName: String, allowedKeys: KeySet = Keys.attribute) -> Attribute? {
        func what() -> String { "attribute '\(entityName).\(item.key)'" }
        let name = Located(item.key, at: item.keyLocation)

        // Short form: `name: TYPE` or `name: TYPE?`.
        if case .scalar = item.value {
            guard var text = reader.string(item.value, "the type of \(what())") else { return nil }
            var optionalLocation: SourceLocation?
            if text.value.hasSuffix("?") {
                text.value.removeLast()
                optionalLocation = text.location.advanced(by: text.value.unicodeScalars.count)
            }
            guard let (type, composite) = attributeType(text) else { return nil }
            var attribute = Attribute(name: name, type: type)
            attribute.composite = composite
            attribute.isOptional = optionalLocation != nil
            attribute.optionalLocation = optionalLocation
            return attribute
        }

        guard let entries = reader.entries(of: item.value, what(), allowedKeys: allowedKeys) else { return nil }
        guard let typeEntry = entries.first(where: { $0.key == "type" }) else {
            reader.error(.missingKey, "missing required key 'type' in \(what())", at: item.keyLocation)
            return nil
        }
        guard let typeText = reader.string(typeEntry.value, "'type' of \(what())"), let (type, composite) = attributeType(typeText) else {
            return nil
        }
        var attribute = Attribute(name: name, type: type)
        attribute.composite = composite
        for entry in entries {
            func key() -> String { "'\(entry.key)' of \(what())" }
            switch entry.key {
            case "type": break
            case "optional":
                if let value = reader.bool(entry.value, key()) {
                    attribute.isOptional = value.value
                    attribute.optionalLocation = value.location
                }
            case "transient": attribute.isTransient = reader.bool(entry.value, key())?.value ?? false
            case "default": attribute.defaultValue = value(entry.value, key(), for: type.value, isBound: false)
            case "min": attribute.minimum = value(entry.value, key(), for: type.value, isBound: true)
            case "max": attribute.maximum = value(entry.value, key(), for: type.value, isBound: true)
            case "regex": attribute.regex = reader.string(entry.value, key(), allowEmpty: true)
            case "swiftType": attribute.swiftType = reader.string(entry.value, key())
            case "transformer": attribute.transformer = reader.string(entry.value, key())
            case "externalStorage": attribute.allowsExternalStorage = reader.bool(entry.value, key())
            case "derived":
                if let text = reader.string(entry.value, key()) {
                    let source = mapper.map(entry.value, value: text.value)
                    do {
                        attribute.derivation = ParsedExpression(source: source, expression: try PredicateParser.parseExpression(text.value))
                    } catch {
                        reader.error(.predicateSyntax, "invalid derivation expression: \(error.message)", at: source.location(atOffset: error.range.start))
                    }
                }
            case "renamingIdentifier": attribute.renamingIdentifier = reader.string(entry.value, key())
            case "versionHashModifier": attribute.versionHashModifier = reader.string(entry.value, key())
            case "userInfo": attribute.userInfo = reader.userInfo(entry.value, what())
            default: attribute.doc = reader.string(entry.value, key(), allowEmpty: true)?.value
            }
        }
        return attribute
    }

    /// A `default`, `min` or `max`, read by the attribute's type.
    private func value(_ node: Node, _ what: @autoclosure () -> String, for type: AttributeType, isBound: Bool) -> Located<AttributeValue>? {
        let allowEmpty = type == .string && !isBound
        guard let text = reader.string(node, what(), allowEmpty: allowEmpty) else { return nil }
        switch AttributeValueParser.parse(text.value, as: type, isBound: isBound) {
        case .success(let value): return Located(value, at: text.location)
        case .failure(let problem):
            reader.error(.invalidDefault, "invalid \(what()): \(problem.message)", at: text.location)
            return nil
        }
    }

    // MARK: Relationships

    private func relationship(_ item: NodeReader.Entry, of entityName: String) -> Relationship? {
        func what() -> String { "relationship '\(entityName).\(item.key)'" }
        guard let entries = reader.entries(of: item.value, what(), allowedKeys: Keys.relationship) else { return nil }
        guard let destinationEntry = entries.first(where: { $0.key == "destination" }) else {
            reader.error(.missingKey, "missing required key 'destination' in \(what())", at: item.keyLocation)
            return nil
        }
        guard let destination = reader.string(destinationEntry.value, "'destination' of \(what())") else { return nil }
        var relationship = Relationship(name: Located(item.key, at: item.keyLocation), destination: destination)
        for entry in entries {
            func key() -> String { "'\(entry.key)' of \(what())" }
            switch entry.key {
            case "destination": break
            case "toMany": relationship.isToMany = reader.bool(entry.value, key())?.value ?? false
            case "ordered": relationship.ordered = reader.bool(entry.value, key())
            case "inverse":
                if let text = reader.string(entry.value, key()) {
                    relationship.inverse = text.value == "none" ? .none(text.location) : .named(text)
                }
            case "deleteRule": relationship.deleteRule = reader.choice(entry.value, "delete rule", as: DeleteRule.self)
            case "optional": relationship.isOptional = reader.bool(entry.value, key())?.value ?? true
            case "min": relationship.minCount = reader.count(entry.value, key())
            case "max": relationship.maxCount = reader.count(entry.value, key())
            case "transient": relationship.isTransient = reader.bool(entry.value, key())?.value ?? false
            case "renamingIdentifier": relationship.renamingIdentifier = reader.string(entry.value, key())
            case "versionHashModifier": relationship.versionHashModifier = reader.string(entry.value, key())
            case "userInfo": relationship.userInfo = reader.userInfo(entry.value, what())
            default: relationship.doc = reader.string(entry.value, key(), allowEmpty: true)?.value
            }
        }
        return relationship
    }

    // MARK: Fetching

    private func predicate(_ node: Node, _ what: @autoclosure () -> String) -> ParsedPredicate? {
        guard let text = reader.string(node, what()) else { return nil }
        let source = mapper.map(node, value: text.value)
        do {
            return ParsedPredicate(source: source, predicate: try PredicateParser.parsePredicate(text.value))
        } catch {
            reader.error(.predicateSyntax, "invalid predicate: \(error.message)", at: source.location(atOffset: error.range.start))
            return nil
        }
    }

    private func sortDescriptors(_ node: Node, _ what: @autoclosure () -> String, kind: String = "sort descriptor") -> [ParsedSortDescriptor] {
        let items: [Node]
        if case .scalar = node { items = [node] } else { items = reader.items(of: node, what()) ?? [] }
        return items.compactMap { item -> ParsedSortDescriptor? in
            guard let text = reader.string(item, "an item of \(what())") else { return nil }
            let source = mapper.map(item, value: text.value)
            do throws(PredicateSyntaxError) {
                return ParsedSortDescriptor(source: source, descriptor: try SortDescriptorSyntax.parse(text.value))
            } catch {
                reader.error(.predicateSyntax, "invalid \(kind): \(error.message)", at: source.location(atOffset: error.range.start))
                return nil
            }
        }
    }

    /// A projection template's `properties`: key paths, and first members (`{first: authors.name, by: [name], as: author}`).
    private func projectedKeyPaths(_ node: Node, _ what: @autoclosure () -> String) -> [ProjectedKeyPath] {
        let items: [Node]
        if case .scalar = node { items = [node] } else { items = reader.items(of: node, what()) ?? [] }
        return items.compactMap { item -> ProjectedKeyPath? in
            guard case .mapping = item else {
                return sortDescriptors(item, "an item of \(what())", kind: "projected key path").first.map { ProjectedKeyPath(path: $0) }
            }
            let member = "a first member in \(what())"
            guard let entries = reader.entries(of: item, member, allowedKeys: Keys.firstMember) else { return nil }
            guard let first = entries.first(where: { $0.key == "first" }) else {
                reader.error(.missingKey, "missing required key 'first' in \(member) (the key path through a to-many relationship)", at: item)
                return nil
            }
            guard case .scalar = first.value else {
                reader.error(.invalidValue, "'first' of \(member) is one key path, as in 'first: authors.name'", at: first.value)
                return nil
            }
            guard let path = sortDescriptors(first.value, "'first' of \(member)", kind: "projected key path").first else { return nil }
            let order = entries.first(where: { $0.key == "by" }).map { sortDescriptors($0.value, "'by' of \(member)") } ?? []
            let name = entries.first(where: { $0.key == "as" }).flatMap { reader.string($0.value, "'as' of \(member)") }
            return ProjectedKeyPath(path: path, memberOrder: order, name: name)
        }
    }

    private func fetchedProperty(_ item: NodeReader.Entry, of entityName: String) -> FetchedProperty? {
        func what() -> String { "fetched property '\(entityName).\(item.key)'" }
        guard let entries = reader.entries(of: item.value, what(), allowedKeys: Keys.fetchedProperty) else { return nil }
        guard let destinationEntry = entries.first(where: { $0.key == "destination" }) else {
            reader.error(.missingKey, "missing required key 'destination' in \(what())", at: item.keyLocation)
            return nil
        }
        guard let destination = reader.string(destinationEntry.value, "'destination' of \(what())") else { return nil }
        var property = FetchedProperty(name: Located(item.key, at: item.keyLocation), destination: destination)
        var hasPredicate = false
        for entry in entries {
            func key() -> String { "'\(entry.key)' of \(what())" }
            switch entry.key {
            case "destination": break
            case "predicate":
                hasPredicate = true
                property.predicate = predicate(entry.value, key())
            case "sort": property.sortDescriptors = sortDescriptors(entry.value, key())
            case "userInfo": property.userInfo = reader.userInfo(entry.value, what())
            default: property.doc = reader.string(entry.value, key(), allowEmpty: true)?.value
            }
        }
        if !hasPredicate {
            reader.error(.missingKey, "missing required key 'predicate' in \(what()) (e.g. 'author == $FETCH_SOURCE')", at: item.keyLocation)
        }
        return property
    }

    private func computedProperty(_ item: NodeReader.Entry, of entityName: String) -> ComputedProperty? {
        func what() -> String { "computed property '\(entityName).\(item.key)'" }
        guard let entries = reader.entries(of: item.value, what(), allowedKeys: Keys.computed) else { return nil }
        var type: Located<String>?, dependsOn: [Located<String>]?, doc: String?
        for entry in entries {
            func key() -> String { "'\(entry.key)' of \(what())" }
            switch entry.key {
            case "type": type = reader.string(entry.value, key())
            case "dependsOn": dependsOn = reader.strings(entry.value, key())
            default: doc = reader.string(entry.value, key(), allowEmpty: true)?.value
            }
        }
        if type == nil && !entries.contains(where: { $0.key == "type" }) {
            reader.error(.missingKey, "missing required key 'type' in \(what()) (the Swift type of its value, e.g. 'String')", at: item.keyLocation)
        }
        if dependsOn == nil && !entries.contains(where: { $0.key == "dependsOn" }) {
            reader.error(.missingKey, "missing required key 'dependsOn' in \(what()) (the properties its value is computed from)", at: item.keyLocation)
        }
        guard let type, let dependsOn else { return nil }
        return ComputedProperty(name: Located(item.key, at: item.keyLocation), type: type, dependsOn: dependsOn, doc: doc)
    }

    func fetchRequest(_ item: NodeReader.Entry) -> FetchRequestTemplate? {
        func what() -> String { "fetch request '\(item.key)'" }
        guard let entries = reader.entries(of: item.value, what(), allowedKeys: Keys.fetchRequest) else { return nil }
        guard let entityEntry = entries.first(where: { $0.key == "entity" }) else {
            reader.error(.missingKey, "missing required key 'entity' in \(what())", at: item.keyLocation)
            return nil
        }
        guard let entity = reader.string(entityEntry.value, "'entity' of \(what())") else { return nil }
        var template = FetchRequestTemplate(name: Located(item.key, at: item.keyLocation), entity: entity)
        for entry in entries {
            func key() -> String { "'\(entry.key)' of \(what())" }
            switch entry.key {
            case "entity": break
            case "predicate": template.predicate = predicate(entry.value, key())
            case "sort": template.sortDescriptors = sortDescriptors(entry.value, key())
            case "limit": template.limit = reader.count(entry.value, key())
            case "offset": template.offset = reader.count(entry.value, key())
            case "swiftName": template.swiftName = reader.string(entry.value, key())
            case "groupBy": template.groupBy = sortDescriptors(entry.value, key(), kind: "group key path")
            case "columns": template.columns = aggregateColumns(entry.value, key())
            case "having": template.having = predicate(entry.value, key())
            case "properties": template.properties = projectedKeyPaths(entry.value, key())
            default: template.doc = reader.string(entry.value, key(), allowEmpty: true)?.value
            }
        }
        return template
    }

    /// An aggregate template's `columns`: a mapping of names to functions (`totalPages: sum:(pages)`).
    private func aggregateColumns(_ node: Node, _ what: @autoclosure () -> String) -> [AggregateColumnDeclaration] {
        guard let entries = reader.entries(of: node, what()) else { return [] }
        return entries.compactMap { entry -> AggregateColumnDeclaration? in
            guard let text = reader.string(entry.value, "column '\(entry.key)' of \(what())") else { return nil }
            let source = mapper.map(entry.value, value: text.value)
            do throws(PredicateSyntaxError) {
                return AggregateColumnDeclaration(name: Located(entry.key, at: entry.keyLocation),
                                                  expression: ParsedExpression(source: source, expression: try PredicateParser.parseExpression(text.value)))
            } catch {
                reader.error(.predicateSyntax, "invalid column: \(error.message)", at: source.location(atOffset: error.range.start))
                return nil
            }
        }
    }
}
