import Foundation
import ModelgenPredicate

/// Encodes and decodes a transformable attribute's value to and from stored data.
public struct ValueCodec: Sendable {
    /// Turns a value into data to store.
    public let encode: @Sendable (Any) throws -> Data
    /// Turns stored data back into a value.
    public let decode: @Sendable (Data) throws -> Any

    /// A codec from two closures (for a named value transformer).
    public init(encode: @escaping @Sendable (Any) throws -> Data, decode: @escaping @Sendable (Data) throws -> Any) {
        self.encode = encode
        self.decode = decode
    }

    /// The default codec of a Codable type: JSON with sorted keys (deterministic bytes).
    public static func codable<T: Codable & SendableMetatype>(_ type: T.Type) -> ValueCodec {
        ValueCodec(
            encode: { value in
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                guard let typed = value as? T else { throw RuntimeError.typeMismatch(expected: "\(T.self)", found: "\(Swift.type(of: value))") }
                return try encoder.encode(typed)
            },
            decode: { data in try JSONDecoder().decode(T.self, from: data) })
    }
}

/// An attribute of an entity, as generated code describes it.
public final class AttributeDescription: Sendable {
    /// The attribute's name, as the model writes it.
    public let name: String
    /// The stored type.
    public let type: AttributeType
    /// True when nil is a valid value.
    public let isOptional: Bool
    /// True for values that are tracked and undone but never saved.
    public let isTransient: Bool
    /// The default value (`.null` for none).
    public let defaultValue: StoreValue
    /// Lower and upper bounds: values for numbers and dates (seconds since 2001), lengths for strings and binary.
    public let minimum: Double?
    /// See `minimum`.
    public let maximum: Double?
    /// A regular expression string values must match as a whole.
    public let regex: String?
    /// Binary data that a store may keep outside its table (Core Data's external storage).
    public let allowsExternalStorage: Bool
    /// A derivation expression (`posts.@count`, `lowercase:(title)`, `now()`), recomputed on save.
    public let derivation: String?
    /// The attribute's former name, for migration.
    public let renamingIdentifier: String?
    /// Part of the model's version hash (Core Data's `versionHashModifier`): a new value marks a new
    /// version of what stores keep when the layout alone does not change.
    public let versionHashModifier: String?
    /// For transformable attributes: how values become data.
    public let codec: ValueCodec?
    /// For RawRepresentable attributes: whether a stored raw value is accepted by the Swift type.
    public let acceptsRawValue: (@Sendable (StoreValue) -> Bool)?
    /// The Swift type name the attribute's values have (for messages).
    public let swiftTypeName: String?
    /// Free-form entries from the model (`userInfo:`).
    public let userInfo: [String: String]

    /// Describes an attribute.
    public init(_ name: String, _ type: AttributeType, optional: Bool = false, transient: Bool = false,
                defaultValue: StoreValue = .null, minimum: Double? = nil, maximum: Double? = nil, regex: String? = nil,
                externalStorage: Bool = false, derivation: String? = nil, renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
                codec: ValueCodec? = nil, acceptsRawValue: (@Sendable (StoreValue) -> Bool)? = nil,
                swiftTypeName: String? = nil, userInfo: [String: String] = [:]) {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.isTransient = transient
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.maximum = maximum
        self.regex = regex
        self.allowsExternalStorage = externalStorage
        self.derivation = derivation
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.codec = codec
        self.acceptsRawValue = acceptsRawValue
        self.swiftTypeName = swiftTypeName
        self.userInfo = userInfo
    }
}

/// What deleting an object does to the objects a relationship reaches.
public enum DeleteRule: String, Sendable, Hashable {
    /// Clears the references to the deleted object (the default).
    case nullify
    /// Deletes the objects the relationship reaches as well.
    case cascade
    /// Refuses to delete (the save fails) while the relationship reaches any object.
    case deny
    /// Does nothing: the other objects keep a reference to the deleted one (a warning in the model).
    case noAction
}

