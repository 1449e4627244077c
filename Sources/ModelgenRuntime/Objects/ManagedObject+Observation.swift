import Observation
import Synchronization

/// Whether a context's objects take part in Observation.
public enum ObservationMode: Sendable, Hashable {
    /// Reads register with `withObservationTracking`, SwiftUI and `Observations`; changes notify (the default).
    case observable
    /// Reads register nothing (for work nobody watches: imports, batch jobs). Changes still notify
    /// observers an object already has, so an object never reports stale values.
    case unobserved
}

/// A managed object is `Observable`: reading a property inside `withObservationTracking` (or a SwiftUI
/// body, or `Observations`) registers it, and the observer is told when that property's value changes
/// through any path: a write, inverse-relationship upkeep, delete rules, undo, redo, rollback, a
/// refresh or merge, or a fault whose fresh values differ from what was read.
///
/// Objects pay for this only when observed: an object gets its `ObservationRegistrar` the first time
/// one of its properties is read while tracking is on, so objects never read under observation carry
/// one pointer (nil) and their writes skip notification altogether.
extension ManagedObject: Observable {}

/// The registrar of an object read under observation tracking, boxed so the object holds one plain
/// reference (see `ManagedObject._observation`).
@usableFromInline
final class ObjectObservation {
    let registrar = ObservationRegistrar()
}

extension ManagedObject {
    /// The object's observation state, if it has been read under tracking.
    final var _observation: ObjectObservation? { _observationRef?.takeUnretainedValue() }

    /// Registers a read of `slot` with the current observation tracking, if any: the read path of every
    /// property. Inlined into `_observedRead` (the probe of an object nobody observes, the common case, is
    /// then one call into Observation instead of three calls deep); the rare paths are out of line.
    @inlinable @inline(__always)
    final func _observeAccess(_ slot: Int) {
        if _observationRef != nil { return _observeRegisteredAccess(slot) }
        if entity.isTracking(reading: self) { _beginObserving(slot) }
    }

    /// Registers a read of `slot` with the object's own registrar.
    @usableFromInline @inline(never)
    final func _observeRegisteredAccess(_ slot: Int) {
        _observationRef.unsafelyUnwrapped._withUnsafeGuaranteedRef { observation in
            entity.observationKeyPathRefs[slot]._withUnsafeGuaranteedRef { keyPath in
                observation.registrar.access(self, keyPath: keyPath)
            }
        }
    }

    /// The first read of this object under tracking: from now on it has a registrar.
    @usableFromInline @inline(never)
    final func _beginObserving(_ slot: Int) {
        _observationRef = Unmanaged.passRetained(ObjectObservation())
        _isObserved = true
        _observeRegisteredAccess(slot)
    }

    /// Registers a read of a property by name (key-value access, dependent keys).
    final func observeAccess(slot: Int) {
        if _observesReads { _observeAccess(slot) }
    }

    /// Registers reads of what a computed property depends on (its `dependencies` in the model), so an
    /// observer of the computed property hears when any of them changes, across to-one relationships too.
    /// Generated computed properties call it before your `compute<Name>()`.
    public final func observeDependencies(of key: String) {
        guard _observesReads, let paths = entity.dependencySlotPaths[key] else { return }
        fireFaultIfNeeded()
        for path in paths {
            var object: ManagedObject = self
            for (index, slot) in path.enumerated() {
                object._observeAccess(slot)
                guard index < path.count - 1 else { break }
                guard case .object(let next) = object._slots[slot] else { break }
                next.fireFaultIfNeeded()
                object = next
            }
        }
    }

    /// Runs `change` on `slot`, telling observers before and after. Without observers it only runs it.
    @inline(__always)
    final func notifyingChange<T>(of slot: Int, _ change: () throws -> T) rethrows -> T {
        guard let reference = _observationRef else { return try change() }
        return try reference._withUnsafeGuaranteedRef { observation in
            try entity.observationKeyPathRefs[slot]._withUnsafeGuaranteedRef { keyPath in
                observation.registrar.willSet(self, keyPath: keyPath)
                defer { observation.registrar.didSet(self, keyPath: keyPath) }
                return try change()
            }
        }
    }

