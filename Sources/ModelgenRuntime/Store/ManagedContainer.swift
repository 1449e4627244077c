import Foundation
import Synchronization

/// Where a container keeps its records.
public enum StoreDescription: Sendable {
    /// Rows in memory, gone with the process.
    case inMemory
    /// A SQLite database file (created when missing), see `SQLiteStore`.
    case sqlite(URL)
    /// A SQLite database file with a reader count and busy timeout of your choosing.
    case sqliteConfigured(URL, SQLiteConfiguration)
}

/// What a save does with an object that another save changed since this context read it: Core
/// Data's five merge policies, with Core Data's semantics.
///
/// Saves are property-level whatever the policy: a save writes only the properties it changed, and
/// adding or removing members of a to-many relationship changes the members' rows (or join rows),
/// never the parent's, so it is never a conflict. A conflict is an object this context changed (or
/// deleted) whose stored properties another save changed (or that another save deleted) since this
/// context read it. See docs/concurrency.md, "Choosing a merge policy".
public enum MergePolicy: Sendable, Hashable {
    /// The save fails with a `MergeConflictError` listing each conflicting object and property, and
    /// writes nothing (the default; Core Data's `NSErrorMergePolicy`).
    case error
    /// Property by property, this context's changes win: the properties it changed are written, the
    /// others keep the stored values (which the object then shows). A delete wins over a stored
    /// update; an update of a record deleted meanwhile is dropped (the deletion stands).
    /// Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`, the policy most apps set.
    case mergeByPropertyObjectTrump
    /// Property by property, the store wins: properties another save changed keep their stored
    /// values (this context's changes to them are dropped); this context's changes to the others are
    /// written. A stored update wins over a delete (the object stays); a deletion stands.
    /// Core Data's `NSMergeByPropertyStoreTrumpMergePolicy`.
    case mergeByPropertyStoreTrump
    /// This context's objects are written whole, every property as the context has it, including those
    /// it did not change: the only policy that writes properties the context did not change. A delete
    /// wins over a stored update; an update of a record deleted meanwhile is dropped (the deletion
    /// stands: no policy writes a deleted record again). Core Data's `NSOverwriteMergePolicy`.
    case overwrite
    /// This context's changes to conflicting objects are dropped (they take the stored values, or
    /// leave when deleted); its other changes are saved. Core Data's `NSRollbackMergePolicy`.
    case rollback

    /// The earlier name of `.overwrite`.
    @available(*, deprecated, renamed: "overwrite")
    public static var objectWins: MergePolicy { .overwrite }
    /// The earlier name of `.rollback`.
    @available(*, deprecated, renamed: "rollback")
    public static var storeWins: MergePolicy { .rollback }

    /// Whether an inserted object whose uniqueness-constraint values a saved record has takes that
    /// record over with its own values (true) or the record's (false); nil: the collision is an error.
    var uniquenessTakeoverKeepsObjectValues: Bool? {
        switch self {
        case .error: return nil
        case .mergeByPropertyObjectTrump, .overwrite: return true
        case .mergeByPropertyStoreTrump, .rollback: return false
        }
    }
}

/// A model and its store, handing out contexts. Sendable: contexts on different
/// threads share one container, and each sees what the others saved.
public final class ManagedContainer: Sendable {
    /// The model every context of the container uses.
    public let model: ManagedObjectModel
    /// Where the container's contexts save and fetch.
    public let store: any PersistentStore
    private let broadcaster = ChangeBroadcaster()
    /// This container's name in the store's history: its saves carry it, and it skips them when
    /// catching up with other processes.
    public let historyAuthor = "container-" + UUID().uuidString
    /// The task watching the store for other processes' saves (see `watchOtherProcesses(every:)`).
    private let watcher = Mutex<Task<Void, Never>?>(nil)
    /// The main context, made on first use on the main actor (its only isolation).
    private let mainContextBox = MainContextBox()
    /// Who hears of fetches evaluated in memory on a store that runs queries (see `onInMemoryFetch(_:)`).
    private let inMemoryFetchHandler = Mutex<(@Sendable (InMemoryFetch) -> Void)?>(ManagedContainer.debugLogOnce)

