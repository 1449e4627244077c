/// A composite attribute's value: a struct whose fields the runtime stores flattened, one slot (and
/// one store column, `address.city`) per field, as Core Data stores composites. Generated model files
/// conform each composite struct: `@Managed(slot: 4) var address: Address` reads its fields from
/// slots 4, 5, … and writes them back with change tracking, undo and observation per field.
///
/// An optional composite (`Address?`) takes one slot more, first: its presence (NULL when nil).
public protocol ManagedComposite: ManagedValue {
    /// The slots a value takes: one per field, nested composites' fields included (an optional
    /// nested composite adds its presence slot).
    static var managedSlotCount: Int { get }
    /// Reads the fields in declaration order.
    init(managedFields fields: inout CompositeFields)
    /// Writes the fields in declaration order.
    func writeManagedFields(to fields: inout CompositeFields)
    /// The fields' names by key path (`\Address.city: "city"`), for `#Predicate` queries on fields.
    static var managedKeyPaths: [PartialKeyPath<Self>: String] { get }
}

/// The cursor generated composite conformances read and write their fields through: each call takes
/// the next slot of the object (a nested composite takes as many as it has fields).
public struct CompositeFields {
    @usableFromInline let object: ManagedObject
    @usableFromInline var slot: Int

    @usableFromInline init(object: ManagedObject, slot: Int) {
        self.object = object
        self.slot = slot
    }

    /// Reads the next field (a scalar value, optional or not).
    @inlinable public mutating func value<Value: ManagedValue>() -> Value {
        defer { slot += 1 }
        return object._managedValue(at: slot)
    }

    /// Reads a nested composite field.
    @inlinable public mutating func composite<Value: ManagedComposite>() -> Value {
        Value(managedFields: &self)
    }

    /// Reads an optional nested composite field (its presence slot, then its fields).
    @inlinable public mutating func optionalComposite<Value: ManagedComposite>() -> Value? {
        let present: Bool? = value()
        guard present != nil else {
            slot += Value.managedSlotCount
            return nil
        }
        return Value(managedFields: &self)
    }

    /// Writes the next field.
    @inlinable public mutating func put<Value: ManagedValue>(_ value: Value) {
        object._setManagedValue(value, at: slot)
        slot += 1
    }

    /// Writes a nested composite field.
    @inlinable public mutating func putComposite<Value: ManagedComposite>(_ value: Value) {
        value.writeManagedFields(to: &self)
    }

    /// Writes an optional nested composite field: its presence, then its fields (all NULL for nil).
    @inlinable public mutating func putOptionalComposite<Value: ManagedComposite>(_ value: Value?) {
        put(value == nil ? nil : true as Bool?)
        if let value {
            value.writeManagedFields(to: &self)
        } else {
            putNulls(Value.managedSlotCount)
        }
    }

    /// Empties the next `count` slots (the fields of a nil composite).
    @usableFromInline mutating func putNulls(_ count: Int) {
        for _ in 0..<count {
            object.setNullValue(at: slot)
            slot += 1
        }
    }
}

extension ManagedComposite {
    /// No names: `#Predicate` queries cannot name the fields of a composite that lists none.
    public static var managedKeyPaths: [PartialKeyPath<Self>: String] { [:] }

    /// `managedKeyPaths` without the root type (the translator looks the composite up at run time).
    static var anyKeyPathNames: [AnyKeyPath: String] {
        Dictionary(managedKeyPaths.map { ($0.key as AnyKeyPath, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// A composite spans several slots: it is never one slot's value.
    public static func fromSlot(_ slot: SlotValue) -> Self {
        preconditionFailure("ModelgenRuntime: \(Self.self) is a composite; its fields are read from their own slots")
    }
    /// A composite spans several slots: it is never one slot's value.
    public var slotValue: SlotValue {
        preconditionFailure("ModelgenRuntime: \(Self.self) is a composite; its fields are written to their own slots")
    }
    public static func _read(from object: ManagedObject, slot: Int) -> Self {
        var fields = CompositeFields(object: object, slot: slot)
        return Self(managedFields: &fields)
    }
    public static func _write(_ value: Self, to object: ManagedObject, slot: Int) {
        var fields = CompositeFields(object: object, slot: slot)
        value.writeManagedFields(to: &fields)
    }
    public static func _readOptional(from object: ManagedObject, slot: Int) -> Self? {
        var fields = CompositeFields(object: object, slot: slot)
        return fields.optionalComposite()
    }
    public static func _writeOptional(_ value: Self?, to object: ManagedObject, slot: Int) {
        var fields = CompositeFields(object: object, slot: slot)
        fields.putOptionalComposite(value)
    }
    public static func _get(from object: ManagedObject, slot: Int) -> Self { _read(from: object, slot: slot) }
    public static func _set(_ value: Self, on object: ManagedObject, slot: Int) { _write(value, to: object, slot: slot) }
    public static func _getOptional(from object: ManagedObject, slot: Int) -> Self? { _readOptional(from: object, slot: slot) }
    public static func _setOptional(_ value: Self?, on object: ManagedObject, slot: Int) { _writeOptional(value, to: object, slot: slot) }
}

extension ManagedObject {
    /// Reads a composite attribute whose fields start at `slot` (extension-mode and accessor-style code).
    @_spi(Generated)
    public final func compositeValue<Value: ManagedComposite>(at slot: Int) -> Value {
        Value._read(from: self, slot: slot)
    }

    /// Reads an optional composite attribute whose presence slot is `slot`.
    @_spi(Generated)
    public final func optionalCompositeValue<Value: ManagedComposite>(at slot: Int) -> Value? {
        Value._readOptional(from: self, slot: slot)
    }

    /// Writes a composite attribute whose fields start at `slot`.
    @_spi(Generated)
    public final func setCompositeValue<Value: ManagedComposite>(_ value: Value, at slot: Int) {
        Value._write(value, to: self, slot: slot)
    }

    /// Writes an optional composite attribute whose presence slot is `slot`.
    @_spi(Generated)
    public final func setCompositeValue<Value: ManagedComposite>(_ value: Value?, at slot: Int) {
        Value._writeOptional(value, to: self, slot: slot)
    }

    /// Empties a slot with change tracking, whatever its type.
    @usableFromInline final func setNullValue(at slot: Int) {
        _willWrite()
        storeSlot(slot, .null)
    }
}
