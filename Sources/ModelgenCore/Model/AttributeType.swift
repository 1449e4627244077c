/// The attribute types of the model format.
public enum AttributeType: String, CaseIterable, Sendable, Hashable {
    /// Text (`String`).
    case string
    /// A Boolean (`Bool`).
    case bool
    /// A 16-bit integer (`Int16`).
    case int16
    /// A 32-bit integer (`Int32`).
    case int32
    /// A 64-bit integer (`Int64`).
    case int64
    /// A 32-bit floating-point number (`Float`).
    case float
    /// A 64-bit floating-point number (`Double`).
    case double
    /// A base-10 number (`Decimal`).
    case decimal
    /// A point in time (`Date`).
    case date
    /// Bytes (`Data`).
    case binary
    /// A `UUID`.
    case uuid
    /// A `URL`.
    case uri
    /// Any Codable value (or one a named transformer stores), kept as data; needs `swiftType`.
    case transformable
    /// Core Data's Undefined: a transient attribute holding values of a `swiftType` that code sets, never stored.
    case undefined
    /// An attribute holding a composite type's value (`address: Address`); `Attribute.composite` names the type.
    case composite

    /// The types a model file names by keyword (a composite attribute names its composite type instead).
    public static let keywordCases: [AttributeType] = allCases.filter { $0 != .composite }

    /// The Swift type of a property of this type (transformable: the attribute's `swiftType`).
    public var swiftTypeName: String? {
        switch self {
        case .string: return "String"
        case .bool: return "Bool"
        case .int16: return "Int16"
        case .int32: return "Int32"
        case .int64: return "Int64"
        case .float: return "Float"
        case .double: return "Double"
        case .decimal: return "Decimal"
        case .date: return "Date"
        case .binary: return "Data"
        case .uuid: return "UUID"
        case .uri: return "URL"
        case .transformable, .undefined, .composite: return nil
        }
    }

    /// Types whose values are a user's Swift type (`swiftType`), held as they are in memory.
    public var holdsSwiftValues: Bool { self == .transformable || self == .undefined }

    /// int16, int32, int64.
    public var isInteger: Bool { integerBounds != nil }

    /// Integers, floating point and decimal.
    public var isNumeric: Bool { isInteger || self == .float || self == .double || self == .decimal }

    /// The smallest and largest value of an integer type.
    public var integerBounds: ClosedRange<Int64>? {
        switch self {
        case .int16: return Int64(Int16.min)...Int64(Int16.max)
        case .int32: return Int64(Int32.min)...Int64(Int32.max)
        case .int64: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// Types whose `min`/`max` bound the length (string: characters, binary: bytes) rather than the value.
    public var boundsAreLengths: Bool { self == .string || self == .binary }

    /// Types that accept `min`/`max` at all.
    public var acceptsBounds: Bool { isNumeric || boundsAreLengths || self == .date }

    /// Types whose values can be ordered by a sort descriptor or `<`.
    public var isOrderable: Bool { isNumeric || self == .string || self == .date || self == .bool || self == .uuid }
}
