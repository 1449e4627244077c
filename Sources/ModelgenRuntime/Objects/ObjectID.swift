import Foundation

/// The identity of a managed object's record: Sendable, so it can cross between contexts.
/// Objects inserted but not yet saved have a temporary ID; a save replaces it with a permanent one,
/// stable from then on.
public struct ObjectID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The entity's name.
    public let entityName: String
    /// The store-assigned key (positive, permanent) or a temporary key (negative, per process).
    public let key: Int64

    /// Creates an ID.
    public init(entityName: String, key: Int64) {
        self.entityName = entityName
        self.key = key
    }

    /// True until the object is first saved.
    public var isTemporaryID: Bool { key < 0 }

    /// Hashes the key only (entity names are compared by `==`): IDs are hashed on every object lookup.
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// What `Dictionary` and `Set` use (every registry lookup, insert and save re-keying hashes an
    /// ID): `identityHash` of the key's block of 8, with the key's place in its block as the low bits.
    /// Keys come in runs (a table's rows, a save's temporary keys), and a run's IDs then sit in
    /// consecutive buckets, which a fetch or save of 100,000 objects fills and reads in memory order
    /// instead of one cache miss per ID (the blocks themselves are spread as before). Blocks start at
    /// multiples of 8, so two blocks share all their buckets or none.
    public func _rawHashValue(seed: Int) -> Int {
        let bits = UInt64(bitPattern: key)
        return identityHash(bits >> 3, seed: seed) << 3 | Int(bits & 7)
    }

    public var description: String { "\(entityName)/\(isTemporaryID ? "t" : "p")\(abs(key))" }
}
