import ModelgenPredicate

/// A model file, parsed: the Core Data–style object model with every value's source position.
///
/// Produced by `ModelParser`; checked by `ModelValidator`. Collections keep declaration order.
public struct ObjectModel: Sendable {
    /// The model name (`Blog`); the generated model type is `<name>Model`.
    public var name: Located<String>
    /// The format version (only 1 exists).
    public var formatVersion: Int
    /// File-wide generation defaults.
    public var options: ModelOptions
    /// Entities in declaration order.
    public var entities: [Entity]
    /// Named fetch request templates in declaration order.
    public var fetchRequests: [FetchRequestTemplate]
    /// Named subsets of entities.
    public var configurations: [Configuration]
    /// The path of the model file, as given.
    public var sourcePath: String
    /// Composite types (`composites:`) in declaration order.
    public var composites: [CompositeType] = []

    /// The entity with this name, if any.
    public func entity(named name: String) -> Entity? {
        entities.first { $0.name.value == name }
    }

    /// The composite type with this name, if any.
    public func composite(named name: String) -> CompositeType? {
        composites.first { $0.name.value == name }
    }

    /// The entity's codegen mode: its own, else the model's default, else `class`.
    public func codegen(of entity: Entity) -> CodegenMode {
        entity.codegen?.value ?? options.codegen?.value ?? .class
    }
}

/// The `options:` section: file-wide generation defaults that CLI flags override.
public struct ModelOptions: Sendable {
    /// Default codegen mode for entities (`class` when absent).
    public var codegen: Located<CodegenMode>?
    /// Access level of generated declarations (`internal` when absent).
    public var access: Located<AccessLevel>?
    /// Extra modules to import in generated files.
    public var imports: [Located<String>] = []

    /// Empty options.
    public init() {}
}

/// A list of property names with its position: one uniqueness constraint or one index.
public struct PropertyNameList: Sendable, Hashable {
    /// The names, in order.
    public var names: [Located<String>]
    /// Where the list is written.
    public var location: SourceLocation
}

/// A `userInfo` entry: free-form key and scalar value.
public struct UserInfoEntry: Sendable, Hashable {
    /// The key.
    public var key: Located<String>
    /// The value, as text.
    public var value: Located<String>
}

/// An entity: a class of managed objects.
public struct Entity: Sendable {
    /// The entity name, an upper-camel Swift identifier.
    public var name: Located<String>
    /// The parent entity's name.
    public var parent: Located<String>?
    /// The Swift class name when it differs from the entity name.
    public var className: Located<String>?
    /// Abstract entities have no instances of their own.
    public var isAbstract: Bool = false
    /// The codegen mode when set on the entity (else the model's default).
    public var codegen: Located<CodegenMode>?
    /// The entity's former name, for migration (stores keep its records).
    public var renamingIdentifier: Located<String>?
    /// Part of the version hash (Core Data's `versionHashModifier`): changing it marks a new version of
    /// what stores keep when the layout alone does not change (data whose meaning changed).
    public var versionHashModifier: Located<String>?
    /// Attributes in declaration order.
    public var attributes: [Attribute] = []
    /// Relationships in declaration order.
    public var relationships: [Relationship] = []
    /// Fetched properties in declaration order.
    public var fetchedProperties: [FetchedProperty] = []
    /// Computed properties with their dependencies, in declaration order.
    public var computedProperties: [ComputedProperty] = []
    /// Uniqueness constraints.
    public var uniquenessConstraints: [PropertyNameList] = []
    /// Fetch indexes.
    public var indexes: [PropertyNameList] = []
    /// Free-form key/values for templates and the runtime description.
    public var userInfo: [UserInfoEntry] = []
    /// A doc comment for the generated class.
    public var doc: String?

    /// The Swift class name: `class` if set, else the entity name.
    public var swiftClassName: String { className?.value ?? name.value }
    /// Where the Swift class is named: the `class` value if set, else the entity name.
    public var swiftClassNameLocation: SourceLocation { className?.location ?? name.location }

    /// The names and positions of every property the entity itself declares, in declaration order.
    public var declaredPropertyNames: [Located<String>] {
        attributes.map(\.name) + relationships.map(\.name) + fetchedProperties.map(\.name) + computedProperties.map(\.name)
    }

    /// How many properties the entity itself declares (`declaredPropertyNames.count`, without building the list).
    var declaredPropertyCount: Int {
        attributes.count + relationships.count + fetchedProperties.count + computedProperties.count
    }
}

