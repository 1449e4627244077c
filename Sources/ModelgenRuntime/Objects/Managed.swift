/// The property wrapper of generated classes: `@Managed(slot: 2) public var title: String`.
/// The value lives in the object's runtime-owned storage, not in the wrapper; the wrapper
/// holds only the slot number (two bytes), so reads and writes go straight to the typed slot.
/// Reads fire faults and register with observation tracking; writes track the change for
/// save and undo, tell observers, and keep inverse relationships in step.
///
/// Value types: the attribute types (`String`, `Int64`, `Date?`, …), `ManagedRawValue` enums,
/// `ManagedTransformable` values, a `ManagedObject` subclass (to-one), `Set<Destination>`
/// (to-many) and `[Destination]` (ordered to-many).
@propertyWrapper
public struct Managed<Value: ManagedValue> {
    @usableFromInline let _slot: UInt16

    /// The property's slot in its entity's layout.
    @inlinable public var slot: Int { Int(_slot) }

    /// Declares a managed property stored in `slot` (0 to 65,535).
    @inlinable public init(slot: Int) {
        precondition(slot >= 0 && slot <= Int(UInt16.max), "ModelgenRuntime: slot \(slot) out of range")
        _slot = UInt16(truncatingIfNeeded: slot)
    }

    @available(*, unavailable, message: "@Managed is only for properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    // Always inlined: an out-of-line call would take the key paths as run-time objects, and a
    // key path to the storage makes the compiler check exclusivity dynamically on every access.
    @inlinable @inline(__always)
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Managed<Value>>
    ) -> Value {
        get { Value._get(from: object, slot: object[keyPath: storageKeyPath].slot) }
        set { Value._set(newValue, on: object, slot: object[keyPath: storageKeyPath].slot) }
    }
}
