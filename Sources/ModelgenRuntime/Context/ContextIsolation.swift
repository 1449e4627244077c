import Foundation

/// The isolation a context was made for, checked in debug builds where the compiler cannot see it.
enum ContextIsolation {
    /// Any (a context made by `newContext()`: the caller keeps it in one task).
    case unchecked
    /// The main actor (`container.mainContext`).
    case mainActor
    /// A background actor (`performBackgroundTask`), held weakly (the actor holds the context).
    case actor(WeakBackgroundContext)
}

/// Marks the main queue (set when the main context is made), so debug checks can tell it apart.
let mainQueueKey = DispatchSpecificKey<Bool>()

/// A weak reference to the actor a context belongs to.
struct WeakBackgroundContext {
    weak var actor: BackgroundContext?
}

extension ManagedObjectContext {
    /// In debug builds, stops with a clear message when a context made for one isolation is used from
    /// another (a context is not Sendable, so only unsafe code gets it there). Saves, fetches, inserts
    /// and deletes check; property access does not (it must stay a few nanoseconds).
    @inline(__always)
    func checkIsolation() {
        #if DEBUG
        switch isolation {
        case .unchecked: break
        case .mainActor:
            // The main actor runs on the main queue, which is not always the main thread (dispatch_main
            // drains it on a worker); MainActor.preconditionIsolated would stop without a message on Linux.
            if DispatchQueue.getSpecific(key: mainQueueKey) != true {
                preconditionFailure("ModelgenRuntime: the main context was used off the main actor; use container.performBackgroundTask or a ModelActor, and pass ObjectIDs")
            }
        case .actor(let owner):
            if let actor = owner.actor, BackgroundContext.current != ObjectIdentifier(actor) {
                preconditionFailure("ModelgenRuntime: a background task's context was used outside its task; pass ObjectIDs out and fetch them on the other side")
            }
        }
        #endif
    }
}

/// A context belongs to one isolation: the main actor (`container.mainContext`), a background actor
/// (`performBackgroundTask`, a `ModelActor`), or the task that made it.
@available(*, unavailable, message: "a context stays in one isolation: use container.mainContext on the main actor, container.performBackgroundTask, or a ModelActor, and pass ObjectIDs between them")
extension ManagedObjectContext: @unchecked Sendable {}
