/// Object IDs kept compactly: one key per record (8 bytes) and, when the list spans several
/// entities, a 2-byte entity index per record. Batched fetches hold the IDs of every matching
/// record in one of these, so a million rows cost 8 MB of IDs, not a million objects.
public struct ObjectIDList: RandomAccessCollection, Sendable {
    /// The entity names the list uses, in order of first appearance.
    public private(set) var entityNames: [String] = []
    /// The records' keys, in list order.
    public private(set) var keys: [Int64] = []
    /// For each record, its entity's index in `entityNames`; empty while the list has one entity.
    private var entityIndexes: [UInt16] = []

    /// An empty list.
    public init() {}

    /// A list of the given IDs, in order.
    public init<S: Sequence>(_ ids: S) where S.Element == ObjectID {
        for id in ids { append(id) }
    }

    /// Adds an ID at the end.
    public mutating func append(_ id: ObjectID) {
        append(key: id.key, entityName: id.entityName)
    }

    /// Adds a record at the end by key and entity name.
    public mutating func append(key: Int64, entityName: String) {
        let index: Int
        if let last = entityNames.last, last == entityName {
            index = entityNames.count - 1
        } else if let found = entityNames.firstIndex(of: entityName) {
            index = found
        } else {
            precondition(entityNames.count < Int(UInt16.max), "too many entities in one ID list")
            entityNames.append(entityName)
            index = entityNames.count - 1
        }
        if index > 0 && entityIndexes.isEmpty {
            // The second entity: from now on every record names its entity.
            entityIndexes = Array(repeating: 0, count: keys.count)
        }
        if !entityIndexes.isEmpty { entityIndexes.append(UInt16(index)) }
        keys.append(key)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    public subscript(position: Int) -> ObjectID {
        let entity = entityIndexes.isEmpty ? 0 : Int(entityIndexes[position])
        return ObjectID(entityName: entityNames[entity], key: keys[position])
    }
}