    /// Writes a slot, telling observers when the value differs from the current one (also the slow path
    /// of typed writes to an observed object, hence out of line).
    @usableFromInline @inline(never)
    final func storeSlot(_ slot: Int, _ value: SlotValue) {
        if _observationRef == nil || _slots[slot].isSame(as: value) {
            _slots[slot] = value
        } else {
            notifyingChange(of: slot) { _slots[slot] = value }
        }
    }

    /// Tells observers of `slots` that they changed (after the fact: used where values were replaced
    /// while the object could not be read, such as loading a fault).
    final func notifyChanged(_ slots: [Int]) {
        guard _observationRef != nil else { return }
        for slot in slots { notifyingChange(of: slot) {} }
    }
}

extension EntityDescription {
    /// The key path observers see for each slot: `\ManagedObject.[_observedSlot: n]`. One form for every
    /// path a value can change by (typed properties, key-value access, inverses, undo, merges), so an
    /// observer registered through one hears changes made through any other.
    static func makeObservationKeyPaths(count: Int) -> [KeyPath<ManagedObject, Int>] {
        (0..<count).map { \ManagedObject.[_observedSlot: $0] }
    }
}

extension ManagedObject {
    /// The subscript the observation key paths name (its value is the slot number; nothing reads it).
    final subscript(_observedSlot slot: Int) -> Int { slot }
}

/// Tells whether the current thread is inside observation tracking, without a registrar per object.
///
/// Observation offers no public query for this, so the probe reads a key path through a registrar of its
/// own: only while tracking is on does Observation record the access, and recording it hashes the key
/// path, whose one component is a `ProbeKey` that counts its hashes. A count that moved during the call
/// means tracking is on (another thread's probe moving it at the same moment gives a harmless extra
/// registrar, never a missed observation). `ObservationProbeTests.probeSeesTracking` fails if a toolchain stops hashing recorded key paths.
enum ObservationProbe {
    /// Whether tracking is on, probed through a registrar of the probe's own.
    static func isTracking() -> Bool {
        let subject = ProbeSubject.shared
        let before = probeHashes.load(ordering: .relaxed)
        subject.registrar.access(subject, keyPath: subject.keyPath)
        return probeHashes.load(ordering: .relaxed) != before
    }

    /// The probe's key path on managed objects (each entity keeps one for its objects' reads).
    static var keyPath: KeyPath<ManagedObject, Int> { \ManagedObject.[_trackingProbe: ProbeKey()] }
}

/// The hashes of `ProbeKey`s so far (read around each probe).
@usableFromInline let probeHashes = Atomic<Int>(0)

/// The component of the probe's key paths: it counts its hashes (Observation hashes the key paths it records).
struct ProbeKey: Hashable, Sendable {
    static func == (a: ProbeKey, b: ProbeKey) -> Bool { true }
    func hash(into hasher: inout Hasher) {
        probeHashes.add(1, ordering: .relaxed)
    }
}

extension EntityDescription {
    /// Whether tracking is on (`ObservationProbe`), probed with the entity's own registrar and key path,
    /// which an object's read reaches through its entity: no lazy global to check, no copy of the
    /// registrar, no reference counting.
    @inlinable @inline(__always)
    final func isTracking(reading object: ManagedObject) -> Bool {
        let before = probeHashes.load(ordering: .relaxed)
        probeKeyPathRef._withUnsafeGuaranteedRef { probeRegistrar.access(object, keyPath: $0) }
        return probeHashes.load(ordering: .relaxed) != before
    }
}

extension ManagedObject {
    /// The subscript the tracking probe's key path names (nothing reads its value).
    final subscript(_trackingProbe key: ProbeKey) -> Int { 0 }
}

private final class ProbeSubject: Observable, Sendable {
    static let shared = ProbeSubject()
    let registrar = ObservationRegistrar()
    // A key path with a Sendable argument and no mutable state; Swift does not mark KeyPath Sendable.
    nonisolated(unsafe) let keyPath: KeyPath<ProbeSubject, Int> = \ProbeSubject.[ProbeKey()]
    subscript(key: ProbeKey) -> Int { 0 }
}

/// Managed objects belong to their context's isolation. Sending one to another actor or task is a
/// compile error naming the fix.
@available(*, unavailable, message: "a managed object stays in its context's isolation: pass its objectID and fetch it on the other side with context.object(with:)")
extension ManagedObject: @unchecked Sendable {}
