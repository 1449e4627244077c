import Foundation

/// A value in a managed object's storage slot. Typed cases, so reading a property
/// is a switch, not a cast out of `Any`. Runtime internals used by generated accessors.
public enum SlotValue {
    /// No value.
    case null
    /// A Boolean.
    case bool(Bool)
    /// An integer of any attribute width.
    case int(Int64)
    /// A float or double.
    case double(Double)
    /// A decimal.
    case decimal(Decimal)
    /// Text.
    case string(String)
    /// A date.
    case date(Date)
    /// Bytes.
    case data(Data)
    /// A UUID.
    case uuid(UUID)
    /// A URL.
    case url(URL)
    /// A transformable attribute's value (a Codable value, or a transformer's output), boxed so
    /// the enum stays 24 bytes a slot instead of the 40 an inline `Any` would make it.
    case transformable(TransformableBox)
    /// A to-one relationship's object.
    case object(ManagedObject)
    /// A to-many relationship's objects.
    case objects(ObjectList)

    /// Identity-aware equality: objects by identity; transformables are never equal to a new assignment.
    func isSame(as other: SlotValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.decimal(let a), .decimal(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.url(let a), .url(let b)): return a == b
        case (.object(let a), .object(let b)): return a === b
        case (.objects(let a), .objects(let b)): return a.elementsIdentical(to: b)
        default: return false
        }
    }

    /// The objects a relationship slot holds (none for other values).
    var relatedObjects: [ManagedObject] {
        switch self {
        case .object(let object): return [object]
        case .objects(let list): return list.objects
        default: return []
        }
    }

    /// The value as a caller of `value(forKey:)` sees it.
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
        case .transformable(let box): return box.value
        case .object(let v): return v
        case .objects(let v): return v.objects
        }
    }
}

/// A transformable attribute's value in a slot.
public final class TransformableBox {
    /// The value.
    public let value: Any
    /// Boxes a value.
    public init(_ value: Any) { self.value = value }
}

/// The objects of a to-many relationship: insertion-ordered, no duplicates, O(1) membership.
/// A short list (most are: a post's tags, a book's authors) is searched in place; the hash set of its
/// members is built once it grows past `hashedFrom` objects, so loading thousands of small lists costs
/// one array each, not an array and a set.
public struct ObjectList: Sequence {
    /// The objects, in insertion order.
    public private(set) var objects: [ManagedObject] = []
    /// Every object but those `appendNew(_:)` added since the set last caught up (nil for a short list).
    private var members: Set<ObjectKey>?
    /// How many objects at the end `appendNew(_:)` added without putting them in `members` (the set
    /// catches up at the next membership question that may change the list). Worked out, not stored:
    /// a list has no duplicates, so `members` holds all the others. A stored count made the list
    /// 24 bytes and so every slot of every object 32 instead of 24 (`SlotStorageTests.aSlotValueTakesTwentyFourBytesAndACellSixteen`).
    private var unhashedTail: Int { members.map { objects.count - $0.count } ?? 0 }
    /// The length from which membership is looked up in a hash set.
    private static let hashedFrom = 16

    /// An empty list.
    public init() {}

    /// A list of distinct objects.
    public init(_ objects: [ManagedObject]) {
        self.objects.reserveCapacity(objects.count)
        for object in objects { append(object) }
    }

    /// The number of objects.
    public var count: Int { objects.count }
    /// True when the list holds no object.
    public var isEmpty: Bool { objects.isEmpty }
    public func makeIterator() -> IndexingIterator<[ManagedObject]> { objects.makeIterator() }

    /// True when the object is in the list (a hash lookup, or a scan of a short list).
    public func contains(_ object: ManagedObject) -> Bool {
        if let members {
            return members.contains(ObjectKey(object)) || objects.suffix(unhashedTail).contains { $0 === object }
        }
        return objects.contains { $0 === object }
    }

    /// Adds at the end an object the caller knows is not in the list (a context's list of inserted or
    /// changed objects, which the object's own flags mirror): no membership test, and no hash-set
    /// insert until the list is asked to add or remove by membership. A save of 100,000 new objects
    /// then never builds the set (each insert hashed a cold object address: a cache miss).
    mutating func appendNew(_ object: ManagedObject) {
        objects.append(object)
    }

    /// Puts the objects `appendNew(_:)` added in the hash set (building it once the list is long).
    private mutating func catchUpMembers() {
        if members != nil {
            let tail = unhashedTail
            guard tail > 0 else { return }
            for member in objects.suffix(tail) { members!.insert(ObjectKey(member)) }
        } else if objects.count + 1 >= Self.hashedFrom {
            var set = Set<ObjectKey>(minimumCapacity: objects.count * 2)
            for member in objects { set.insert(ObjectKey(member)) }
            members = set
        }
    }

    /// Adds at the end; false when already present.
    @discardableResult
    public mutating func append(_ object: ManagedObject) -> Bool {
        guard insertMember(object) else { return false }
        objects.append(object)
        return true
    }

    /// Inserts at an index (clamped); false when already present.
    @discardableResult
    public mutating func insert(_ object: ManagedObject, at index: Int) -> Bool {
        guard insertMember(object) else { return false }
        objects.insert(object, at: Swift.min(Swift.max(index, 0), objects.count))
        return true
    }

    /// Removes; false when absent.
    @discardableResult
    public mutating func remove(_ object: ManagedObject) -> Bool {
        catchUpMembers()
        if members != nil {
            guard members!.remove(ObjectKey(object)) != nil else { return false }
        } else if !objects.contains(where: { $0 === object }) {
            return false
        }
        if let index = objects.lastIndex(where: { $0 === object }) { objects.remove(at: index) }
        return true
    }

    /// Records a new member (before it joins `objects`); false when already present.
    private mutating func insertMember(_ object: ManagedObject) -> Bool {
        catchUpMembers()
        if members != nil { return members!.insert(ObjectKey(object)).inserted }
        return !objects.contains(where: { $0 === object })
    }

    func elementsIdentical(to other: ObjectList) -> Bool {
        objects.count == other.objects.count && zip(objects, other.objects).allSatisfy { $0 === $1 }
    }
}
