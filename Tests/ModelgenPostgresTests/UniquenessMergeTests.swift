import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

/// Uniqueness constraints decided by the merge policy, the same in every store kind: a new object
/// whose unique values a saved record has is an error (`.error`), takes the record over with its own
/// values (`.overwrite`, an upsert) or with the record's (`.rollback`); and the same when another
/// container saved those values between the context's check and its commit (the store's unique index
/// refuses the commit; in memory the store checks the constraints itself).
@Suite struct UniquenessMergeTests {
    let semantics = StoreSemanticsTests()

    /// The people of a store as "name <email> (entity)", by email, read by a new context.
    func people(_ container: ManagedContainer) throws -> [String] {
        let context = container.newContext()
        return try context.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [SortDescriptor("email")]))
            .map { "\(try $0.value(forKey: "name") as! String) <\(try $0.value(forKey: "email") as! String)> (\($0.entity.name))" }
    }

    func titles(_ objects: Any?) throws -> [String] {
        try (objects as! [ManagedObject]).map { try $0.value(forKey: "title") as! String }.sorted()
    }

    @Test(arguments: availableKinds)
    func aNewObjectWithSavedUniqueValuesFollowsTheMergePolicy(_ kind: StoreKind) throws {
        let (container, ada, bob, project) = try semantics.seededCompany(kind)
        let before = try people(container)

        // .error: a ValidationError naming the saved record; nothing written.
        let strict = container.newContext()
        let twin = try strict.insertObject(entityName: "Employee")
        try twin.setValue("Ada Twin", forKey: "name"); try twin.setValue("ada@example.com", forKey: "email")
        #expect(throws: ValidationError.self, "\(kind)") { try strict.save() }
        do { try strict.save() } catch let error as ValidationError {
            #expect(error.failures.map(\.message) == ["violates uniqueness (email=ada@example.com) with \(ada)"], "\(kind)")
        }
        #expect(try people(container) == before, "\(kind)")

        // .overwrite: the new Ada takes the record over with her values; the record's links stay
        // (she still leads Apollo and is a member of it) and hers are added (a new project).
        let upsert = container.newContext()
        upsert.mergePolicy = .overwrite
        let newAda = try upsert.insertObject(entityName: "Employee")
        try newAda.setValue("Ada Lovelace", forKey: "name"); try newAda.setValue("ada@example.com", forKey: "email")
        try newAda.setValue(Int16(5), forKey: "level")
        let analytical = try upsert.insertObject(entityName: "Project")
        try analytical.setValue("Engine", forKey: "title")
        try newAda.setValue([analytical], forKey: "projects")
        try upsert.save()
        #expect(newAda.objectID == ada, "\(kind): the new object is the saved record now")
        #expect(!newAda.isInserted && !newAda.hasChanges, "\(kind)")
        #expect(try people(container) == ["Ada Lovelace <ada@example.com> (Employee)", "Bob <bob@example.com> (Employee)", "Cy <cy@example.com> (Customer)"], "\(kind)")
        let check = container.newContext()
        let savedAda = try check.existingObject(with: ada)
        let storedLevel = try savedAda.value(forKey: "level"), contextLevel = try newAda.value(forKey: "level")
        #expect(storedLevel as? Int64 == 5 && contextLevel as? Int64 == 5, "\(kind): \(String(describing: storedLevel)) in store, \(String(describing: contextLevel)) in the saving context")
        #expect(try titles(savedAda.value(forKey: "projects")) == ["Apollo", "Engine"], "\(kind)")
        #expect(try titles(savedAda.value(forKey: "leads")) == ["Apollo"], "\(kind)")
        let apollo = try check.existingObject(with: project)
        #expect(Set((try apollo.value(forKey: "members") as! [ManagedObject]).map(\.objectID)) == [ada, bob], "\(kind)")
        #expect(try titles(newAda.value(forKey: "projects")) == ["Apollo", "Engine"], "\(kind): the saving context sees the merged links too")

        // .rollback: the new Bob takes the record over, the saved values stay; his new link is added.
        let keep = container.newContext()
        keep.mergePolicy = .rollback
        let newBob = try keep.insertObject(entityName: "Employee")
        try newBob.setValue("Robert", forKey: "name"); try newBob.setValue("bob@example.com", forKey: "email")
        let engine = try keep.existingObject(with: analytical.objectID)
        try newBob.setValue([engine], forKey: "projects")
        try keep.save()
        #expect(newBob.objectID == bob, "\(kind)")
        #expect(try newBob.value(forKey: "name") as? String == "Bob", "\(kind): the saved value won in the context too")
        #expect(try people(container)[1] == "Bob <bob@example.com> (Employee)", "\(kind)")
        let bobReader = container.newContext()
        #expect(try titles(bobReader.existingObject(with: bob).value(forKey: "projects")) == ["Apollo", "Engine"], "\(kind)")

        // Still errors under every policy: a record of another entity of the hierarchy (Cy is a
        // Customer), and two new objects with the same values.
        let mixed = container.newContext()
        mixed.mergePolicy = .overwrite
        let employeeCy = try mixed.insertObject(entityName: "Employee")
        try employeeCy.setValue("Cy", forKey: "name"); try employeeCy.setValue("cy@example.com", forKey: "email")
        let first = try mixed.insertObject(entityName: "Customer"), second = try mixed.insertObject(entityName: "Customer")
        for object in [first, second] { try object.setValue("Dee", forKey: "name"); try object.setValue("dee@example.com", forKey: "email") }
        do {
            try mixed.save()
            Issue.record("\(kind): saved a Customer's email on an Employee and two Dees")
        } catch let error as ValidationError {
            #expect(error.failures.count == 2, "\(kind): \(error)")
        }
        #expect(try people(container).count == 3, "\(kind)")
    }

    /// With 80 other new customers beside Dee, PostgreSQL loads the save's rows with COPY: its unique
    /// index refuses the COPY as it refuses an INSERT, and nothing of the save stays.
    @Test(arguments: availableKinds, [0, 80])
    func aUniqueValueSavedByAnotherContainerMeanwhileFollowsTheMergePolicy(_ kind: StoreKind, companions: Int) throws {
        for policy in [MergePolicy.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback] {
            let (store, reopen) = try kind.makeStore()
            let first = ManagedContainer(model: semanticsModel, store: store)
            // The second container (another server) saves Dee between this context's check and its commit.
            let racing = InterleavingStore(try reopen(semanticsModel)) {
                let other = first.newContext()
                let dee = try other.insertObject(entityName: "Customer")
                try dee.setValue("Dee (first)", forKey: "name"); try dee.setValue("dee@example.com", forKey: "email")
                try dee.setValue("First Inc", forKey: "company")
                try other.save()
            }
            let second = ManagedContainer(model: semanticsModel, store: racing)
            let context = second.newContext()
            context.mergePolicy = policy
            let dee = try context.insertObject(entityName: "Customer")
            try dee.setValue("Dee (second)", forKey: "name"); try dee.setValue("dee@example.com", forKey: "email")
            for index in 0..<companions {
                let companion = try context.insertObject(entityName: "Customer")
                try companion.setValue("C\(index)", forKey: "name"); try companion.setValue("c\(index)@example.com", forKey: "email")
            }
            switch policy {
            case .error:
                #expect(throws: ValidationError.self, "\(kind) \(policy)") { try context.save() }
                #expect(try people(first) == ["Dee (first) <dee@example.com> (Customer)"], "\(kind) \(policy)")
                #expect(dee.isInserted, "\(kind): the failed save kept the context's insert")
            case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback:
                try context.save()
                let reader = first.newContext()
                let saved = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Customer", predicate: "email == 'dee@example.com'"))
                #expect(saved.count == 1, "\(kind) \(policy): one Dee")
                #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Customer")) == 1 + companions, "\(kind) \(policy)")
                #expect(dee.objectID == saved.first?.objectID, "\(kind) \(policy)")
                let objectWins = policy == .overwrite || policy == .mergeByPropertyObjectTrump
                #expect(try saved.first?.value(forKey: "name") as? String == (objectWins ? "Dee (second)" : "Dee (first)"), "\(kind) \(policy)")
                #expect(try saved.first?.value(forKey: "company") as? String == (objectWins ? nil : "First Inc"), "\(kind) \(policy)")
            }
            #expect(racing.interleaved, "\(kind) \(policy): the other save ran between the check and the commit")
        }
    }
}