/// An attribute: a stored (or transient) value of a scalar type.
public struct Attribute: Sendable {
    /// The name, where the model writes it.
    public var name: Located<String>
    /// The type, where the model writes it.
    public var type: Located<AttributeType>
    /// True when nil is a valid value (`optional: true` or a `?` after the type).
    public var isOptional: Bool = false
    /// Where `optional: true` or the `?` of the short form is written.
    public var optionalLocation: SourceLocation?
    /// The value new objects start with.
    public var defaultValue: Located<AttributeValue>?
    /// The smallest value (numbers, dates) or length (strings, binary) allowed on save.
    public var minimum: Located<AttributeValue>?
    /// The largest value or length allowed on save.
    public var maximum: Located<AttributeValue>?
    /// A regular expression (ICU syntax) string values must match as a whole.
    public var regex: Located<String>?
    /// A RawRepresentable type (string/integer attributes) or the value type of a transformable attribute.
    public var swiftType: Located<String>?
    /// A named value transformer for a transformable attribute (Codable when nil).
    public var transformer: Located<String>?
    /// `externalStorage: true`: binary data a store may keep outside its table.
    public var allowsExternalStorage: Located<Bool>?
    /// True for values tracked and undone but never saved.
    public var isTransient: Bool = false
    /// A derivation expression, recomputed on save.
    public var derivation: ParsedExpression?
    /// The attribute's former name, for migration.
    public var renamingIdentifier: Located<String>?
    /// Part of the version hash (see `Entity.versionHashModifier`).
    public var versionHashModifier: Located<String>?
    /// Free-form entries.
    public var userInfo: [UserInfoEntry] = []
    /// The documentation comment of the generated property.
    public var doc: String?
    /// The composite type's name, for an attribute of type `.composite` (`address: Address`).
    public var composite: Located<String>?
}

/// A composite type (`composites:`): named attributes an entity attribute holds as one value, as
/// Core Data's composite attributes do. Generated as a Swift struct; stored flattened, one column
/// per field (`address.city`), so predicates and sorts on a field run in SQL.
public struct CompositeType: Sendable {
    /// The type name, an upper-camel Swift identifier (the generated struct's name).
    public var name: Located<String>
    /// The fields, in declaration order: scalar attributes or attributes of another composite type.
    public var attributes: [Attribute] = []
    /// A doc comment for the generated struct.
    public var doc: String?
}

/// What a relationship says about its inverse.
public enum InverseDeclaration: Sendable, Hashable {
    /// No `inverse` key: a warning (model both directions).
    case unspecified
    /// `inverse: none`: explicitly one-way.
    case none(SourceLocation)
    /// `inverse: name`.
    case named(Located<String>)
}

/// A relationship to another entity.
public struct Relationship: Sendable {
    /// The name, where the model writes it.
    public var name: Located<String>
    /// The entity it points to.
    public var destination: Located<String>
    /// True for a set (or, ordered, an array) of objects.
    public var isToMany: Bool = false
    /// Where `ordered: true` is written, if it is.
    public var ordered: Located<Bool>?
    /// The inverse relationship: named, `none` (one-way on purpose) or not written (a warning).
    public var inverse: InverseDeclaration = .unspecified
    /// What deleting the object does to the related objects (nullify when not written).
    public var deleteRule: Located<DeleteRule>?
    /// True when a to-one relationship may be nil (the default).
    public var isOptional: Bool = true
    /// The fewest objects a to-many relationship must hold on save.
    public var minCount: Located<Int>?
    /// The most objects a to-many relationship may hold on save.
    public var maxCount: Located<Int>?
    /// True for relationships tracked but never saved.
    public var isTransient: Bool = false
    /// The relationship's former name, for migration (stores keep its links).
    public var renamingIdentifier: Located<String>?
    /// Part of the version hash (see `Entity.versionHashModifier`).
    public var versionHashModifier: Located<String>?
    /// Free-form entries.
    public var userInfo: [UserInfoEntry] = []
    /// The documentation comment of the generated property.
    public var doc: String?

    /// True for an ordered to-many relationship.
    public var isOrdered: Bool { ordered?.value ?? false }
    /// The delete rule, nullify when not written.
    public var effectiveDeleteRule: DeleteRule { deleteRule?.value ?? .nullify }
}

/// A fetched property: a weak, one-way relationship evaluated by a fetch.
public struct FetchedProperty: Sendable {
    /// The name, where the model writes it.
    public var name: Located<String>
    /// The entity it fetches.
    public var destination: Located<String>
    /// The predicate, evaluated on the destination (`$FETCH_SOURCE` is the owner).
    public var predicate: ParsedPredicate?
    /// The order of the results.
    public var sortDescriptors: [ParsedSortDescriptor] = []
    /// Free-form entries (the predicate reads them as `$FETCHED_PROPERTY.userInfo.<key>`).
    public var userInfo: [UserInfoEntry] = []
    /// The documentation comment of the generated property.
    public var doc: String?
}

