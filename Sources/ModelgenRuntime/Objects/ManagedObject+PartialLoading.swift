/// How much of a managed object's values its slots hold.
@usableFromInline
enum LoadState: UInt8 {
    /// Every value (to-many relationships may still be pending: `_pendingToMany`).
    case loaded
    /// None: the first read loads them.
    case fault
    /// Those a fetch with `propertiesToFetch` read; every other slot holds the unloaded mark (a to-many
    /// relationship that can wait for its first use is pending instead). Reading a loaded slot reads it;
    /// anything else loads the whole object first.
    case partial
}

/// A partial object's slots: which ones its fetch loaded, and the mark of the others. The only code
/// besides `ManagedObject` and `SlotLoading` that writes slot memory.
extension ManagedObject {
    /// The value of a boxed slot a partial object has not loaded, compared by identity only (never
    /// read, never changed: shared by every thread as it is).
    nonisolated(unsafe) private static let unloadedBox = TransformableBox(UnloadedValue())
    /// The bits of a scalar slot's null cell a partial object has not loaded (a nil value's cell has none set).
    private static let unloadedBits = UInt64.max

    /// What an unloaded slot's box holds: a type nobody else has.
    private struct UnloadedValue {}

    /// Whether slot `slot` holds a value: always for a loaded object, never for a fault, and for a
    /// partial object when its fetch read the slot (or the slot is a to-many relationship pending
    /// until its first use).
    final func hasLoaded(_ slot: Int) -> Bool {
        switch _loadState {
        case .loaded: return true
        case .fault: return false
        case .partial:
            if entity.scalarKinds[slot] == ScalarKind.boxed.rawValue {
                guard case .transformable(let box) = _value(slot).pointee else { return true }
                return box !== Self.unloadedBox
            }
            let cell = _cell(slot).pointee
            return !(cell.isNull && cell.bits == Self.unloadedBits)
        }
    }

    /// Makes a fault (or a partial object) a partial object holding `values` in `slots`: a fault's other
    /// slots get the unloaded mark, but the to-many relationships of `pendingToMany`, which wait for their
    /// first use as a fetched object's do. A partial object keeps what it loaded before.
    final func loadPartially(_ values: [SlotValue], into slots: [Int], pendingToMany: UInt32) {
        precondition(_loadState != .loaded, "a loaded object is not loaded again in part")
        let access = _slots
        if _loadState == .fault {
            let kinds = entity.scalarKinds
            for slot in 0..<_count {
                if slot < 32 && pendingToMany & (1 << UInt32(slot)) != 0 {
                    access.store(.objects(ObjectList()), at: slot)
                } else if kinds[slot] == ScalarKind.boxed.rawValue {
                    _value(slot).pointee = .transformable(Self.unloadedBox)
                } else {
                    _cell(slot).pointee = ScalarCell(bits: Self.unloadedBits, isNull: true)
                }
            }
            _pendingToMany = pendingToMany
            _loadState = .partial
        }
        for (value, slot) in zip(values, slots) { access.store(value, at: slot) }
    }

    /// The slow path of a read of `slot` while `_isFault`: a partial object that loaded the slot reads it
    /// as it is; otherwise the whole object loads.
    @usableFromInline
    final func _fireFault(reading slot: Int) {
        if !hasLoaded(slot) { _fireFault() }
    }
}
