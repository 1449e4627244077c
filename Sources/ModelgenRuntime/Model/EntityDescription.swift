import Observation
import ModelgenPredicate

/// A property in an entity's slot layout: an attribute or a relationship.
public enum PropertyDescription: Sendable {
    /// An attribute.
    case attribute(AttributeDescription)
    /// A relationship.
    case relationship(RelationshipDescription)

    /// The property's name.
    public var name: String {
        switch self {
        case .attribute(let a): return a.name
        case .relationship(let r): return r.name
        }
    }

    /// True for transient properties (tracked, never saved).
    public var isTransient: Bool {
        switch self {
        case .attribute(let a): return a.isTransient
        case .relationship(let r): return r.isTransient
        }
    }
}

/// An entity: a kind of managed object. Created by generated code, then resolved
/// (parents, slot layout, inverses) once by `ManagedObjectModel`, and immutable after that.
public final class EntityDescription: @unchecked Sendable, CustomStringConvertible {
    /// The entity's name, as the model writes it.
    public let name: String
    /// The class instances of this entity have.
    public let managedClass: ManagedObject.Type
    /// True for entities that have no objects of their own, only subentities'.
    public let isAbstract: Bool
    /// The entity it inherits from (nil: a root entity).
    public let parentName: String?
    /// The entity's own attributes, relationships and fetched properties (not inherited ones).
    public let ownAttributes: [AttributeDescription]
    /// See `ownAttributes`.
    public let ownRelationships: [RelationshipDescription]
    /// See `ownAttributes`.
    public let fetchedProperties: [FetchedPropertyDescription]
    /// Uniqueness constraints: lists of attribute names.
    public let uniquenessConstraints: [[String]]
    /// Indexes: lists of attribute (or to-one relationship) names, one index each.
    public let indexes: [[String]]
    /// Dependent keys: each computed property's name with the key paths it depends on
    /// (`["fullName": ["firstName", "lastName"], "departmentName": ["department.name"]]`).
    public let dependencies: [String: [String]]
    /// Free-form entries from the model (`userInfo:`).
    public let userInfo: [String: String]

