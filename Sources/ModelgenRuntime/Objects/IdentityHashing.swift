/// The hash `Dictionary` and `Set` use for the runtime's identity keys (object IDs, object
/// identities): MurmurHash3's 64-bit finalizer over the key and the table's seed, instead of a full
/// SipHash round per lookup. The keys are store-assigned numbers and object addresses, never chosen
/// by an adversary; the finalizer spreads sequential and power-of-two-strided keys alike.
@inline(__always)
func identityHash(_ key: UInt64, seed: Int) -> Int {
    var x = key ^ UInt64(UInt(bitPattern: seed))
    x ^= x >> 33
    x &*= 0xff51_afd7_ed55_8ccd
    x ^= x >> 33
    x &*= 0xc4ce_b9fe_1a85_ec53
    x ^= x >> 33
    return Int(truncatingIfNeeded: x)
}

/// A record's key (`Z_PK`) as a set member or dictionary key, hashed with `identityHash` rather than
/// SipHash (keys are not chosen by an attacker, and they are hashed on every lookup).
struct RecordKey: Hashable {
    let key: Int64

    init(_ key: Int64) { self.key = key }

    func hash(into hasher: inout Hasher) { hasher.combine(key) }
    func _rawHashValue(seed: Int) -> Int { identityHash(UInt64(bitPattern: key), seed: seed) }
}

/// An object's identity as a set member (`ObjectIdentifier`, hashed with `identityHash`).
struct ObjectKey: Hashable {
    let identifier: ObjectIdentifier

    init(_ object: ManagedObject) { identifier = ObjectIdentifier(object) }

    func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
    func _rawHashValue(seed: Int) -> Int { identityHash(UInt64(UInt(bitPattern: identifier)), seed: seed) }
}