/// A relationship of an entity, as generated code describes it.
public final class RelationshipDescription: Sendable {
    /// The relationship's name, as the model writes it.
    public let name: String
    /// The entity the relationship points to.
    public let destinationName: String
    /// The relationship on the destination that points back (nil: one-way).
    public let inverseName: String?
    /// True for a set or array of objects; false for one object.
    public let isToMany: Bool
    /// True for a to-many relationship that keeps its order (an array).
    public let isOrdered: Bool
    /// True when a to-one relationship may be nil or a to-many one empty.
    public let isOptional: Bool
    /// True for relationships that are tracked but never saved.
    public let isTransient: Bool
    /// What deleting the object does to the objects this relationship reaches.
    public let deleteRule: DeleteRule
    /// The fewest objects a to-many relationship must hold on save (nil: no minimum).
    public let minCount: Int?
    /// The most objects a to-many relationship may hold on save (nil: no maximum).
    public let maxCount: Int?
    /// The relationship's former name: a store saved with it keeps the links under the new name.
    public let renamingIdentifier: String?
    /// Part of the model's version hash (see `AttributeDescription.versionHashModifier`).
    public let versionHashModifier: String?
    /// Free-form entries from the model (`userInfo:`).
    public let userInfo: [String: String]

    /// Describes a relationship.
    public init(_ name: String, destination: String, inverse: String?, toMany: Bool = false, ordered: Bool = false,
                optional: Bool = true, transient: Bool = false, deleteRule: DeleteRule = .nullify,
                minCount: Int? = nil, maxCount: Int? = nil, renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
                userInfo: [String: String] = [:]) {
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.name = name
        self.destinationName = destination
        self.inverseName = inverse
        self.isToMany = toMany
        self.isOrdered = ordered
        self.isOptional = optional
        self.isTransient = transient
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = maxCount
        self.userInfo = userInfo
    }
}

/// A fetched property: a one-way relationship computed by a fetch (`$FETCH_SOURCE` is the owner).
public struct FetchedPropertyDescription: Sendable {
    /// The fetched property's name.
    public let name: String
    /// The entity it fetches.
    public let destinationName: String
    /// The predicate, evaluated on the destination (`$FETCH_SOURCE` is the owner).
    public let predicate: String
    /// Sort descriptors as text (`title`, `date DESC`).
    public let sortDescriptors: [String]
    /// Free-form entries; the predicate reads them as `$FETCHED_PROPERTY.userInfo.<key>`.
    public let userInfo: [String: String]

    /// Describes a fetched property.
    public init(_ name: String, destination: String, predicate: String, sort: [String] = [], userInfo: [String: String] = [:]) {
        self.name = name
        self.destinationName = destination
        self.predicate = predicate
        self.sortDescriptors = sort
        self.userInfo = userInfo
    }
}

/// A named fetch request template of the model.
public struct FetchRequestTemplate: Sendable {
    /// The template's name (`FetchRequestTemplate` lookups and `fetchRequest(fromTemplate:)` use it).
    public let name: String
    /// The entity it fetches.
    public let entityName: String
    /// The predicate, with `$VARIABLES` substituted when it runs (nil: every object).
    public let predicate: String?
    /// Sort descriptors as text (`title`, `date DESC`).
    public let sortDescriptors: [String]
    /// At most this many results (nil: no limit).
    public let fetchLimit: Int?
    /// Results to skip first (nil: none).
    public let fetchOffset: Int?
    /// An aggregate template's group key paths (`writer.name`); see `AggregateRequest`.
    public let groupBy: [String]
    /// An aggregate template's computed columns.
    public let columns: [AggregateColumn]
    /// An aggregate template's predicate over its group keys and columns (`pages > 1000`).
    public let having: String?
    /// A projection template's values: key paths (`"title"`, `"writer.name"`) and first members
    /// (`.first("authors.name", by: [SortDescriptor("name")])`); see `ProjectionRequest`.
    public let properties: [ProjectedProperty]

    /// Whether the template asks for groups (`aggregateRequest(fromTemplate:)`) rather than objects
    /// (`fetchRequest(fromTemplate:)`): it groups or computes columns. Its sort descriptors then name
    /// group key paths and columns.
    public var isAggregate: Bool { !groupBy.isEmpty || !columns.isEmpty }
    /// Whether the template asks for some values of each record (`projectionRequest(fromTemplate:)`):
    /// it has `properties`.
    public var isProjection: Bool { !properties.isEmpty }

    /// Describes a template: of objects, with `groupBy` or `columns` of groups, with `properties` of
    /// some values of each record.
    public init(_ name: String, entity: String, predicate: String? = nil, sort: [String] = [], limit: Int? = nil, offset: Int? = nil,
                groupBy: [String] = [], columns: [AggregateColumn] = [], having: String? = nil, properties: [ProjectedProperty] = []) {
        self.name = name
        self.entityName = entity
        self.predicate = predicate
        self.sortDescriptors = sort
        self.fetchLimit = limit
        self.fetchOffset = offset
        self.groupBy = groupBy
        self.columns = columns
        self.having = having
        self.properties = properties
    }
}
