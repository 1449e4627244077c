import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

/// Makers that made and repaired parts, shelves that hold them, and bolts (a subentity of parts, in
/// the parts' table): a batch delete of parts is one `DELETE … RETURNING` on the SQL stores, whose
/// returned rows make the change set (a maker named by two relationships, shelves, both entities'
/// records), which the history row records and other containers hear of.
let workshopModel = try! ManagedObjectModel(name: "Workshop", entities: [
    EntityDescription("Maker", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("made", destination: "Part", inverse: "maker", toMany: true),
        RelationshipDescription("repaired", destination: "Part", inverse: "repairer", toMany: true),
    ]),
    EntityDescription("Shelf", class: ManagedObject.self, attributes: [AttributeDescription("label", .string)], relationships: [
        RelationshipDescription("items", destination: "Part", inverse: "shelf", toMany: true),
    ]),
    EntityDescription("Part", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("maker", destination: "Maker", inverse: "made"),
        RelationshipDescription("repairer", destination: "Maker", inverse: "repaired"),
        RelationshipDescription("shelf", destination: "Shelf", inverse: "items"),
    ]),
    EntityDescription("Bolt", class: ManagedObject.self, parent: "Part", attributes: [AttributeDescription("size", .int64)]),
])

@Suite struct BatchDeleteHistoryTests {
    /// Two makers and two shelves; parts x0…x5 and bolts xb0…xb2 (the x ones go) and y0, y1 (they stay).
    func workshop(_ kind: StoreKind) throws -> (ManagedContainer, reopen: @Sendable (ManagedObjectModel) throws -> any PersistentStore) {
        let (store, reopen) = try kind.makeStore(model: workshopModel)
        let container = ManagedContainer(model: workshopModel, store: store)
        let context = container.newContext()
        let make = context.make
        let makers = try ["Ann", "Bea"].map { try make("Maker", ["name": $0]) }
        let shelves = try ["S1", "S2"].map { try make("Shelf", ["label": $0]) }
        for index in 0..<6 {
            // x0 has no maker, repairer or shelf; Ann made x1…x5 and repaired x2 (two names for Ann).
            _ = try make("Part", ["name": "x\(index)", "maker": index == 0 ? nil : makers[0],
                                  "repairer": index == 2 ? makers[0] : nil, "shelf": index == 0 ? nil : shelves[index % 2]])
        }
        for index in 0..<3 { _ = try make("Bolt", ["name": "xb\(index)", "size": Int64(index), "repairer": makers[1]]) }
        for index in 0..<2 { _ = try make("Part", ["name": "y\(index)", "maker": makers[1], "shelf": shelves[0]]) }
        try context.save()
        return (container, reopen)
    }

