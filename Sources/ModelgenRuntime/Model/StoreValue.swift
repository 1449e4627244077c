import Foundation

/// The types of attribute the runtime stores (the model format's attribute types).
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    /// Text.
    case string
    /// A Boolean.
    case bool
    /// A 16-bit integer.
    case int16
    /// A 32-bit integer.
    case int32
    /// A 64-bit integer.
    case int64
    /// A 32-bit floating-point number.
    case float
    /// A 64-bit floating-point number.
    case double
    /// A base-10 `Decimal`.
    case decimal
    /// A `Date`.
    case date
    /// Bytes (`Data`).
    case binary
    /// A `UUID`.
    case uuid
    /// A `URL`.
    case uri
    /// Any Swift value, stored as data by a `ValueCodec` (Codable, or a named transformer).
    case transformable

    /// int16, int32, int64.
    public var isInteger: Bool { self == .int16 || self == .int32 || self == .int64 }
    /// Integers, float, double, decimal.
    public var isNumeric: Bool { isInteger || self == .float || self == .double || self == .decimal }

    /// The values an integer attribute can hold (nil for other types).
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .int16: return Int64(Int16.min)...Int64(Int16.max)
        case .int32: return Int64(Int32.min)...Int64(Int32.max)
        case .int64: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// A number as this integer type holds it: nil when it is not a whole number or does not fit
    /// (never truncated: a value that would change is refused, not stored changed).
    public func integerValue<Number: BinaryInteger>(exactly number: Number) -> Int64? {
        guard let value = Int64(exactly: number), integerRange?.contains(value) ?? false else { return nil }
        return value
    }

    /// A floating-point number as this integer type holds it: its whole part, nil when there is none
    /// that fits (NaN, infinities, out of range).
    public func integerValue(truncating number: Double) -> Int64? {
        guard number.isFinite, let value = Int64(exactly: number.rounded(.towardZero)) else { return nil }
        return integerValue(exactly: value)
    }
}

/// An attribute value as stores keep it, and as model descriptions hold defaults: Sendable, comparable.
/// Relationship values in store rows are object IDs.
public enum StoreValue: Sendable, Hashable {
    /// No value (SQL NULL).
    case null
    /// A Boolean.
    case bool(Bool)
    /// An integer of any attribute width.
    case int(Int64)
    /// A float or double.
    case double(Double)
    /// A decimal.
    case decimal(Decimal)
    /// Text.
    case string(String)
    /// A date.
    case date(Date)
    /// Bytes (binary attributes, and transformable values as their codec stores them).
    case data(Data)
    /// A UUID.
    case uuid(UUID)
    /// A URL.
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

extension StoreValue {
    /// The value as a person reads it in a message (`ada@example.com`, `42`, `2024-05-01T09:30:00Z`).
    public var readableText: String {
        switch self {
        case .string(let v): return v
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .decimal(let v): return "\(v)"
        case .bool(let v): return v ? "YES" : "NO"
        case .date(let v): return v.formatted(.iso8601)
        case .uuid(let v): return v.uuidString
        case .url(let v): return v.absoluteString
        case .data(let v): return "\(v.count) bytes"
        case .reference(let id): return id.map { "\($0)" } ?? "nil"
        case .references(let ids): return "\(ids)"
        case .null: return "nil"
        }
    }
}
