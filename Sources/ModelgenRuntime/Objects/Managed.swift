/// The property wrapper of generated classes: `@Managed(slot: 2) public var title: String`.
/// The value lives in the object's runtime-owned storage, not in the wrapper; the wrapper
/// holds only the slot number, so reads and writes go straight to the typed slot
/// (with change tracking on write).
@propertyWrapper
public struct Managed<Value: ManagedValue> {
    /// The property's slot in its entity's layout.
    public let slot: Int

    /// Declares a managed property stored in `slot`.
    public init(slot: Int) { self.slot = slot }

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
        get { object.managedValue(at: object[keyPath: storageKeyPath].slot) }
        set { object.setManagedValue(newValue, at: object[keyPath: storageKeyPath].slot) }
    }
}
