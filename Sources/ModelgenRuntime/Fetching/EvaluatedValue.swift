import Foundation

/// A value during predicate evaluation: attribute values, objects, collections.
enum EvaluatedValue {
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
    case object(ManagedObject)
    case objectID(ObjectID)
    case collection([EvaluatedValue])
    case other(Any)

    init(_ slot: SlotValue) {
        switch slot {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .int(v)
        case .double(let v): self = .double(v)
        case .decimal(let v): self = .decimal(v)
        case .string(let v): self = .string(v)
        case .date(let v): self = .date(v)
        case .data(let v): self = .data(v)
        case .uuid(let v): self = .uuid(v)
        case .url(let v): self = .url(v)
        case .transformable(let box): self = .other(box.value)
        case .object(let o): self = .object(o)
        case .objects(let list): self = .collection(list.objects.map(EvaluatedValue.object))
        }
    }

    /// A Swift value given as a `$VARIABLE` or literal.
    init(any value: Any?) {
        guard let value else { self = .null; return }
        // The usual variable types by their exact type first: each `as?` below that fails asks the
        // runtime for conformances and bridging (a `Date` reached its case after 7,000 instructions).
        let type = Swift.type(of: value)
        if type == Date.self { self = .date(value as! Date); return }
        if type == String.self { self = .string(value as! String); return }
        if type == Int.self { self = .int(Int64(value as! Int)); return }
        if type == Int64.self { self = .int(value as! Int64); return }
        if type == Double.self { self = .double(value as! Double); return }
        if type == Bool.self { self = .bool(value as! Bool); return }
        switch value {
        case let v as EvaluatedValue: self = v
        case let v as ManagedObject: self = .object(v)
        case let v as ObjectID: self = .objectID(v)
        case let v as Bool: self = .bool(v)
        case let v as String: self = .string(v)
        case let v as any BinaryInteger: self = Int64(exactly: v).map(EvaluatedValue.int) ?? .double(Double(v))
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        case let v as Date: self = .date(v)
        case let v as Data: self = .data(v)
        case let v as UUID: self = .uuid(v)
        case let v as URL: self = .url(v)
        case let v as any RawRepresentable: self = EvaluatedValue(any: v.rawValue)
        case let v as any Collection: self = .collection(v.map { EvaluatedValue(any: $0) })
        default: self = .other(value)
        }
    }

    var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The value as Swift code sees it (a registered predicate function's receiver and arguments).
    var anyValue: Any? {
        switch self {
        case .null: return nil
        case .bool(let v): return v
        case .int(let v): return v
        case .double(let v): return v
        case .decimal(let v): return v
        case .string(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .uuid(let v): return v
        case .url(let v): return v
        case .object(let v): return v
        case .objectID(let v): return v
        case .collection(let items): return items.map(\.anyValue)
        case .other(let v): return v
        }
    }

    /// Numbers as Double for mixed comparisons (Decimal kept exact when both sides are Decimal or Int).
    var number: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
        case .bool(let v): return v ? 1 : 0
        default: return nil
        }
    }

    var exactDecimal: Decimal? {
        switch self {
        case .int(let v): return Decimal(v)
        case .decimal(let v): return v
        default: return nil
        }
    }

    /// The value as a store query variable; nil for what a store cannot compare (transformable values).
    var queryValue: QueryValue? {
        switch self {
        case .collection(let items):
            var values: [StoreValue] = []
            for item in items {
                guard case .value(let v)? = item.queryValue else { return nil }
                values.append(v)
            }
            return .list(values)
        default:
            return storeValue.map(QueryValue.value)
        }
    }

    /// The value as stored (a related object as a reference); nil for a collection or another value.
    var storeValue: StoreValue? {
        switch self {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .double(let v): return .double(v)
        case .decimal(let v): return .decimal(v)
        case .string(let v): return .string(v)
        case .date(let v): return .date(v)
        case .data(let v): return .data(v)
        case .uuid(let v): return .uuid(v)
        case .url(let v): return .url(v)
        case .object(let o): return .reference(o.objectID)
        case .objectID(let id): return .reference(id)
        case .collection, .other: return nil
        }
    }
}
