import Foundation

/// The identity of a managed object's record: Sendable, so it can cross between contexts.
/// Objects inserted but not yet saved have a temporary ID; a save replaces it with a permanent one,
/// stable from then on.
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
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

    /// What `Dictionary` and `Set` use: a seeded 64-bit finalizer (MurmurHash3's) over the key instead
    /// of a full SipHash round. Keys are assigned by the store, not chosen by an adversary, and every
    /// registry lookup, insert and save re-keying hashes an ID.
    public func _rawHashValue(seed: Int) -> Int {
        var x = UInt64(bitPattern: key) ^ UInt64(UInt(bitPattern: seed))
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return Int(truncatingIfNeeded: x)
    }

    public var description: String { "\(entityName)/\(isTemporaryID ? "t" : "p")\(abs(key))" }
}