    /// A container over a store description (`.inMemory` or `.sqlite(url)`). A SQLite file written
    /// with an earlier version of the model in `migrationPlan` is brought to `model` through the
    /// plan's stages when it opens (an in-memory store starts empty, so it has none to run).
    public convenience init(model: ManagedObjectModel, store description: StoreDescription = .inMemory,
                            migrationPlan: MigrationPlan? = nil) throws {
        switch description {
        case .inMemory: self.init(model: model, store: InMemoryStore(model: model))
        case .sqlite(let url): self.init(model: model, store: try SQLiteStore(url: url, model: model, migrationPlan: migrationPlan))
        case .sqliteConfigured(let url, let configuration):
            self.init(model: model, store: try SQLiteStore(url: url, model: model, configuration: configuration, migrationPlan: migrationPlan))
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

    /// The context for UI code, isolated to the main actor. It merges every other context's saves as
    /// they happen (`automaticallyMergesChanges`), so its objects' observers hear of them. It lives as
    /// long as the container.
    @MainActor public var mainContext: ManagedObjectContext {
        mainContextBox.context(of: self)
    }

    /// Sets who hears of a fetch that the store (SQLite, PostgreSQL) could not run as SQL, which the
    /// context then evaluated on objects, loading every record of the entity: never a silent change of
    /// cost. The default, in debug builds, writes one line to standard error the first time each
    /// entity and reason is seen; in release builds it does nothing. Pass nil to hear nothing, or a
    /// closure to log, count or fail a test. `queryPlan(for:)` tells the same for one request.
    public func onInMemoryFetch(_ handler: (@Sendable (InMemoryFetch) -> Void)?) {
        inMemoryFetchHandler.withLock { $0 = handler }
    }

    func reportInMemoryFetch(_ fetch: InMemoryFetch) {
        inMemoryFetchHandler.withLock { $0 }?(fetch)
    }

    /// The default handler: each entity and reason once, on standard error, in debug builds.
    private static let debugLogOnce: (@Sendable (InMemoryFetch) -> Void)? = {
        #if DEBUG
        let seen = Mutex<Set<String>>([])
        return { fetch in
            guard seen.withLock({ $0.insert(fetch.entityName + "\u{0}" + fetch.reason).inserted }) else { return }
            FileHandle.standardError.write(Data((fetch.description + "\n").utf8))
        }
        #else
        return nil
        #endif
    }()

    /// Every save's change set from now on, from every context of this container, in save order per
    /// context. Each access is a new subscription; drop the stream (or its task) to end it.
    public var changes: AsyncStream<ChangeSet> { broadcaster.subscribe() }

    /// Runs `body` on a new context isolated to a background actor and returns its result. Managed
    /// objects stay inside: return `ObjectID`s or values, and fetch by ID on the other side.
    public func performBackgroundTask<Result: Sendable>(
        _ body: @escaping @Sendable (ManagedObjectContext) throws -> Result
    ) async throws -> Result {
        let actor = BackgroundContext(container: self)
        return try await actor.perform(body)
    }

    /// The saves the store recorded after `token` (nil: all it keeps), oldest first, from every process.
    /// Keep the last transaction's `token` to catch up from there later. Empty for the in-memory store.
    public func history(after token: Int64? = nil) throws -> [HistoryTransaction] {
        try store.historyTransactions(after: token ?? 0)
    }

    /// Drops the store's history up to and including `token` (history grows by one row per save).
    public func pruneHistory(through token: Int64) throws {
        try store.pruneHistory(through: token)
    }

    /// Watches the store for saves of other processes (or other containers on the same file): every
    /// `interval` it asks SQLite whether another connection committed (`PRAGMA data_version`, a read of
    /// a counter, no I/O), and if so reads the history after the last transaction it saw and hands each
    /// save to `changes` and the main context's merge. A store that hears of commits (PostgreSQL's
    /// `NOTIFY`, see `externalChangeSignals()`) makes it look at once as well. So another process's save reaches this process
    /// within `interval` plus the time to read its history. The main context starts it (every 50 ms)
    /// when it is first used; call it to watch without one, or to change the interval. Stops with the
    /// container. Does nothing for stores only this process writes (in-memory).
    ///
    /// Every save committed after the call returns is heard, once, in commit order. A look that fails
    /// (the store unreachable for a moment) is made again at the next interval, from the same place. If
    /// the store cannot be reached during the call, watching starts from the first look that can read
    /// the history's newest token; saves committed before then are in `history(after:)`.
    public func watchOtherProcesses(every interval: Duration = .milliseconds(50)) {
        do {
            guard try store.externalChangeCounter() != nil else { return }
        } catch {
            // A store that can be written from elsewhere but is unreachable now: its looks retry.
        }
        let startToken = try? store.latestHistoryToken()
        // Looks when the interval passes, and at once when the store signals a change (if it can).
        let (looks, look) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let signals = store.externalChangeSignals()
        let task = Task.detached { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        look.yield()
                    }
                }
                if let signals {
                    group.addTask { for await _ in signals { look.yield() } }
                }
                // No counter yet: the first look reads the history after `startToken` whatever the counter
                // says. (Read here, when the task first runs, the counter could already count a save made
                // after `startToken` was read, which would then wait for the next save to be heard.)
                var lastCounter: Int64? = nil
                var lastToken = startToken
                for await _ in looks {
                    guard let self else { break }
                    guard let counter = try? self.store.externalChangeCounter(), counter != lastCounter else { continue }
                    guard let after = lastToken ?? (try? self.store.latestHistoryToken()) else { continue }
                    lastToken = after
                    // The counter is taken as seen only once the history after it was read: a failed read
                    // is made again at the next look, not left for the next save to trigger.
                    guard let transactions = try? self.store.historyTransactions(after: after) else { continue }
                    lastCounter = counter
                    for transaction in transactions {
                        lastToken = transaction.token
                        if transaction.author != self.historyAuthor { self.didSave(transaction.changes, from: nil) }
                    }
                }
                group.cancelAll()   // the container went away, or the watcher was replaced: stop looking
            }
        }
        watcher.withLock { previous in
            previous?.cancel()
            previous = task
        }
    }

    deinit {
        watcher.withLock { $0?.cancel() }
    }

    /// Called for a save of a context (`origin`; nil: another process): publishes the change set and
    /// merges it into the main context (unless the main context saved it).
    func didSave(_ changes: ChangeSet, from origin: ObjectIdentifier?) {
        broadcaster.publish(changes)
        let box = mainContextBox
        Task { @MainActor in
            guard let main = box.existingContext, ObjectIdentifier(main) != origin, main.automaticallyMergesChanges else { return }
            main.mergeChanges(changes)
        }
    }
}

