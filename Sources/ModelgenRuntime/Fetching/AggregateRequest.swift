import Foundation

/// What an aggregate column computes over the records of a group.
public enum AggregateFunction: String, Sendable, Hashable {
    /// The number of records (with a key path: of records where it is not nil).
    case count
    /// The sum of a numeric key path (integers stay integers; other numbers are doubles).
    case sum
    /// The mean of a numeric key path, a double.
    case average
    /// The smallest value of a key path.
    case minimum
    /// The largest value of a key path.
    case maximum
}

/// One computed column of an `AggregateRequest`: a function over a key path of the records (an
/// attribute, or an attribute through to-one relationships: `author.rating`), named for the row.
public struct AggregateColumn: Sendable, Hashable {
    /// The column's name in each `AggregateRow`.
    public var name: String
    /// What it computes.
    public var function: AggregateFunction
    /// The key path it computes over; nil for `count` of records.
    public var keyPath: String?
    /// The same as a typed key path (`.sum(\Book.pages, as: "pages")`), named through the model when the request runs.
    var typedKeyPath: KeyPathReference?

    /// A column (see the static functions for the usual ones).
    public init(_ name: String, _ function: AggregateFunction, of keyPath: String? = nil) {
        self.name = name
        self.function = function
        self.keyPath = keyPath
    }

    /// The number of records of the group.
    public static func count(as name: String = "count") -> AggregateColumn { AggregateColumn(name, .count) }
    /// The sum of `keyPath` over the group.
    public static func sum(_ keyPath: String, as name: String? = nil) -> AggregateColumn { AggregateColumn(name ?? "sum.\(keyPath)", .sum, of: keyPath) }
    /// The mean of `keyPath` over the group.
    public static func average(_ keyPath: String, as name: String? = nil) -> AggregateColumn { AggregateColumn(name ?? "average.\(keyPath)", .average, of: keyPath) }
    /// The smallest value of `keyPath` in the group.
    public static func minimum(_ keyPath: String, as name: String? = nil) -> AggregateColumn { AggregateColumn(name ?? "minimum.\(keyPath)", .minimum, of: keyPath) }
    /// The largest value of `keyPath` in the group.
    public static func maximum(_ keyPath: String, as name: String? = nil) -> AggregateColumn { AggregateColumn(name ?? "maximum.\(keyPath)", .maximum, of: keyPath) }

    /// A column over a typed key path of the records' class (`AggregateColumn(\Book.pages, .sum, as: "pages")`);
    /// the model names it when the request runs (a key path that names no attribute throws then).
    public init<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>, _ function: AggregateFunction, as name: String) {
        self.init(name, function, of: nil)
        typedKeyPath = KeyPathReference(keyPath)
    }

    /// The number of records of the group where a typed key path is not nil.
    public static func count<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>, as name: String) -> AggregateColumn { AggregateColumn(keyPath, .count, as: name) }
    /// The sum of a typed key path over the group: `.sum(\Book.pages, as: "pages")`.
    public static func sum<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>, as name: String) -> AggregateColumn { AggregateColumn(keyPath, .sum, as: name) }
    /// The mean of a typed key path over the group.
    public static func average<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>, as name: String) -> AggregateColumn { AggregateColumn(keyPath, .average, as: name) }
    /// The smallest value of a typed key path in the group.
    public static func minimum<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>, as name: String) -> AggregateColumn { AggregateColumn(keyPath, .minimum, as: name) }
    /// The largest value of a typed key path in the group.
    public static func maximum<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>, as name: String) -> AggregateColumn { AggregateColumn(keyPath, .maximum, as: name) }
}

/// A key path held in a Sendable value: key path instances are immutable, so sharing one between
/// isolations is safe though `AnyKeyPath` is not marked Sendable.
struct KeyPathReference: @unchecked Sendable, Hashable {
    let keyPath: AnyKeyPath
    init(_ keyPath: AnyKeyPath) { self.keyPath = keyPath }
}

/// A question about many records answered in the store (Core Data's dictionary result type with
/// `propertiesToGroupBy` and expression descriptions; SQL's `GROUP BY`): the records a fetch request
/// matches (its entity, predicate — a string or a `#Predicate` — and variables), grouped by
/// attributes or to-one key paths (a to-one relationship itself groups by the related record), each
/// group one `AggregateRow` with the group's keys and the computed columns. Distinct values are a
/// grouping with no columns. Rows come sorted by `sortBy` (group keys or column names). The SQL stores
/// answer with one query; the in-memory store computes on its records. The context's unsaved changes
/// are not included, as in Core Data (save first).
public struct AggregateRequest<Result: ManagedObject> {
    /// Which records (its sort descriptors, limit and offset are not used).
    public var fetch: FetchRequest<Result>
    /// The key paths whose values make a group (none: one group of every matching record).
    public var groupBy: [String]
    /// What each group computes.
    public var columns: [AggregateColumn]
    /// The order of the rows: group key paths or column names, ascending or not.
    public var sortBy: [(key: String, ascending: Bool)]
    /// Which groups are kept (Core Data's `havingPredicate`): a predicate over the group key paths and
    /// the column names (`pages > 1000 AND count >= 3`), applied to the groups the store computed.
    public var having: FetchPredicate?
    /// Group key paths given as typed key paths (named through the model when the request runs; they
    /// come after `groupBy`).
    var typedGroupBy: [KeyPathReference] = []

    /// A request: `AggregateRequest(Loan.fetchRequest(), groupBy: ["member"], columns: [.count(), .sum("fee")])`.
    public init(_ fetch: FetchRequest<Result>, groupBy: [String] = [], columns: [AggregateColumn],
                sortBy: [(key: String, ascending: Bool)] = [], having: FetchPredicate? = nil) {
        self.fetch = fetch
        self.groupBy = groupBy
        self.columns = columns
        self.sortBy = sortBy
        self.having = having
    }

    /// A request grouped by typed key paths of the records' class (attributes, or to-one relationships
    /// to group by the related record): `AggregateRequest(Book.fetchRequest(), groupedBy: [\.writer],
    /// columns: [.sum(\Book.pages, as: "pages")])`. Rows name each group key by its property name.
    public init(_ fetch: FetchRequest<Result>, groupedBy keyPaths: [PartialKeyPath<Result>], columns: [AggregateColumn],
                sortBy: [(key: String, ascending: Bool)] = [], having: FetchPredicate? = nil) {
        self.init(fetch, columns: columns, sortBy: sortBy, having: having)
        typedGroupBy = keyPaths.map(KeyPathReference.init)
    }
}

/// One group of an aggregate: its key values (by key path) and its computed columns (by name), as
/// stored values (a to-one key as `.reference` of the related record's ID).
public struct AggregateRow: Sendable, Hashable {
    /// The values by group key path and column name.
    public var values: [String: StoreValue]

    /// Creates a row (stores make them).
    public init(values: [String: StoreValue]) { self.values = values }

    /// A group key's or a column's value (nil for a name the request did not ask for).
    public subscript(_ name: String) -> StoreValue? { values[name] }

    /// A value as an integer (counts, sums of integers, integer keys).
    public func int(_ name: String) -> Int64? { value(name) }

    /// A value as a double (averages, sums of other numbers; integers converted).
    public func double(_ name: String) -> Double? { value(name) }

    /// A value as text.
    public func string(_ name: String) -> String? { value(name) }

    /// A to-one group key's related record.
    public func objectID(_ name: String) -> ObjectID? { value(name) }
}