    @MainActor @Test(arguments: availableKinds)
    func aDeleteOfOneTablesRowsWritesTheHistoryTheChangeSetSays(_ kind: StoreKind) async throws {
        let (container, reopen) = try workshop(kind)
        // Another container on the same store (another process on SQLite and PostgreSQL) hears of it.
        let other = kind == .inMemory ? container : ManagedContainer(model: workshopModel, store: try reopen(workshopModel))
        let watched = try LiveResults(FetchRequest<ManagedObject>(entityName: "Part", sortDescriptors: [SortDescriptor("name")]), in: other.mainContext)
        #expect(watched.objects.count == 11, "\(kind)")
        let context = container.newContext()
        let tokens = kind == .inMemory ? [] : try container.history().map(\.token)

        let changes = try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Part", predicate: "name BEGINSWITH 'x'"))
        #expect(changes.deleted.count == 9, "\(kind): \(changes.deleted)")
        #expect(Set(changes.deleted.map(\.entityName)) == ["Part", "Bolt"], "\(kind)")
        let byName = try Dictionary(uniqueKeysWithValues: context.fetch(FetchRequest<ManagedObject>(entityName: "Maker")).map {
            (try $0.value(forKey: "name") as! String, $0.objectID)
        })
        #expect(changes.updated[byName["Ann"]!] == ["made", "repaired"], "\(kind): \(changes.updated)")
        #expect(changes.updated[byName["Bea"]!] == ["repaired"], "\(kind): \(changes.updated)")
        #expect(changes.updated.filter { $0.key.entityName == "Shelf" }.map(\.value) == [["items"], ["items"]], "\(kind)")
        if kind != .inMemory {
            let written = try container.history().filter { !tokens.contains($0.token) }
            #expect(written.map(\.changes) == [changes], "\(kind)")
        }
        // Nothing matches: nothing is deleted, and no history row is written.
        let none = try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Part", predicate: "name == 'nothing'"))
        #expect(none.isEmpty, "\(kind)")
        if kind != .inMemory { #expect(try container.history().filter { !tokens.contains($0.token) }.count == 1, "\(kind)") }

        for _ in 0..<300 where watched.objects.count != 2 { try await Task.sleep(for: .milliseconds(10)) }
        let left = try watched.objects.map { try $0.value(forKey: "name") as! String }
        #expect(left == ["y0", "y1"], "\(kind)")
    }

    /// Staff with managers in the same table (reports left as they are when a manager goes: one
    /// `DELETE` is the whole batch): a batch delete of some staff whose managers go too reports the
    /// managers that stay as changed (they lost reports) and those that go only as deleted, in the
    /// change set and in the history row (which the PostgreSQL store writes in the delete's statement).
    @Test(arguments: availableKinds)
    func aDeleteReachingRecordsOfItsOwnTableReportsTheOnesThatStayAsChanged(_ kind: StoreKind) throws {
        let (store, _) = try kind.makeStore(model: staffModel)
        let container = ManagedContainer(model: staffModel, store: store)
        let context = container.newContext()
        let boss = try context.make("Staff", ["name": "boss"])
        let leads = try (0..<3).map { try context.make("Staff", ["name": "gone-lead\($0)", "manager": boss]) }
        for index in 0..<6 { _ = try context.make("Staff", ["name": "gone-\(index)", "manager": leads[index % 3]]) }
        _ = try context.make("Staff", ["name": "stays", "manager": boss])
        try context.save()
        let tokens = kind == .inMemory ? [] : try container.history().map(\.token)

        let changes = try container.newContext().batchDelete(try FetchRequest<ManagedObject>(entityName: "Staff", predicate: "name BEGINSWITH 'gone'"))
        #expect(changes.deleted.count == 9, "\(kind)")
        #expect(changes.updated == [boss.objectID: ["reports"]], "\(kind): \(changes.updated)")
        if kind != .inMemory {
            #expect(try container.history().filter { !tokens.contains($0.token) }.map(\.changes) == [changes], "\(kind)")
        }
        let reader = container.newContext()
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Staff")) == 2, "\(kind)")
        let reports = try reader.existingObject(with: boss.objectID).value(forKey: "reports") as? [ManagedObject]
        #expect(try reports?.map { try $0.value(forKey: "name") as? String } == ["stays"], "\(kind)")
    }

    /// Loans of books (the one relationship the deleted records leave, to records of one entity: the
    /// PostgreSQL store writes that history in its shortest form), deleted by the same request round
    /// after round: each round's change set names the loans and the books that lost them, and so
    /// does its history row.
    @Test(arguments: availableKinds)
    func theSameDeleteRepeatedWritesEachRoundsHistory(_ kind: StoreKind) throws {
        let (store, _) = try kind.makeStore(model: lendingModel)
        let container = ManagedContainer(model: lendingModel, store: store)
        for round in 0..<3 {
            let context = container.newContext()
            let books = try (0..<4).map { try context.make("Book", ["title": "b\(round)-\($0)"]) }
            // Books 0 and 1 lose loans (book 0 two of them), book 2 keeps its loan, book 3 has none; one returned loan has no book.
            for (index, book) in [books[0], books[0], books[1], books[2], nil].enumerated() {
                _ = try context.make("Loan", ["returned": index == 3 ? nil : Double(index), "book": book])
            }
            try context.save()
            let tokens = kind == .inMemory ? [] : try container.history().map(\.token)

            let changes = try container.newContext().batchDelete(try FetchRequest<ManagedObject>(entityName: "Loan", predicate: "returned != nil"))
            #expect(changes.deleted.count == 4, "\(kind), round \(round)")
            #expect(changes.updated == [books[0].objectID: ["loans"], books[1].objectID: ["loans"]], "\(kind), round \(round): \(changes.updated)")
            if kind != .inMemory {
                #expect(try container.history().filter { !tokens.contains($0.token) }.map(\.changes) == [changes], "\(kind), round \(round)")
            }
        }
        #expect(try container.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Loan")) == 3, "\(kind)")
    }

    /// Batch deletes of one shape asked again with new values (past the runs after which the server
    /// may plan a prepared statement once), then of many shapes (an `IN` list of 1 to 70 values: past
    /// the statements the PostgreSQL store prepares on a connection): each deletes exactly the loans
    /// it names, and its history row says what its change set says.
    @Test(arguments: availableKinds)
    func deletesOfManyShapesAndOfOneShapeAgainDeleteWhatTheyName(_ kind: StoreKind) throws {
        let (store, _) = try kind.makeStore(model: lendingModel)
        let container = ManagedContainer(model: lendingModel, store: store)
        let shapes = 70, again = 12
        let context = container.newContext()
        let book = try context.make("Book", ["title": "kept"])
        let values = shapes * (shapes + 1) / 2 + again
        for value in 0..<values { _ = try context.make("Loan", ["returned": Double(value), "book": value % 2 == 0 ? book : nil]) }
        try context.save()
        var next = 0
        func delete(_ predicate: String, _ variables: [String: Any] = [:], expecting count: Int, _ label: String) throws {
            let tokens = kind == .inMemory ? [] : try container.history().map(\.token)
            let request = try FetchRequest<ManagedObject>(entityName: "Loan", predicate: predicate, variables: variables)
            let changes = try container.newContext().batchDelete(request)
            #expect(changes.deleted.count == count, "\(kind), \(label)")
            if kind != .inMemory {
                #expect(try container.history().filter { !tokens.contains($0.token) }.map(\.changes) == [changes], "\(kind), \(label)")
            }
        }
        for round in 0..<again {
            try delete("returned == $VALUE", ["VALUE": Double(next)], expecting: 1, "round \(round) of one shape")
            next += 1
        }
        for size in 1...shapes {
            let named = (next..<(next + size)).map { "\($0).0" }
            next += size
            try delete("returned IN {\(named.joined(separator: ", "))}", expecting: size, "an IN list of \(size)")
        }
        #expect(try container.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Loan")) == 0, "\(kind)")
        let reader = container.newContext()
        #expect(try (reader.existingObject(with: book.objectID).value(forKey: "loans") as? [ManagedObject])?.isEmpty == true, "\(kind)")
    }

    /// Writers in background children of the main context add returned loans of shared books, the main
    /// context saves after each, and background batch deletes clean up meanwhile: every loan saved is
    /// either still stored or deleted by exactly one batch, whose history row says what its change set says.
    @MainActor @Test(arguments: availableKinds)
    func batchDeletesBesideWritersUnderASharedParentLoseNoLoanAndDeleteNoneTwice(_ kind: StoreKind) async throws {
        let (store, _) = try kind.makeStore(model: lendingModel)
        let container = ManagedContainer(model: lendingModel, store: store)
        let main = container.mainContext
        let books = try (0..<5).map { try main.make("Book", ["title": "shared \($0)"]) }
        try main.save()
        let bookIDs = books.map(\.objectID)
        let (writers, rounds, perRound) = (3, 8, 10)   // three writers: `first`, `second`, `third` below
        // A context holding the books without having read their loans; it merges each batch below.
        let holding = container.newContext()
        let held = try holding.fetch(FetchRequest<ManagedObject>(entityName: "Book", sortDescriptors: [SortDescriptor("title")]))

        let deletions = Task.detached { () async throws -> [ChangeSet] in
            var changes: [ChangeSet] = []
            for _ in 0..<(rounds * 2) {
                changes.append(try await container.performBackgroundTask { context in
                    try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Loan", predicate: "returned != nil"))
                })
                try await Task.sleep(for: .milliseconds(2))
            }
            return changes
        }
        for round in 0..<rounds {
            async let first: Void = Self.addLoans(container, of: bookIDs, writer: 0, round: round, count: perRound)
            async let second: Void = Self.addLoans(container, of: bookIDs, writer: 1, round: round, count: perRound)
            async let third: Void = Self.addLoans(container, of: bookIDs, writer: 2, round: round, count: perRound)
            _ = try await (first, second, third)
            try main.save()
        }
        let changes = try await deletions.value
        let finalChanges = try await container.performBackgroundTask { context in
            try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Loan", predicate: "returned != nil"))
        }
        let deleted = (changes + [finalChanges]).flatMap(\.deleted)
        #expect(deleted.count == writers * rounds * perRound, "\(kind)")
        #expect(Set(deleted).count == deleted.count, "\(kind): a loan deleted twice")
        #expect(try container.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Loan")) == 0, "\(kind)")
        if kind != .inMemory {
            let written = try container.history().map(\.changes).filter { !$0.deleted.isEmpty }
            #expect(written == (changes + [finalChanges]).filter { !$0.deleted.isEmpty }, "\(kind)")
        }
        // The holding context, every batch merged: its books stay loaded where their loans were pending
        // (the SQL stores), read the loans the store has (none), and an edit saves without a conflict.
        for change in changes + [finalChanges] { holding.mergeChanges(change) }
        if kind != .inMemory { #expect(held.allSatisfy { !$0.isFault }, "\(kind)") }
        for book in held { #expect((try book.value(forKey: "loans") as? [ManagedObject])?.isEmpty == true, "\(kind)") }
        try held[0].setValue("shared 0, edited", forKey: "title")
        try holding.save()
        #expect(try container.newContext().fetch(FetchRequest<ManagedObject>(entityName: "Book", predicate: "title ENDSWITH 'edited'")).count == 1, "\(kind)")
    }

    /// The key of a deleted record never names another one, not even when the deleted records had the
    /// largest keys, whether a save or a batch deleted them, and not after the store is opened again:
    /// an ID read from history or kept by another context still means the record it meant.
    @Test(arguments: availableKinds)
    func keysOfDeletedRecordsAreNeverGivenAgain(_ kind: StoreKind) throws {
        let (store, reopen) = try kind.makeStore(model: lendingModel)
        let container = ManagedContainer(model: lendingModel, store: store)
        let context = container.newContext()
        let book = try context.make("Book", ["title": "kept"])
        var given: Set<ObjectID> = []
        func addLoans(_ context: ManagedObjectContext, _ book: ManagedObject) throws -> [ManagedObject] {
            let loans = try (0..<3).map { _ in try context.make("Loan", ["returned": 1.0, "book": book]) }
            try context.save()
            for loan in loans { #expect(given.insert(loan.objectID).inserted, "\(kind): \(loan.objectID) given twice") }
            return loans
        }
        for loan in try addLoans(context, book) { context.delete(loan) }
        try context.save()
        _ = try addLoans(context, book)
        _ = try container.newContext().batchDelete(FetchRequest<ManagedObject>(entityName: "Loan"))
        _ = try addLoans(context, book)
        _ = try container.newContext().batchDelete(FetchRequest<ManagedObject>(entityName: "Loan"))
        // The in-memory store's records go with it: there is nothing to open again.
        if kind != .inMemory {
            let reopened = ManagedContainer(model: lendingModel, store: try reopen(lendingModel)).newContext()
            _ = try addLoans(reopened, try reopened.existingObject(with: book.objectID))
        }
        #expect(given.count == (kind == .inMemory ? 9 : 12), "\(kind)")
    }

    /// A writer: `count` returned loans of the books, made and saved in a background child of the main context.
    @MainActor static func addLoans(_ container: ManagedContainer, of bookIDs: [ObjectID], writer: Int, round: Int, count: Int) async throws {
        try await container.mainContext.performChildTask { child in
            for index in 0..<count {
                let book = try child.existingObject(with: bookIDs[(writer + index) % bookIDs.count])
                _ = try child.make("Loan", ["returned": Double(round * 100 + index), "book": book])
            }
            try child.save()
        }
    }
}

/// Books and their loans.
let lendingModel = try! ManagedObjectModel(name: "Lending", entities: [
    EntityDescription("Book", class: ManagedObject.self, attributes: [AttributeDescription("title", .string)], relationships: [
        RelationshipDescription("loans", destination: "Loan", inverse: "book", toMany: true),
    ]),
    EntityDescription("Loan", class: ManagedObject.self, attributes: [AttributeDescription("returned", .double, optional: true)], relationships: [
        RelationshipDescription("book", destination: "Book", inverse: "loans"),
    ]),
])

/// Staff and their managers, in one table.
let staffModel = try! ManagedObjectModel(name: "Staff", entities: [
    EntityDescription("Staff", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("manager", destination: "Staff", inverse: "reports"),
        RelationshipDescription("reports", destination: "Staff", inverse: "manager", toMany: true, deleteRule: .noAction),
    ]),
])
