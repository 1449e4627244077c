import Foundation

/// A Swift type that a managed attribute can have. Besides the conversion to and
/// from a `SlotValue`, each type reads and writes its slot directly: scalar types
/// (integers, floating point, `Bool`, `Date`) a plain cell, the others their
/// `SlotValue`. The runtime conforms the standard attribute types and their optionals.
public protocol ManagedValue {
    /// The value in a slot (`.null` only for optionals).
    static func fromSlot(_ slot: SlotValue) -> Self
    /// The slot holding this value.
    var slotValue: SlotValue { get }

    /// Reads the value from an object's slot (the object is loaded).
    static func _read(from object: ManagedObject, slot: Int) -> Self
    /// Writes the value into an object's slot (change tracking is the caller's).
    static func _write(_ value: Self, to object: ManagedObject, slot: Int)
    /// Reads an optional value of this type.
    static func _readOptional(from object: ManagedObject, slot: Int) -> Self?
    /// Writes an optional value of this type.
    static func _writeOptional(_ value: Self?, to object: ManagedObject, slot: Int)

    /// A property's value as `@Managed` reads it: fires a fault, registers the read with observation.
    static func _get(from object: ManagedObject, slot: Int) -> Self
    /// Sets a property as `@Managed` writes it: change tracking, observers, inverses for relationships.
    static func _set(_ value: Self, on object: ManagedObject, slot: Int)
    /// `_get` of an optional property of this type.
    static func _getOptional(from object: ManagedObject, slot: Int) -> Self?
    /// `_set` of an optional property of this type.
    static func _setOptional(_ value: Self?, on object: ManagedObject, slot: Int)
}

extension ManagedValue {
    @inlinable public static func _read(from object: ManagedObject, slot: Int) -> Self {
        fromSlot(object._slots[slot])
    }
    @inlinable public static func _write(_ value: Self, to object: ManagedObject, slot: Int) {
        object._slots[slot] = value.slotValue
    }
    @inlinable public static func _readOptional(from object: ManagedObject, slot: Int) -> Self? {
        let value = object._slots[slot]
        if case .null = value { return nil }
        return fromSlot(value)
    }
    @inlinable public static func _writeOptional(_ value: Self?, to object: ManagedObject, slot: Int) {
        object._slots[slot] = value?.slotValue ?? .null
    }
    @inlinable @inline(__always) public static func _get(from object: ManagedObject, slot: Int) -> Self {
        object._managedValue(at: slot)
    }
    @inlinable @inline(__always) public static func _set(_ value: Self, on object: ManagedObject, slot: Int) {
        object._setManagedValue(value, at: slot)
    }
    @inlinable @inline(__always) public static func _getOptional(from object: ManagedObject, slot: Int) -> Self? {
        object._managedValue(at: slot)
    }
    @inlinable @inline(__always) public static func _setOptional(_ value: Self?, on object: ManagedObject, slot: Int) {
        object._setManagedValue(value, at: slot)
    }
}

/// Scalar types keep their bits in a plain cell: reading is a load, writing a store.
public protocol ManagedScalarValue: ManagedValue {
    /// The cell bits of the value.
    var _bits: UInt64 { get }
    /// The value of cell bits.
    init(_bits: UInt64)
}

extension ManagedScalarValue {
    @inlinable public static func _read(from object: ManagedObject, slot: Int) -> Self {
        Self(_bits: object._cell(slot).pointee.bits)
    }
    @inlinable public static func _write(_ value: Self, to object: ManagedObject, slot: Int) {
        object._cell(slot).pointee = ScalarCell(bits: value._bits, isNull: false)
    }
    @inlinable public static func _readOptional(from object: ManagedObject, slot: Int) -> Self? {
        let cell = object._cell(slot).pointee
        return cell.isNull ? nil : Self(_bits: cell.bits)
    }
    @inlinable public static func _writeOptional(_ value: Self?, to object: ManagedObject, slot: Int) {
        object._cell(slot).pointee = value.map { ScalarCell(bits: $0._bits, isNull: false) } ?? ScalarCell(bits: 0, isNull: true)
    }
}

@usableFromInline
func slotMismatch(_ slot: SlotValue, _ type: Any.Type) -> Never {
    preconditionFailure("ModelgenRuntime: slot holds \(slot), not \(type); the generated code and the model disagree (regenerate)")
}

extension Int64: ManagedScalarValue {
    @inlinable public var _bits: UInt64 { UInt64(bitPattern: self) }
    @inlinable public init(_bits: UInt64) { self.init(bitPattern: _bits) }
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Int64 {
        if case .int(let v) = slot { return v }
        if case .null = slot { return 0 }
        slotMismatch(slot, Int64.self)
    }
    @inlinable public var slotValue: SlotValue { .int(self) }
}

