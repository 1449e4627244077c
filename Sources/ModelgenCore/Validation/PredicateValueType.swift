/// The type of a value in a predicate: what a key path, a literal or a `$VARIABLE` stands for.
public indirect enum PredicateValueType: Sendable, Hashable, CustomStringConvertible {
    /// An attribute's value; `swiftType` when the attribute is an enum or other RawRepresentable.
    case attribute(AttributeType, swiftType: String?)
    /// A managed object of an entity (or its subentities).
    case object(entity: String)
    /// Several values: a to-many key path, an aggregate literal, the right side of `IN`.
    case collection(PredicateValueType)
    /// `NIL`.
    case null
    /// Number literals (kept apart from attribute types so `rating > 2` fits any numeric width).
    case integerLiteral, floatLiteral
    /// String and boolean literals.
    case stringLiteral, boolLiteral
    /// The value of `FUNCTION(…)` (a Swift function's result) or of `$FETCHED_PROPERTY.userInfo.<key>`:
    /// its type is known only at run time, so it compares with anything (a `$VARIABLE` compared with it
    /// is an `Any` parameter).
    case functionResult

    /// Literal types become the type a variable compared with them gets.
    var concrete: PredicateValueType {
        switch self {
        case .integerLiteral: return .attribute(.int64, swiftType: nil)
        case .floatLiteral: return .attribute(.double, swiftType: nil)
        case .stringLiteral: return .attribute(.string, swiftType: nil)
        case .boolLiteral: return .attribute(.bool, swiftType: nil)
        case .collection(let element): return .collection(element.concrete)
        default: return self
        }
    }

    /// The broad kind used for compatibility: numbers compare with numbers, strings with strings, …
    var family: String {
        switch self {
        case .attribute(let type, _):
            if type.isNumeric { return "number" }
            return type.rawValue
        case .integerLiteral, .floatLiteral: return "number"
        case .stringLiteral: return "string"
        case .boolLiteral: return "bool"
        case .object: return "object"
        case .collection: return "collection"
        case .null: return "null"
        case .functionResult: return "any"
        }
    }

    var isString: Bool { family == "string" || self == .functionResult }

    /// True for values that `<`, `BETWEEN` and sorting can order.
    var isOrderable: Bool {
        switch self {
        case .attribute(let type, _): return type.isNumeric || type == .string || type == .date
        case .integerLiteral, .floatLiteral, .stringLiteral, .functionResult: return true
        default: return false
        }
    }

    /// The Swift type for a generated parameter of this type, given entity → class names.
    public func swiftTypeName(className: (String) -> String) -> String {
        switch self {
        case .attribute(let type, let swiftType): return swiftType ?? type.swiftTypeName ?? "Any"
        case .object(let entity): return className(entity)
        case .collection(let element): return "[" + element.swiftTypeName(className: className) + "]"
        default: return concrete == self ? "Any" : concrete.swiftTypeName(className: className)
        }
    }

    /// Words for diagnostics.
    public var description: String {
        switch self {
        case .attribute(let type, let swiftType): return swiftType.map { "\(type.rawValue) (\($0))" } ?? type.rawValue
        case .object(let entity): return "a '\(entity)' object"
        case .collection(let element): return "a collection of \(element)"
        case .null: return "NIL"
        case .integerLiteral, .floatLiteral: return "a number"
        case .stringLiteral: return "a string"
        case .boolLiteral: return "a boolean"
        case .functionResult: return "a FUNCTION's value"
        }
    }
}
