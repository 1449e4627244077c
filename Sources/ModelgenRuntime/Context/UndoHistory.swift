/// The state of one object at a point in time: what undo and redo put back.
struct ObjectImage {
    let object: ManagedObject
    let slots: [SlotValue]
    let committedSlots: [SlotValue]?
    let isInserted: Bool
    let isDeleted: Bool
    let isUpdated: Bool
    let isRegistered: Bool

    init(_ object: ManagedObject) {
        self.object = object
        slots = object._slots.array
        committedSlots = object.committedSlots
        isInserted = object._isInserted
        isDeleted = object._isDeleted
        isUpdated = object._isUpdated
        isRegistered = object._isRegistered
    }
}

/// The objects one undo group changed, each with its state before the group's first change to it.
/// Images are copy-on-write copies of the slot arrays, so recording costs one copy per object per group.
final class UndoGroup {
    // Recorded once per changed object; `record` is the only writer and touches nothing else.
    @exclusivity(unchecked) private(set) var images: [ObjectImage] = []
    @exclusivity(unchecked) private var recorded: Set<ObjectIdentifier> = []

    var isEmpty: Bool { images.isEmpty }

    func record(_ object: ManagedObject) {
        guard recorded.insert(ObjectIdentifier(object)).inserted else { return }
        images.append(ObjectImage(object))
    }
}

/// A context's undo history (its part for undo): the group changes are recorded in now, and the
/// closed groups to undo and to redo.
final class UndoHistory {
    @exclusivity(unchecked) private var open: UndoGroup?
    private(set) var undoable: [UndoGroup] = []
    private(set) var redoable: [UndoGroup] = []

    var canUndo: Bool { !undoable.isEmpty || !(open?.isEmpty ?? true) }
    var canRedo: Bool { !redoable.isEmpty }

    /// Records `object`'s state before its first change in the open group (opened by this call if none is).
    func record(_ object: ManagedObject) {
        if open == nil { open = UndoGroup() }
        open!.record(object)
    }

    /// Closes the open group; false when none was open. A group that changed something becomes the
    /// last to undo, and nothing is left to redo.
    func endGroup() -> Bool {
        guard let group = open else { return false }
        open = nil
        if !group.isEmpty {
            undoable.append(group)
            redoable.removeAll()
        }
        return true
    }

    func popUndoable() -> UndoGroup? { undoable.popLast() }
    func popRedoable() -> UndoGroup? { redoable.popLast() }
    func pushUndoable(_ group: UndoGroup) { undoable.append(group) }
    func pushRedoable(_ group: UndoGroup) { redoable.append(group) }

    func clear() {
        open = nil
        undoable.removeAll()
        redoable.removeAll()
    }
}

extension ManagedObjectContext {
    func recordUndoImage(of object: ManagedObject) {
        guard isUndoEnabled else { return }
        undoHistory.record(object)
    }

    /// True when there is a change to undo.
    public var canUndo: Bool { undoHistory.canUndo }
    /// True when there is an undone change to redo.
    public var canRedo: Bool { undoHistory.canRedo }

    /// Ends the current undo group: the next change starts a new one. (Core Data ends a group per
    /// run-loop event; here an event is whatever you do between calls.) `save()` also ends one.
    public func endUndoGroup() {
        guard undoHistory.endGroup() else { return }
        _epoch &+= 1
    }

    /// Runs `body` as one undo group.
    public func undoGroup(_ body: () throws -> Void) rethrows {
        endUndoGroup()
        defer { endUndoGroup() }
        try body()
    }

    /// Undoes the last undo group (ending the current one first).
    public func undo() {
        endUndoGroup()
        guard let group = undoHistory.popUndoable() else { return }
        undoHistory.pushRedoable(restore(group))
        _epoch &+= 1
    }

    /// Redoes the last undone group.
    public func redo() {
        endUndoGroup()
        guard let group = undoHistory.popRedoable() else { return }
        undoHistory.pushUndoable(restore(group))
        _epoch &+= 1
    }

    /// Puts back the group's images; returns a group holding the states it replaced.
    private func restore(_ group: UndoGroup) -> UndoGroup {
        let current = UndoGroup()
        for image in group.images { current.record(image.object) }
        for image in group.images.reversed() {
            let object = image.object
            object._replaceSlots(with: image.slots)
            object.committedSlots = image.committedSlots
            object._isInserted = image.isInserted
            object._isDeleted = image.isDeleted
            object._isUpdated = image.isUpdated
            object._isRegistered = image.isRegistered
            object._isFault = false
            inserted.remove(object)
            updated.remove(object)
            deleted.remove(object)
            if image.isInserted { inserted.append(object) }
            if image.isUpdated { updated.append(object) }
            if image.isDeleted && !image.isInserted && image.isRegistered { deleted.append(object) }
            if image.isRegistered {
                registered[object.objectID] = object
            } else if registered[object.objectID] === object {
                registered.removeValue(forKey: object.objectID)
            }
        }
        return current
    }

    func clearUndo() {
        undoHistory.clear()
        _epoch &+= 1
    }
}