extension Int32: ManagedScalarValue {
    @inlinable public var _bits: UInt64 { UInt64(bitPattern: Int64(self)) }
    @inlinable public init(_bits: UInt64) { self.init(truncatingIfNeeded: Int64(bitPattern: _bits)) }
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Int32 {
        if case .int(let v) = slot { return Int32(truncatingIfNeeded: v) }
        if case .null = slot { return 0 }
        slotMismatch(slot, Int32.self)
    }
    @inlinable public var slotValue: SlotValue { .int(Int64(self)) }
}

extension Int16: ManagedScalarValue {
    @inlinable public var _bits: UInt64 { UInt64(bitPattern: Int64(self)) }
    @inlinable public init(_bits: UInt64) { self.init(truncatingIfNeeded: Int64(bitPattern: _bits)) }
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Int16 {
        if case .int(let v) = slot { return Int16(truncatingIfNeeded: v) }
        if case .null = slot { return 0 }
        slotMismatch(slot, Int16.self)
    }
    @inlinable public var slotValue: SlotValue { .int(Int64(self)) }
}

extension Double: ManagedScalarValue {
    @inlinable public var _bits: UInt64 { bitPattern }
    @inlinable public init(_bits: UInt64) { self.init(bitPattern: _bits) }
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Double {
        if case .double(let v) = slot { return v }
        if case .null = slot { return 0 }
        slotMismatch(slot, Double.self)
    }
    @inlinable public var slotValue: SlotValue { .double(self) }
}

extension Float: ManagedScalarValue {
    @inlinable public var _bits: UInt64 { Double(self).bitPattern }
    @inlinable public init(_bits: UInt64) { self.init(Double(bitPattern: _bits)) }
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Float {
        if case .double(let v) = slot { return Float(v) }
        if case .null = slot { return 0 }
        slotMismatch(slot, Float.self)
    }
    @inlinable public var slotValue: SlotValue { .double(Double(self)) }
}

extension Bool: ManagedScalarValue {
    @inlinable public var _bits: UInt64 { self ? 1 : 0 }
    @inlinable public init(_bits: UInt64) { self = _bits != 0 }
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Bool {
        if case .bool(let v) = slot { return v }
        if case .null = slot { return false }
        slotMismatch(slot, Bool.self)
    }
    @inlinable public var slotValue: SlotValue { .bool(self) }
}

extension Date: ManagedScalarValue {
    @inlinable public var _bits: UInt64 { timeIntervalSinceReferenceDate.bitPattern }
    @inlinable public init(_bits: UInt64) { self.init(timeIntervalSinceReferenceDate: Double(bitPattern: _bits)) }
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Date {
        if case .date(let v) = slot { return v }
        if case .null = slot { return Date(timeIntervalSinceReferenceDate: 0) }
        slotMismatch(slot, Date.self)
    }
    @inlinable public var slotValue: SlotValue { .date(self) }
}

extension String: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> String {
        if case .string(let v) = slot { return v }
        if case .null = slot { return "" }
        slotMismatch(slot, String.self)
    }
    @inlinable public var slotValue: SlotValue { .string(self) }
    @inlinable public static func _read(from object: ManagedObject, slot: Int) -> String {
        let place = object._value(slot)
        if case .string(let v) = place.pointee { return v }
        return fromSlot(place.pointee)
    }
}

extension Decimal: ManagedValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Decimal {
        if case .decimal(let v) = slot { return v }
        if case .null = slot { return 0 }
        slotMismatch(slot, Decimal.self)
    }
    @inlinable public var slotValue: SlotValue { .decimal(self) }
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
    @inlinable public static func _read(from object: ManagedObject, slot: Int) -> Wrapped? {
        Wrapped._readOptional(from: object, slot: slot)
    }
    @inlinable public static func _write(_ value: Wrapped?, to object: ManagedObject, slot: Int) {
        Wrapped._writeOptional(value, to: object, slot: slot)
    }
    @inlinable @inline(__always) public static func _get(from object: ManagedObject, slot: Int) -> Wrapped? {
        Wrapped._getOptional(from: object, slot: slot)
    }
    @inlinable @inline(__always) public static func _set(_ value: Wrapped?, on object: ManagedObject, slot: Int) {
        Wrapped._setOptional(value, on: object, slot: slot)
    }
}

/// An enum (or other `RawRepresentable`) stored as its raw value: `status: { type: int16, swiftType: PostStatus }`.
/// Generated model files declare the conformance of each `swiftType` they use (`extension PostStatus:
/// ModelgenRuntime.ManagedRawValue {}`); a stored raw value the type does not accept stops the process
/// with a message naming the property (the store refuses such rows when loading them first).
public protocol ManagedRawValue: ManagedValue, RawRepresentable where RawValue: ManagedValue {}

