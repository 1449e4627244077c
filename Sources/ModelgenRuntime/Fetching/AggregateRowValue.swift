import Foundation

/// A Swift type an aggregate row's value converts to (`AggregateRow.value(_:as:)`): the attribute types
/// a group key or a column can have, and `ObjectID` for a to-one group key.
public protocol AggregateRowValue {
    /// The value, or nil for NULL or a value of another kind.
    init?(aggregateValue value: StoreValue)
}

extension AggregateRow {
    /// A group key's or a column's value as `type` (nil for NULL, for a name the request did not ask
    /// for, or for a value that is not one of `type`).
    public func value<Value: AggregateRowValue>(_ name: String, as type: Value.Type = Value.self) -> Value? {
        values[name].flatMap { Value(aggregateValue: $0) }
    }
}

extension Int16: AggregateRowValue {
    /// An integer that fits.
    public init?(aggregateValue value: StoreValue) {
        guard case .int(let v) = value else { return nil }
        self.init(exactly: v)
    }
}

extension Int32: AggregateRowValue {
    /// An integer that fits.
    public init?(aggregateValue value: StoreValue) {
        guard case .int(let v) = value else { return nil }
        self.init(exactly: v)
    }
}

extension Int64: AggregateRowValue {
    /// An integer (a double only when it is a whole number).
    public init?(aggregateValue value: StoreValue) {
        switch value {
        case .int(let v): self = v
        case .double(let v): self.init(exactly: v)
        default: return nil
        }
    }
}

extension Int: AggregateRowValue {
    /// An integer that fits.
    public init?(aggregateValue value: StoreValue) {
        guard let v = Int64(aggregateValue: value) else { return nil }
        self.init(exactly: v)
    }
}

extension Double: AggregateRowValue {
    /// A number.
    public init?(aggregateValue value: StoreValue) {
        switch value {
        case .double(let v): self = v
        case .int(let v): self = Double(v)
        case .decimal(let v): self = NSDecimalNumber(decimal: v).doubleValue
        default: return nil
        }
    }
}

extension Float: AggregateRowValue {
    /// A number.
    public init?(aggregateValue value: StoreValue) {
        guard let v = Double(aggregateValue: value) else { return nil }
        self.init(v)
    }
}

extension Decimal: AggregateRowValue {
    /// A decimal (or an integer).
    public init?(aggregateValue value: StoreValue) {
        switch value {
        case .decimal(let v): self = v
        case .int(let v): self.init(v)
        default: return nil
        }
    }
}

extension Bool: AggregateRowValue {
    /// A Boolean (or the 0 and 1 SQL stores keep).
    public init?(aggregateValue value: StoreValue) {
        switch value {
        case .bool(let v): self = v
        case .int(0): self = false
        case .int(1): self = true
        default: return nil
        }
    }
}

extension String: AggregateRowValue {
    /// Text.
    public init?(aggregateValue value: StoreValue) {
        guard case .string(let v) = value else { return nil }
        self = v
    }
}

extension Data: AggregateRowValue {
    /// Bytes (a projected binary attribute).
    public init?(aggregateValue value: StoreValue) {
        guard case .data(let v) = value else { return nil }
        self = v
    }
}

extension Date: AggregateRowValue {
    /// A date.
    public init?(aggregateValue value: StoreValue) {
        guard case .date(let v) = value else { return nil }
        self = v
    }
}

extension UUID: AggregateRowValue {
    /// A UUID.
    public init?(aggregateValue value: StoreValue) {
        guard case .uuid(let v) = value else { return nil }
        self = v
    }
}

extension URL: AggregateRowValue {
    /// A URL.
    public init?(aggregateValue value: StoreValue) {
        guard case .url(let v) = value else { return nil }
        self = v
    }
}

extension ObjectID: AggregateRowValue {
    /// A to-one group key's related record.
    public init?(aggregateValue value: StoreValue) {
        guard case .reference(let id?) = value else { return nil }
        self = id
    }
}