    // Resolved by ManagedObjectModel.init (set once, then read-only): read on every object load and
    // save, so exempt from dynamic exclusivity checks (nothing writes them once the model is built).
    /// The parent entity.
    public internal(set) unowned(unsafe) var parent: EntityDescription?
    /// Direct subentities.
    @exclusivity(unchecked) public internal(set) var subentities: [EntityDescription] = []
    /// Every property, inherited first: the index of a property is its slot.
    @exclusivity(unchecked) public internal(set) var properties: [PropertyDescription] = []
    /// Slot of each property by name.
    @exclusivity(unchecked) public internal(set) var slotsByName: [String: Int] = [:]
    /// True when some attribute is a composite's field (`address.city`): key paths may join keys.
    @exclusivity(unchecked) public internal(set) var hasCompositeFields = false
    /// For relationship slots: the destination entity and the inverse's slot in it.
    @exclusivity(unchecked) internal var destinations: [Int: (entity: EntityDescription, inverseSlot: Int?)] = [:]
    /// Per slot: 0 for values kept as `SlotValue`, else the scalar kind kept in a plain cell (see `ScalarKind`).
    @exclusivity(unchecked) public internal(set) var scalarKinds: UnsafeMutablePointer<UInt8> = .allocate(capacity: 1)
    /// Per slot: the byte offset of its place in an object's storage (a scalar's cell takes 16 bytes, a
    /// `SlotValue` 24); inherited slots first, so a parent's slots sit at the same offsets.
    @exclusivity(unchecked) @usableFromInline internal var slotOffsets: UnsafeMutablePointer<Int32> = .allocate(capacity: 1)
    /// The bytes of an object's storage (at least 16).
    @exclusivity(unchecked) internal var slotBytes = 16
    /// An object's storage with every slot empty (`SlotValue.null`, or a null cell): a new object's
    /// storage starts as a copy of it. Every empty place is plain bits (no reference), so one `memcpy`
    /// does what a loop storing each slot's empty value by its kind did.
    @exclusivity(unchecked) internal var emptySlots: UnsafeMutableRawPointer = {
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        return bytes
    }()
    /// Dependent keys (own and inherited) resolved to slot paths: `department.name` is [department's slot,
    /// name's slot in the department's entity].
    @exclusivity(unchecked) internal var dependencySlotPaths: [String: [[Int]]] = [:]
    /// The key path observers see for each slot (`ManagedObject+Observation`).
    @exclusivity(unchecked) @usableFromInline internal var observationKeyPaths: [KeyPath<ManagedObject, Int>] = [] {
        didSet {
            observationKeyPathRefs.deallocate()
            observationKeyPathRefs = .allocate(capacity: max(observationKeyPaths.count, 1))
            observationKeyPathRefs.initialize(from: observationKeyPaths.map { Unmanaged.passUnretained($0) }, count: observationKeyPaths.count)
        }
    }
    /// The same key paths, unretained (the array keeps them): the read path uses them without reference counting.
    @exclusivity(unchecked) internal var observationKeyPathRefs: UnsafeMutablePointer<Unmanaged<KeyPath<ManagedObject, Int>>> = .allocate(capacity: 1)
    /// The tracking probe's registrar and key path (see `ObservationProbe`), here so an object's read
    /// reaches them through its entity without a global's lazy-initialisation check.
    @usableFromInline internal let probeRegistrar = ObservationRegistrar()
    /// (Held as `Unmanaged`, released by `deinit`: the read path uses it without reference counting.)
    @usableFromInline nonisolated(unsafe) internal let probeKeyPathRef: Unmanaged<KeyPath<ManagedObject, Int>> = .passRetained(ObservationProbe.keyPath)
    /// Each slot's value in a newly inserted object (defaults; empty to-many lists).
    @exclusivity(unchecked) internal var initialSlots: [SlotValue] = []
    /// Whether the entity has to-many relationships that are stored (fetched rows may leave them out).
    @exclusivity(unchecked) internal var hasToManyRelationships = false
    /// The stored to-many relationships' slots as bits, when all are below 32 (else 0: a fetched object's
    /// to-many relationships are then loaded with it, not when first used).
    @exclusivity(unchecked) internal var lazyToManyMask: UInt32 = 0
    /// The slots of relationships (the values that can make cycles between objects).
    @exclusivity(unchecked) internal var relationshipSlots: [Int] = []
    /// Whether loading a row can fail part way (transformables to decode, raw values to check): then the
    /// row is converted whole before any slot is written.
    @exclusivity(unchecked) internal var needsCheckedLoad = false
    /// The class's `_awakesFromFetch`: whether a fetch calls `awakeFromFetch()` on its objects.
    @exclusivity(unchecked) internal var awakesFromFetch = true
    /// The class's `_mayValidateValues`: whether a save calls `validateValue(_:forKey:)` for its objects.
    @exclusivity(unchecked) internal var mayValidateValues = true
    /// Per slot: a stored attribute whose row value and slot value are the same thing (no check, coding
    /// or reference): loaded and saved without looking at its property.
    @exclusivity(unchecked) internal var isPlainStoredAttribute: [Bool] = []
    /// The slots `isPlainStoredAttribute` leaves out (relationships, transients, checked attributes).
    @exclusivity(unchecked) internal var slotsNotPlain: [Int] = []
    /// Per slot, what saving validates (worked out once, so the checks of an attribute without
    /// constraints come down to a null test).
    @exclusivity(unchecked) internal var validationSteps: [ValidationStep] = []
    /// Derivation expressions of derived attributes, by slot, parsed once.
    @exclusivity(unchecked) internal var derivations: [Int: ModelgenPredicate.Expression] = [:]
    /// The entity's own fetched properties, predicates and sorts parsed once.
    @exclusivity(unchecked) internal var parsedFetchedProperties: [String: ParsedFetch] = [:]
    /// Property names by the class's key paths (`#Predicate` translation).
    public let keyPathNames: [AnyKeyPath: String]
    /// The entity's former name: a store saved with it keeps its records (table and code) under the new name.
    public let renamingIdentifier: String?
    /// Part of the model's version hash (see `AttributeDescription.versionHashModifier`).
    public let versionHashModifier: String?
    /// The model the entity belongs to.
    public internal(set) unowned(unsafe) var model: ManagedObjectModel!

    /// Describes an entity.
    /// `keyPaths` names the class's properties for `#Predicate` and `SortDescriptor` queries
    /// (`\Post.title: "title"`, inherited properties included); generated descriptions list them all.
    public init<Class: ManagedObject>(_ name: String, class managedClass: Class.Type, abstract: Bool = false, parent: String? = nil,
                renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
                attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
                fetchedProperties: [FetchedPropertyDescription] = [], unique: [[String]] = [], indexes: [[String]] = [],
                dependencies: [String: [String]] = [:], userInfo: [String: String] = [:],
                keyPaths: [PartialKeyPath<Class>: String] = [:]) {
        self.keyPathNames = Dictionary(keyPaths.map { ($0.key as AnyKeyPath, $0.value) }, uniquingKeysWith: { first, _ in first })
        self.name = name
        self.managedClass = managedClass
        self.isAbstract = abstract
        self.parentName = parent
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.ownAttributes = attributes
        self.ownRelationships = relationships
        self.fetchedProperties = fetchedProperties
        self.uniquenessConstraints = unique
        self.indexes = indexes
        self.dependencies = dependencies
        self.userInfo = userInfo
    }

