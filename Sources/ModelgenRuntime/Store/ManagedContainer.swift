import Foundation

/// Where a container keeps its records.
public enum StoreDescription: Sendable {
    /// Rows in memory, gone with the process.
    case inMemory
    /// A SQLite database file (created when missing), see `SQLiteStore`.
    case sqlite(URL)
}

/// What to do when a save conflicts with a newer save from another context.
public enum MergePolicy: Sendable, Hashable {
    /// Fail the save with a `MergeConflictError` (the default).
    case error
    /// The saving context's values win: the conflicting records are overwritten.
    case objectWins
    /// The store's values win: the context's changes to conflicting objects are dropped, the rest is saved.
    case storeWins
}

/// A model and its store, handing out contexts. Sendable: contexts on different
/// threads share one container, and each sees what the others saved.
public final class ManagedContainer: Sendable {
    public let model: ManagedObjectModel
    public let store: any PersistentStore

    /// A container over a store description (`.inMemory` or `.sqlite(url)`).
    public convenience init(model: ManagedObjectModel, store description: StoreDescription = .inMemory) throws {
        switch description {
        case .inMemory: self.init(model: model, store: InMemoryStore(model: model))
        case .sqlite(let url): self.init(model: model, store: try SQLiteStore(url: url, model: model))
        }
    }

    /// A container over a store you created.
    public init(model: ManagedObjectModel, store: any PersistentStore) {
        self.model = model
        self.store = store
    }

    /// A new context on this container. Its objects are `Observable` (`.observable`, the default); pass
    /// `.unobserved` for work nobody watches, whose reads then skip observation tracking.
    public func newContext(observation: ObservationMode = .observable) -> ManagedObjectContext {
        ManagedObjectContext(container: self, observationMode: observation)
    }
}