/// Holds the main context: main-actor state, so the Sendable container may own it.
@MainActor
private final class MainContextBox: Sendable {
    var existingContext: ManagedObjectContext?

    nonisolated init() {}

    func context(of container: ManagedContainer) -> ManagedObjectContext {
        if let existingContext { return existingContext }
        // The container holds its main context; the context does not hold the container (no cycle).
        let context = ManagedObjectContext(container: container, retainsContainer: false)
        context.automaticallyMergesChanges = true
        context.isolation = .mainActor
        DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
        existingContext = context
        container.watchOtherProcesses()
        return context
    }
}

/// An actor owning one context: `performBackgroundTask`'s isolation, and the base of a long-lived
/// importer (`ModelActor`).
actor BackgroundContext {
    let context: ManagedObjectContext

    init(container: ManagedContainer) {
        context = container.newContext(observation: .unobserved)
        context.isolation = .actor(WeakBackgroundContext(actor: self))
    }

    /// An actor owning a child of `link.parent` (`performChildTask`).
    init(childOf link: ParentLink) {
        let child = ManagedObjectContext(container: link.parent.container, observationMode: .unobserved)
        child.mergePolicy = link.parent.mergePolicy
        child.becomeChild(of: link)
        context = child
        context.isolation = .actor(WeakBackgroundContext(actor: self))
    }

    /// The background context whose task is running (debug checks of `ContextIsolation`).
    @TaskLocal static var current: ObjectIdentifier?

    func perform<Result: Sendable>(_ body: @Sendable (ManagedObjectContext) throws -> Result) throws -> Result {
        try Self.$current.withValue(ObjectIdentifier(self)) { try body(context) }
    }
}

/// A user's actor that owns a context for long-lived background work (an importer): the context is
/// isolated to the actor, and its objects never leave it.
///
/// ```swift
/// actor Importer: ModelActor {
///     let modelContext: ManagedObjectContext
///     init(container: ManagedContainer) { modelContext = container.newContext(observation: .unobserved) }
///     func importItems(_ rows: [Row]) throws -> [ObjectID] { … try modelContext.save() … }
/// }
/// ```
public protocol ModelActor: Actor {
    /// The actor's context; use it only from the actor.
    var modelContext: ManagedObjectContext { get }
}

extension ModelActor {
    /// The container of the actor's context.
    public var modelContainer: ManagedContainer { modelContext.container }

    /// Merges every change set of the container (other contexts' saves, other processes' through the
    /// history, and the actor's own) into the actor's context as they come, on the actor, until the
    /// returned task is cancelled or the actor goes away: Core Data's `automaticallyMergesChangesFromParent`
    /// for a long-lived background context. Unsaved edits stay, as with `mergeChanges(_:)`.
    public func mergeChangesAutomatically() -> Task<Void, Never> {
        let changes = modelContainer.changes
        return Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                await self.mergeChangesOnActor(change)
            }
        }
    }

    private func mergeChangesOnActor(_ change: ChangeSet) {
        modelContext.mergeChanges(change)
    }
}
