import Foundation

/// The types of attribute the runtime stores (the model format's attribute types).
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case string, bool, int16, int32, int64, float, double, decimal, date, binary, uuid, uri, transformable

    /// int16, int32, int64.
    public var isInteger: Bool { self == .int16 || self == .int32 || self == .int64 }
    /// Integers, float, double, decimal.
    public var isNumeric: Bool { isInteger || self == .float || self == .double || self == .decimal }
}

/// An attribute value as stores keep it, and as model descriptions hold defaults: Sendable, comparable.
/// Relationship values in store rows are object IDs.
public enum StoreValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    /// A to-one relationship in a store row.
    case reference(ObjectID?)
    /// A to-many relationship in a store row (in order, for ordered relationships).
    case references([ObjectID])

    /// True for `.null` and `.reference(nil)`.
    public var isNull: Bool {
        switch self {
        case .null, .reference(nil): return true
        default: return false
        }
    }
}
