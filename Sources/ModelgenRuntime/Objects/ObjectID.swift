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

    /// What `Dictionary` and `Set` use: `identityHash` of the key (every registry lookup, insert and
    /// save re-keying hashes an ID).
    public func _rawHashValue(seed: Int) -> Int { identityHash(UInt64(bitPattern: key), seed: seed) }

    public var description: String { "\(entityName)/\(isTemporaryID ? "t" : "p")\(abs(key))" }
}
