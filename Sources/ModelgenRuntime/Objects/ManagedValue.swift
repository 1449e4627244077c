import Foundation

/// A Swift type that a managed attribute can have: converts to and from a storage slot.
/// The runtime conforms the standard attribute types and their optionals.
public protocol ManagedValue {
    /// The value in a slot (`.null` only for optionals).
    static func fromSlot(_ slot: SlotValue) -> Self
    /// The slot holding this value.
    var slotValue: SlotValue { get }
}

@usableFromInline
func slotMismatch(_ slot: SlotValue, _ type: Any.Type) -> Never {
    preconditionFailure("ModelgenRuntime: slot holds \(slot), not \(type); the generated code and the model disagree (regenerate)")
}

extension String: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> String {
        if case .string(let v) = slot { return v }
        if case .null = slot { return "" }
        slotMismatch(slot, String.self)
    }
    @inlinable public var slotValue: SlotValue { .string(self) }
}

extension Bool: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Bool {
        if case .bool(let v) = slot { return v }
        if case .null = slot { return false }
        slotMismatch(slot, Bool.self)
    }
    @inlinable public var slotValue: SlotValue { .bool(self) }
}

extension Int64: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Int64 {
        if case .int(let v) = slot { return v }
        if case .null = slot { return 0 }
        slotMismatch(slot, Int64.self)
    }
    @inlinable public var slotValue: SlotValue { .int(self) }
}

extension Int32: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Int32 {
        if case .int(let v) = slot { return Int32(truncatingIfNeeded: v) }
        if case .null = slot { return 0 }
        slotMismatch(slot, Int32.self)
    }
    @inlinable public var slotValue: SlotValue { .int(Int64(self)) }
}

extension Int16: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Int16 {
        if case .int(let v) = slot { return Int16(truncatingIfNeeded: v) }
        if case .null = slot { return 0 }
        slotMismatch(slot, Int16.self)
    }
    @inlinable public var slotValue: SlotValue { .int(Int64(self)) }
}

extension Double: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Double {
        if case .double(let v) = slot { return v }
        if case .null = slot { return 0 }
        slotMismatch(slot, Double.self)
    }
    @inlinable public var slotValue: SlotValue { .double(self) }
}

extension Float: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Float {
        if case .double(let v) = slot { return Float(v) }
        if case .null = slot { return 0 }
        slotMismatch(slot, Float.self)
    }
    @inlinable public var slotValue: SlotValue { .double(Double(self)) }
}

extension Decimal: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Decimal {
        if case .decimal(let v) = slot { return v }
        if case .null = slot { return 0 }
        slotMismatch(slot, Decimal.self)
    }
    @inlinable public var slotValue: SlotValue { .decimal(self) }
}

extension Date: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Date {
        if case .date(let v) = slot { return v }
        if case .null = slot { return Date(timeIntervalSinceReferenceDate: 0) }
        slotMismatch(slot, Date.self)
    }
    @inlinable public var slotValue: SlotValue { .date(self) }
}

extension Data: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Data {
        if case .data(let v) = slot { return v }
        if case .null = slot { return Data() }
        slotMismatch(slot, Data.self)
    }
    @inlinable public var slotValue: SlotValue { .data(self) }
}

extension UUID: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> UUID {
        if case .uuid(let v) = slot { return v }
        slotMismatch(slot, UUID.self)
    }
    @inlinable public var slotValue: SlotValue { .uuid(self) }
}

extension URL: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> URL {
        if case .url(let v) = slot { return v }
        slotMismatch(slot, URL.self)
    }
    @inlinable public var slotValue: SlotValue { .url(self) }
}

extension Optional: ManagedValue where Wrapped: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Wrapped? {
        if case .null = slot { return nil }
        return Wrapped.fromSlot(slot)
    }
    @inlinable public var slotValue: SlotValue {
        switch self {
        case .none: return .null
        case .some(let v): return v.slotValue
        }
    }
}