    deinit {
        scalarKinds.deallocate()
        slotOffsets.deallocate()
        emptySlots.deallocate()
        observationKeyPathRefs.deallocate()
        probeKeyPathRef.release()
    }

    /// The key paths a computed property depends on (Core Data's `keyPathsForValuesAffectingValue(forKey:)`),
    /// own or inherited; empty for other keys.
    public func dependencies(of key: String) -> [String] {
        var entity: EntityDescription? = self
        while let current = entity {
            if let paths = current.dependencies[key] { return paths }
            entity = current.parent
        }
        return []
    }

    /// The slot of a property, by name.
    public func slot(of name: String) -> Int? { slotsByName[name] }

    /// The composite field a key path names from `index` on, when it names one: the longest run of
    /// keys joined by dots (`address`, `city` → `address.city`) that is an attribute of the entity,
    /// and the index after it. Nil for an entity without composite fields or a run that is none.
    func compositeKey(_ names: [String], at index: Int) -> (key: String, end: Int)? {
        guard hasCompositeFields, index + 1 < names.count else { return nil }
        var joined = names[index], best: (String, Int)?
        for next in (index + 1)..<names.count {
            joined += "." + names[next]
            if slotsByName[joined] != nil { best = (joined, next + 1) }
        }
        return best
    }

    /// `compositeKey` over a parsed key path (stops at a collection operator).
    func compositeKey(_ components: [KeyPathComponent], at index: Int) -> (key: String, end: Int)? {
        guard hasCompositeFields else { return nil }
        var names: [String] = []
        for component in components[index...] {
            guard case .key(let key) = component.kind else { break }
            names.append(key)
        }
        return compositeKey(names, at: 0).map { ($0.key, index + $0.end) }
    }

    /// The property in a slot.
    public func property(at slot: Int) -> PropertyDescription { properties[slot] }

    /// True when this entity is `other` or one of its subentities.
    public func isKind(of other: EntityDescription) -> Bool {
        var current: EntityDescription? = self
        while let entity = current {
            if entity === other { return true }
            current = entity.parent
        }
        return false
    }

    /// This entity and all its subentities, depth first.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.flatMap(\.selfAndDescendants)
    }

    /// The root of the entity's inheritance tree.
    public var root: EntityDescription { parent?.root ?? self }

    public var description: String { "<entity \(name)>" }

    package func destination(ofSlot slot: Int) -> (entity: EntityDescription, inverseSlot: Int?) {
        destinations[slot]!
    }
}

extension EntityDescription {
    /// Works out `slotOffsets` and `slotBytes` from `scalarKinds`: each scalar slot's cell in 16 bytes,
    /// each other slot's `SlotValue` in 24 (one size for both made a ten-attribute object's storage
    /// 240 bytes where 184 hold it).
    func layOutSlots() {
        precondition(MemoryLayout<ScalarCell>.stride <= SlotAccess.cellPlace && MemoryLayout<SlotValue>.stride <= SlotAccess.valuePlace
                     && MemoryLayout<SlotValue>.alignment <= 8 && MemoryLayout<ScalarCell>.alignment <= 8)
        slotOffsets.deallocate()
        slotOffsets = .allocate(capacity: max(properties.count, 1))
        var offset = 0
        for slot in properties.indices {
            slotOffsets[slot] = Int32(offset)
            offset += scalarKinds[slot] == ScalarKind.boxed.rawValue ? SlotAccess.valuePlace : SlotAccess.cellPlace
        }
        slotBytes = max(offset, 16)
        emptySlots.deallocate()
        emptySlots = .allocate(byteCount: slotBytes, alignment: 16)
        emptySlots.initializeMemory(as: UInt8.self, repeating: 0, count: slotBytes)
        for slot in properties.indices {
            let place = emptySlots + Int(slotOffsets[slot])
            if scalarKinds[slot] == ScalarKind.boxed.rawValue {
                place.initializeMemory(as: SlotValue.self, to: .null)
            } else {
                place.initializeMemory(as: ScalarCell.self, to: ScalarCell(bits: 0, isNull: true))
            }
        }
    }
}