extension ManagedRawValue {
    @inlinable public static func fromSlot(_ slot: SlotValue) -> Self {
        guard let value = Self(rawValue: RawValue.fromSlot(slot)) else {
            preconditionFailure("ModelgenRuntime: \(slot) is no raw value of \(Self.self)")
        }
        return value
    }
    @inlinable public var slotValue: SlotValue { rawValue.slotValue }
    @inlinable public static func _get(from object: ManagedObject, slot: Int) -> Self {
        object._rawRepresentableValue(at: slot)
    }
    @inlinable public static func _set(_ value: Self, on object: ManagedObject, slot: Int) {
        object._setRawRepresentableValue(value, at: slot)
    }
    @inlinable public static func _getOptional(from object: ManagedObject, slot: Int) -> Self? {
        object._rawRepresentableValue(at: slot)
    }
    @inlinable public static func _setOptional(_ value: Self?, on object: ManagedObject, slot: Int) {
        object._setRawRepresentableValue(value, at: slot)
    }
}

/// A value of a transformable attribute (`Codable` or through a `ValueTransformer`), kept as the value
/// itself and encoded only when saved. Generated model files declare the conformance of each
/// transformable `swiftType` they use (`extension RGBAColor: ModelgenRuntime.ManagedTransformable {}`).
public protocol ManagedTransformable: ManagedValue {}

extension ManagedTransformable {
    public static func fromSlot(_ slot: SlotValue) -> Self {
        guard case .transformable(let box) = slot, let value = box.value as? Self else {
            preconditionFailure("ModelgenRuntime: slot holds \(slot), not \(Self.self)")
        }
        return value
    }
    public var slotValue: SlotValue { .transformable(TransformableBox(self)) }
    public static func _get(from object: ManagedObject, slot: Int) -> Self { object.transformableValue(at: slot) }
    public static func _set(_ value: Self, on object: ManagedObject, slot: Int) { object.setTransformableValue(value, at: slot) }
    public static func _getOptional(from object: ManagedObject, slot: Int) -> Self? { object.optionalTransformableValue(at: slot) }
    public static func _setOptional(_ value: Self?, on object: ManagedObject, slot: Int) { object.setTransformableValue(value, at: slot) }
}

/// A to-one relationship: `@Managed(slot: 11) var author: Author?` (setting it keeps the inverse in step).
extension ManagedObject: ManagedValue {
    public static func fromSlot(_ slot: SlotValue) -> Self {
        guard case .object(let object) = slot else { preconditionFailure("ModelgenRuntime: slot holds \(slot), not a \(Self.self)") }
        return object as! Self
    }
    public var slotValue: SlotValue { .object(self) }
    public static func _get(from object: ManagedObject, slot: Int) -> Self {
        guard let related: Self = object.relatedObject(at: slot) else {
            preconditionFailure("ModelgenRuntime: \(object.entity.name).\(object.entity.properties[slot].name) is nil; declare it optional")
        }
        return related
    }
    public static func _set(_ value: ManagedObject, on object: ManagedObject, slot: Int) {
        object.setRelatedObject(value, at: slot)
    }
    public static func _getOptional(from object: ManagedObject, slot: Int) -> Self? { object.relatedObject(at: slot) }
    public static func _setOptional(_ value: ManagedObject?, on object: ManagedObject, slot: Int) {
        object.setRelatedObject(value, at: slot)
    }
}

/// An unordered to-many relationship: `@Managed(slot: 12) var tags: Set<Tag>` (inverses follow).
extension Set: ManagedValue where Element: ManagedObject {
    public static func fromSlot(_ slot: SlotValue) -> Set<Element> {
        guard case .objects(let list) = slot else { return [] }
        return Set(list.objects.map { $0 as! Element })
    }
    public var slotValue: SlotValue { .objects(ObjectList(sorted { $0.objectID.key < $1.objectID.key })) }
    public static func _get(from object: ManagedObject, slot: Int) -> Set<Element> { object.relatedSet(at: slot) }
    public static func _set(_ value: Set<Element>, on object: ManagedObject, slot: Int) { object.setRelatedSet(value, at: slot) }
}

/// An ordered to-many relationship: `@Managed(slot: 8) var posts: [Post]` (inverses follow, order kept).
extension Array: ManagedValue where Element: ManagedObject {
    public static func fromSlot(_ slot: SlotValue) -> [Element] {
        guard case .objects(let list) = slot else { return [] }
        return list.objects.map { $0 as! Element }
    }
    public var slotValue: SlotValue { .objects(ObjectList(self)) }
    public static func _get(from object: ManagedObject, slot: Int) -> [Element] { object.relatedObjects(at: slot) }
    public static func _set(_ value: [Element], on object: ManagedObject, slot: Int) { object.setRelatedObjects(value, at: slot) }
}
