/// A `@Managed` property as reflection sees it: its slot and its value type.
protocol ManagedPropertyReflection {
    var slot: Int { get }
    static var valueType: Any.Type { get }
}

extension Managed: ManagedPropertyReflection {
    static var valueType: Any.Type { Value.self }
}

/// `Optional` with its wrapped type at hand (to tell an optional scalar from a boxed value).
protocol OptionalManagedValueReflection {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalManagedValueReflection {
    static var wrappedType: Any.Type { Wrapped.self }
}

extension EntityDescription {
    /// Checks the `@Managed` properties of the entity's class against its slots, once, when the model
    /// is built: each slot exists, and a property whose type keeps its value in a plain cell (integers,
    /// floating point, Booleans, dates, and their optionals) sits on a slot of such an attribute, and a
    /// `String` on a slot that holds a `SlotValue`. A scalar slot's cell and a `SlotValue` share the
    /// slot's place (`ManagedObject._cell(_:)`), so a property read through the other kind would read
    /// memory as the wrong type: the model refuses such a class instead (a hand-written class whose
    /// slots or types drifted from the model; generated classes always match).
    func checkManagedProperties() throws {
        guard managedClass != ManagedObject.self else { return }
        let probe = managedClass.init(entity: self, objectID: ObjectID(entityName: name, key: 0), context: nil, isFault: true)
        var mirror: Mirror? = Mirror(reflecting: probe)
        while let current = mirror, current.subjectType != ManagedObject.self {
            for child in current.children {
                guard let property = child.value as? any ManagedPropertyReflection else { continue }
                let label = String((child.label ?? "?").drop { $0 == "_" })
                let valueType = type(of: property).valueType
                let slot = property.slot
                guard slot < properties.count else {
                    throw RuntimeError.invalidModel("\(managedClass).\(label) is @Managed(slot: \(slot)), but '\(name)' has \(properties.count) slots (regenerate the class, or fix its slot numbers)")
                }
                let boxed = scalarKinds[slot] == ScalarKind.boxed.rawValue
                let wrapped = (valueType as? any OptionalManagedValueReflection.Type)?.wrappedType
                // An enum reads and writes its raw value's way.
                let stored = Self.rawValueType(of: wrapped ?? valueType) ?? wrapped ?? valueType
                let usesCell = stored is any ManagedScalarValue.Type
                let readsSlotValueInPlace = stored == String.self && wrapped == nil   // (a `String?` reads through the slot's kind)
                if (usesCell && boxed) || (readsSlotValueInPlace && !boxed) {
                    throw RuntimeError.invalidModel("\(managedClass).\(label) is declared \(valueType) in slot \(slot), which holds '\(name).\(properties[slot].name)', \(Self.slotDescription(properties[slot])): the class does not match the model (regenerate it, or fix its type or slot)")
                }
            }
            mirror = current.superclassMirror
        }
    }

    /// The raw value type of a `RawRepresentable` type (an enum property is stored as its raw value).
    private static func rawValueType(of type: Any.Type) -> Any.Type? {
        func raw<T: RawRepresentable>(_: T.Type) -> Any.Type { T.RawValue.self }
        return (type as? any RawRepresentable.Type).map { raw($0) }
    }

    private static func slotDescription(_ property: PropertyDescription) -> String {
        switch property {
        case .attribute(let a): return "an attribute of type \(a.type.rawValue)"
        case .relationship(let r): return r.isToMany ? "a to-many relationship" : "a to-one relationship"
        }
    }
}