/// A computed property whose value your code computes (`compute<Name>()`) from modeled properties it
/// names in `dependsOn` (dependent keys): observers of it hear when any of them changes.
public struct ComputedProperty: Sendable {
    /// The name, where the model writes it.
    public var name: Located<String>
    /// The Swift type of the value, as written (`String`, `Int?`, `[Tag]`).
    public var type: Located<String>
    /// Key paths of the properties the value depends on: `firstName`, or `department.name` across to-one relationships.
    public var dependsOn: [Located<String>] = []
    /// The documentation comment of the generated property.
    public var doc: String?
}

/// A named fetch request template (top-level `fetchRequests:`).
public struct FetchRequestTemplate: Sendable {
    /// The template's name, as `fetchRequest(fromTemplate:)` and Core Data know it.
    public var name: Located<String>
    /// The generated function's name when it is not `name` (a Core Data name that is no lower-camel
    /// Swift identifier, or that a generated member has).
    public var swiftName: Located<String>?
    /// The entity it fetches.
    public var entity: Located<String>
    /// Which objects qualify (nil: all).
    public var predicate: ParsedPredicate?
    /// The order of the results.
    public var sortDescriptors: [ParsedSortDescriptor] = []
    /// At most this many results.
    public var limit: Located<Int>?
    /// Results to skip first.
    public var offset: Located<Int>?
    /// The documentation comment of the generated function.
    public var doc: String?
    /// An aggregate template's group key paths (attributes, or to-one key paths).
    public var groupBy: [ParsedSortDescriptor] = []
    /// An aggregate template's computed columns, in the order written.
    public var columns: [AggregateColumnDeclaration] = []
    /// An aggregate template's predicate over its group keys and columns.
    public var having: ParsedPredicate?
    /// A projection template's values (attributes and to-one relationships through to-one
    /// relationships, or the first member of a to-many relationship): a row of them per matching record.
    public var properties: [ProjectedKeyPath] = []

    /// The name of the generated function: `swiftName`, else `name`.
    public var functionName: Located<String> { swiftName ?? name }
    /// Whether the template asks for groups (it has `groupBy` or `columns`) rather than objects.
    public var isAggregate: Bool { !groupBy.isEmpty || !columns.isEmpty }
    /// Whether the template asks for some values of each record (it has `properties`) rather than objects.
    public var isProjection: Bool { !properties.isEmpty }
    /// An aggregate or projection template's generated row type: its function's name, capitalized, and `Row` (`PagesPerWriterRow`).
    public var rowTypeName: String {
        let function = functionName.value
        return function.prefix(1).uppercased() + function.dropFirst() + "Row"
    }
}

/// A computed column of an aggregate template: `totalPages: sum:(pages)`.
public struct AggregateColumnDeclaration: Sendable {
    /// The column's name (the row's property).
    public var name: Located<String>
    /// What it computes: a function of Core Data's expression syntax (`sum:(pages)`, `count()`).
    public var expression: ParsedExpression

    /// The functions a column may use (Core Data's expression functions) and the runtime's
    /// `AggregateFunction` each is (`min` → `minimum`).
    public static let functions = ["count": "count", "sum": "sum", "average": "average", "min": "minimum", "max": "maximum"]
}

/// A named configuration: a subset of the model's entities.
public struct Configuration: Sendable {
    /// The name, where the model writes it.
    public var name: Located<String>
    /// The entities it holds.
    public var entities: [Located<String>]
}

/// A predicate string and its syntax tree.
public struct ParsedPredicate: Sendable {
    /// The string with positions.
    public var source: EmbeddedSource
    /// The syntax tree.
    public var predicate: Predicate
}

/// A derivation expression string and its syntax tree.
public struct ParsedExpression: Sendable {
    /// The string with positions.
    public var source: EmbeddedSource
    /// The syntax tree.
    public var expression: Expression
}

/// A value of a projection template's rows: a key path (`writer.name`), or with `first:` the first
/// member of the to-many relationship the key path crosses (`authors.name`) in the order `by:` names.
public struct ProjectedKeyPath: Sendable {
    /// The key path, as written (a direction is an error the validator reports).
    public var path: ParsedSortDescriptor
    /// For `first:`, the members' order: sort descriptors from the members' entity, empty for an
    /// ordered relationship's own order. Nil for a plain key path.
    public var memberOrder: [ParsedSortDescriptor]?
    /// For `first:`, the row property's name (`as:`); nil: the key path's keys joined (`postsTitle`).
    public var name: Located<String>?

    /// The key path's text with positions.
    public var source: EmbeddedSource { path.source }
    /// The key path (and the direction, if one was written).
    public var descriptor: SortDescriptorSyntax { path.descriptor }
    /// The members' order as written (`name, born desc`); nil for a plain key path.
    public var memberOrderText: String? { memberOrder?.map(\.source.text).joined(separator: ", ") }
}

/// A sort descriptor string and its parsed form.
public struct ParsedSortDescriptor: Sendable {
    /// The string with positions.
    public var source: EmbeddedSource
    /// The key path and direction.
    public var descriptor: SortDescriptorSyntax
}