/// A store that runs `meanwhile` once, just before the first commit it is given: what another
/// container does between a context's checks and its commit. It runs queries as its base store does.
final class InterleavingStore: QueryingStore, @unchecked Sendable {
    // @unchecked: the tests use it from one thread.
    let base: any PersistentStore
    private var pending: (() throws -> Void)?
    private(set) var interleaved = false

    init(_ base: any PersistentStore, meanwhile: @escaping () throws -> Void) {
        self.base = base
        pending = meanwhile
    }

    var model: ManagedObjectModel { base.model }
    func recordIDs(of entityNames: [String]) throws -> [ObjectID] { try base.recordIDs(of: entityNames) }
    func row(for id: ObjectID) throws -> StoreRow? { try base.row(for: id) }
    func rows(for ids: [ObjectID]) throws -> [StoreRow] { try base.rows(for: ids) }
    private var querying: (any QueryingStore)? { base as? any QueryingStore }
    func fetch(_ query: StoreQuery, each body: (StoreRow) throws -> Void) throws -> Bool { try querying?.fetch(query, each: body) ?? false }
    func count(_ query: StoreQuery) throws -> Int? { try querying?.count(query) }
    func fetchIDs(_ query: StoreQuery) throws -> ObjectIDList? { try querying?.fetchIDs(query) }
    func aggregate(_ query: StoreQuery, groupBy: [String], columns: [AggregateColumn]) throws -> [AggregateRow]? {
        try querying?.aggregate(query, groupBy: groupBy, columns: columns)
    }
    func deleteMatching(_ query: StoreQuery, author: String) throws -> ChangeSet? { nil }
    func updateMatching(_ query: StoreQuery, set values: [Int: StoreValue], author: String) throws -> ChangeSet? { nil }
    func queryPlan(_ query: StoreQuery) throws -> QueryPlan { try querying?.queryPlan(query) ?? .inMemory(reason: "the base store runs no queries") }
    func toManyIDs(of id: ObjectID, relationship slot: Int) throws -> [ObjectID] { try base.toManyIDs(of: id, relationship: slot) }

    func commit(_ changes: StoreChanges) throws -> StoreCommitResult {
        if let meanwhile = pending {
            pending = nil
            try meanwhile()
            interleaved = true
        }
        return try base.commit(changes)
    }
}
