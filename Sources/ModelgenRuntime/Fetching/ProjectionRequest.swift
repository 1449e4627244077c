import Foundation

/// One value a projection reads of each record: an attribute or a to-one key path (`"title"`,
/// `"writer.name"`; `"writer"` gives the related record's ID), or a value of the first member of a
/// to-many relationship (`.first("authors.name", by: [SortDescriptor("name")])`).
public struct ProjectedProperty: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The name the row gives the value (the key path unless named otherwise).
    public var name: String
    /// The key path, as the model names it.
    public var keyPath: String
    /// For a key path through a to-many relationship: the members are taken in this order (sort key
    /// paths from the members' entity), or in the relationship's own order when it is ordered and this
    /// is empty (an unordered one then goes by the members' keys), and the first one's value is read.
    /// Nil for a key path through attributes and to-one relationships only.
    public var memberOrder: [SortDescriptor]?

    /// The value of an attribute or a to-one key path, under `name` (the key path when nil).
    public init(_ keyPath: String, as name: String? = nil) {
        self.keyPath = keyPath
        self.name = name ?? keyPath
        memberOrder = nil
    }

    /// The value of an attribute or a to-one key path written as a string literal (`"writer.name"`).
    public init(stringLiteral keyPath: String) {
        self.init(keyPath)
    }

    /// The value of the first member of the to-many relationship `keyPath` crosses, the members
    /// taken in `order` (see `memberOrder`), under `name` (the key path when nil).
    public static func first(_ keyPath: String, by order: [SortDescriptor] = [], as name: String? = nil) -> ProjectedProperty {
        var property = ProjectedProperty(keyPath, as: name)
        property.memberOrder = order
        return property
    }
}

/// A request for some values of each record a fetch request matches, one row per record in the
/// fetch's order and window: what a list or a report shows, read as one `SELECT` of those columns on
/// the SQL stores, without objects (Core Data's `propertiesToFetch` with dictionary results).
///
/// ```swift
/// let fetch = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")], fetchLimit: 2_000)
/// let rows = try context.fetch(ProjectionRequest(fetch, properties: [
///     ProjectedProperty("title"), .first("authors.name", by: [SortDescriptor("name")], as: "author"),
/// ]))
/// let lines = rows.map { "\($0.string("title") ?? "") by \($0.string("author") ?? "nobody")" }
/// ```
public struct ProjectionRequest<Result: ManagedObject> {
    /// Which records, in which order and window.
    public var fetch: FetchRequest<Result>
    /// The values each row holds, in order.
    public var properties: [ProjectedProperty]

    /// The values `properties` name of the records `fetch` matches.
    public init(_ fetch: FetchRequest<Result>, properties: [ProjectedProperty]) {
        self.fetch = fetch
        self.properties = properties
    }
}

/// The values a projection read of one record, by the names of its properties, with the record's ID.
public struct ProjectedRow: Sendable, Hashable {
    /// The record's ID (to open the object a row shows).
    public var objectID: ObjectID
    /// The properties' names, in the request's order.
    public var names: [String]
    /// The values, in the order of `names`.
    public var values: [StoreValue]

    /// A row (stores and the context make them).
    public init(objectID: ObjectID, names: [String], values: [StoreValue]) {
        self.objectID = objectID
        self.names = names
        self.values = values
    }

    /// A property's value (nil for a name the request did not ask for).
    public subscript(_ name: String) -> StoreValue? { names.firstIndex(of: name).map { values[$0] } }

    /// A property's value as `type` (nil for NULL, a name the request did not ask for, or a value that
    /// is not one of `type`).
    public func value<Value: AggregateRowValue>(_ name: String, as type: Value.Type = Value.self) -> Value? {
        self[name].flatMap { Value(aggregateValue: $0) }
    }

    /// The value of a property the model does not let be nil, as `type` (the rows of a projection
    /// template in the model file read their non-optional values so). A store holding none there, or
    /// a value of another type, stops the program naming the property, as a typed property read of an
    /// object whose record is gone does.
    public func requiredValue<Value: AggregateRowValue>(_ name: String, as type: Value.Type = Value.self) -> Value {
        guard let value: Value = value(name) else {
            preconditionFailure("ModelgenRuntime: the projected value '\(name)' of \(objectID) is \(self[name].map { "\($0)" } ?? "not in the row"), not a \(Value.self)")
        }
        return value
    }

    /// A value as text.
    public func string(_ name: String) -> String? { value(name) }

    /// A value as an integer.
    public func int(_ name: String) -> Int64? { value(name) }

    /// A value as a double (integers converted).
    public func double(_ name: String) -> Double? { value(name) }

    /// A to-one key path's related record.
    public func relatedID(_ name: String) -> ObjectID? { value(name) }
}

/// A projection whose rows come back as a value type of yours (`Sendable` when it is, so it crosses
/// isolation freely).
public struct TypedProjectionRequest<Result: ManagedObject, Row> {
    /// The request the store answers (change it as any `ProjectionRequest`).
    public var request: ProjectionRequest<Result>
    /// Makes a typed row of each record's values.
    public let makeRow: @Sendable (ProjectedRow) -> Row

    /// A request whose rows `makeRow` types.
    public init(_ request: ProjectionRequest<Result>, makeRow: @escaping @Sendable (ProjectedRow) -> Row) {
        self.request = request
        self.makeRow = makeRow
    }
}
