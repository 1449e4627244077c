import CSQLite
import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

final class LendingMember: ManagedObject {
    @Managed(slot: 0) var name: String
    @Managed(slot: 1) var loans: Set<LendingLoan>
}

final class LendingBook: ManagedObject {
    @Managed(slot: 0) var title: String
    @Managed(slot: 1) var loans: Set<LendingLoan>
    @Managed(slot: 2) var shelves: Set<LendingShelf>
}

final class LendingShelf: ManagedObject {
    @Managed(slot: 0) var label: String
    @Managed(slot: 1) var books: Set<LendingBook>
}

final class LendingLoan: ManagedObject {
    @Managed(slot: 0) var day: Int64
    @Managed(slot: 1) var member: LendingMember?
    @Managed(slot: 2) var book: LendingBook?
}

/// Batch deletes that run as one statement per table (issue 41): on a lending library of our own
/// (members, books on shelves, loans), every nullify a statement can do — a to-one whose inverse is
/// to-many, a to-many kept by the other side's column, a many-to-many join — gives the records, the
/// change set and the history a record-at-a-time delete gives, on the in-memory store (objects) and
/// SQLite (statements) alike; and the number of statements does not grow with the rows deleted.
@Suite struct SetBasedBatchTests {
    static let model = try! ManagedObjectModel(name: "Lending", entities: [
        EntityDescription("Member", class: LendingMember.self, attributes: [AttributeDescription("name", .string)],
                          relationships: [RelationshipDescription("loans", destination: "Loan", inverse: "member", toMany: true)]),
        EntityDescription("Book", class: LendingBook.self, attributes: [AttributeDescription("title", .string)],
                          relationships: [RelationshipDescription("loans", destination: "Loan", inverse: "book", toMany: true),
                                          RelationshipDescription("shelves", destination: "Shelf", inverse: "books", toMany: true)]),
        EntityDescription("Shelf", class: LendingShelf.self, attributes: [AttributeDescription("label", .string)],
                          relationships: [RelationshipDescription("books", destination: "Book", inverse: "shelves", toMany: true)]),
        EntityDescription("Loan", class: LendingLoan.self, attributes: [AttributeDescription("day", .int64)],
                          relationships: [RelationshipDescription("member", destination: "Member", inverse: "loans"),
                                          RelationshipDescription("book", destination: "Book", inverse: "loans")]),
    ])

    /// 4 members, 20 books on 3 shelves (two each), `loans` loans on days 0..<loans.
    func library(_ kind: String, loans: Int = 40, counter: StatementCounter? = nil) throws -> (ManagedContainer, URL?) {
        let (container, url) = try emptyContainer(kind, model: Self.model, counter: counter)
        let context = container.newContext()
        let members = (0..<4).map { index in LendingMember(context: context).with { $0.name = "M\(index)" } }
        let shelves = (0..<3).map { index in LendingShelf(context: context).with { $0.label = "S\(index)" } }
        let books = (0..<20).map { index in
            LendingBook(context: context).with { book in
                book.title = "B\(index)"
                book.shelves = [shelves[index % 3], shelves[(index + 1) % 3]]
            }
        }
        for day in 0..<loans {
            let loan = LendingLoan(context: context)
            loan.day = Int64(day)
            loan.member = members[day % 4]
            loan.book = books[day % 20]
        }
        try context.save()
        return (container, url)
    }

    /// What `body` gives on a fresh library in the in-memory store, then in SQLite (each with a
    /// statement counter, which only SQLite's statements move).
    func onBothStores(_ body: (_ kind: String, _ container: ManagedContainer, _ counter: StatementCounter) throws -> [String]) throws -> [[String]] {
        try ["in-memory", "sqlite"].map { kind in
            let counter = StatementCounter()
            let (container, url) = try library(kind, counter: counter)
            defer { url.map { try? FileManager.default.removeItem(at: $0) } }
            return try body(kind, container, counter)
        }
    }

    /// What a context sees of the library, as text: each member's and book's loans by day, each shelf's books.
    func snapshot(_ container: ManagedContainer) throws -> [String] {
        let context = container.newContext()
        let members = try context.fetch(FetchRequest<LendingMember>(entityName: "Member", sortDescriptors: [SortDescriptor("name")]))
        let books = try context.fetch(FetchRequest<LendingBook>(entityName: "Book", sortDescriptors: [SortDescriptor("title")]))
        let shelves = try context.fetch(FetchRequest<LendingShelf>(entityName: "Shelf", sortDescriptors: [SortDescriptor("label")]))
        let loans = try context.fetch(FetchRequest<LendingLoan>(entityName: "Loan", sortDescriptors: [SortDescriptor("day")]))
        return members.map { "\($0.name): \($0.loans.map(\.day).sorted())" }
            + books.map { "\($0.title): \($0.loans.map(\.day).sorted()) \($0.shelves.map(\.label).sorted())" }
            + shelves.map { "\($0.label): \($0.books.map(\.title).sorted())" }
            + loans.map { "loan \($0.day): \($0.member?.name ?? "-") \($0.book?.title ?? "-")" }
    }

    /// A change set as text, IDs by their records' names (keys differ between stores).
    func describe(_ changes: ChangeSet, _ container: ManagedContainer) -> [String] {
        changes.deleted.map { "deleted \($0.entityName)" }.sorted()
            + changes.updated.map { "updated \($0.key.entityName) \($0.value.sorted())" }.sorted()
    }

    @Test func theModelAllowsSetBasedDeletesOnlyWhereAStatementGivesTheSameOutcome() {
        #expect(Self.model.allowsSetBasedDeletion(of: ["Loan"]))
        #expect(Self.model.allowsSetBasedDeletion(of: ["Book"]))
        #expect(Self.model.allowsSetBasedDeletion(of: ["Shelf"]))
        // The blog's tags deny while they have posts: a query refuses the batch. Its posts cascade to
        // their comments, whose post derives a count from them: read record by record.
        #expect(!BlogModel.model.allowsSetBasedDeletion(of: ["Post"]))
        #expect(BlogModel.model.allowsSetBasedDeletion(of: ["Tag"]))
    }

    @Test func loansBooksAndShelvesDeletedByStatementsMatchTheInMemoryStore() throws {
        var results: [[String]] = []
        for kind in ["in-memory", "sqlite"] {
            let (container, url) = try library(kind)
            defer { url.map { try? FileManager.default.removeItem(at: $0) } }
            let context = container.newContext()
            // A to-one whose inverse is to-many: the members and books lose the loans.
            let loans = try context.batchDelete(try FetchRequest<LendingLoan>(entityName: "Loan", predicate: "day < 6 OR member.name == 'M3'"))
            // A to-many kept by the loans' column (the loans keep going, without a book), and a many-to-many.
            let books = try context.batchDelete(try FetchRequest<LendingBook>(entityName: "Book", predicate: "title IN {'B7', 'B8'}"))
            let shelves = try context.batchDelete(FetchRequest<LendingShelf>(entityName: "Shelf", predicate: "label == 'S0'"))
            results.append(describe(loans, container) + describe(books, container) + describe(shelves, container) + (try snapshot(container)))
            #expect(loans.deleted.count == 6 + 10 - 1)   // days 0..<6, and M3's days 3, 7, …, 39 (3 counted once)
            if kind == "sqlite" {
                #expect(try container.history().suffix(3).map(\.changes) == [loans, books, shelves])
            }
        }
        #expect(results[0] == results[1])
        #expect(!results[1].contains { $0.hasPrefix("loan 7:") })   // M3's: deleted
        #expect(results[1].contains("loan 8: M0 -") && results[1].contains("loan 28: M0 -"))  // B8's loans stay, without their book
        #expect(results[1].contains("M3: []") && results[1].contains("B3: [] [\"S1\"]"))
        #expect(results[1].contains("S1: [\"B0\", \"B1\", \"B10\", \"B12\", \"B13\", \"B15\", \"B16\", \"B18\", \"B19\", \"B3\", \"B4\", \"B6\", \"B9\"]"))
    }

    /// A batch delete states its condition on the table itself (`DELETE … AS t0 WHERE …`), unless it has
    /// a window: a condition through relationships, and a window of the loans in day order, give what
    /// the in-memory store gives.
    @Test func aConditionAndAWindowDeleteWhatTheInMemoryStoreDeletes() throws {
        let results = try onBothStores { kind, container, counter in
            let context = container.newContext()
            let before = counter.count + counter.writes
            // A condition through two to-one relationships (subqueries of other tables).
            let held = try context.batchDelete(try FetchRequest<LendingLoan>(entityName: "Loan", predicate: "day < 20 AND (member.name == 'M2' OR book.title ENDSWITH '3')"))
            // The 5 earliest loans left after skipping 2 (a window: the keys are chosen first).
            var window = FetchRequest<LendingLoan>(entityName: "Loan", sortDescriptors: [SortDescriptor("day")], fetchLimit: 5)
            window.fetchOffset = 2
            let windowed = try context.batchDelete(window)
            if kind == "sqlite" {   // each a DELETE … RETURNING and a history row: run by statements, not object by object
                #expect(counter.count + counter.writes - before == 4)
            }
            #expect(held.deleted.count == 7, "\(kind): \(held.deleted)")   // M2's days 2, 6, …, 18; B3's and B13's days 3 and 13
            #expect(windowed.deleted.count == 5, "\(kind): \(windowed.deleted)")
            return describe(held, container) + describe(windowed, container) + (try snapshot(container))
        }
        #expect(results[0] == results[1])
    }

    /// A context holding books keeps them loaded through a batch delete of loans when it has not read
    /// their loans (their rows and versions did not change), and reads their remaining loans when
    /// asked; books whose loans it had loaded (reading one book's loans, or changing a book, loads the
    /// loans of every book waiting for them) are refreshed, keeping its unsaved edit. The same when another context's batch is merged in; an
    /// edit after the merge saves without a conflict.
    @Test func aContextKeepsTheBooksWhoseLoansItHadNotReadThroughABatchDelete() throws {
        for kind in ["in-memory", "sqlite"] {
            for (mergedFromAnother, readLoansFirst) in [(false, false), (true, false), (false, true), (true, true)] {
                let (container, url) = try library(kind)
                defer { url.map { try? FileManager.default.removeItem(at: $0) } }
                let holding = container.newContext()
                let books = try holding.fetch(FetchRequest<LendingBook>(entityName: "Book", sortDescriptors: [SortDescriptor("title")]))
                let byTitle = Dictionary(uniqueKeysWithValues: books.map { ($0.title, $0) })
                if readLoansFirst {
                    #expect(byTitle["B1"]!.loans.map(\.day).sorted() == [1, 21])
                    byTitle["B2"]!.title = "B2 renamed"   // unsaved (its loans: days 2, 22)
                }
                let request = try FetchRequest<LendingLoan>(entityName: "Loan", predicate: "day < 5")
                let changes: ChangeSet
                if mergedFromAnother {
                    changes = try container.newContext().batchDelete(request)
                    holding.mergeChanges(changes)
                } else {
                    changes = try holding.batchDelete(request)
                }
                let label = "\(kind), merged from another context: \(mergedFromAnother), loans read first: \(readLoansFirst)"
                #expect(changes.deleted.count == 5 && changes.updated.count == 5 + 4, "\(label): \(changes)")  // 5 books, 4 members
                // SQLite's fetch leaves to-many relationships pending (the in-memory store's rows carry them).
                if kind == "sqlite" {
                    #expect(byTitle["B3"]!.isFault == readLoansFirst && byTitle["B4"]!.isFault == readLoansFirst, "\(label)")
                }
                #expect(byTitle["B3"]!.loans.map(\.day).sorted() == [23], "\(label)")
                #expect(byTitle["B1"]!.loans.map(\.day).sorted() == [21], "\(label)")
                #expect(byTitle["B2"]!.title == (readLoansFirst ? "B2 renamed" : "B2") && byTitle["B2"]!.loans.map(\.day).sorted() == [22], "\(label)")
                byTitle["B4"]!.title = "B4 renamed"
                try holding.save()
                let reader = container.newContext()
                let titles = try reader.fetch(FetchRequest<LendingBook>(entityName: "Book", predicate: "title ENDSWITH 'renamed'")).map(\.title)
                #expect(titles.sorted() == (readLoansFirst ? ["B2 renamed", "B4 renamed"] : ["B4 renamed"]), "\(label)")
            }
        }
    }

    @Test func theNumberOfStatementsDoesNotGrowWithTheRowsDeleted() throws {
        var counts: [Int] = []
        for loans in [50, 2_000] {
            let counter = StatementCounter()
            let (container, url) = try library("sqlite", loans: loans, counter: counter)
            defer { url.map { try? FileManager.default.removeItem(at: $0) } }
            let context = container.newContext()
            let before = (counter.count, counter.writes)
            let changes = try context.batchDelete(try FetchRequest<LendingLoan>(entityName: "Loan", predicate: "day >= 10"))
            counts.append(counter.count - before.0 + counter.writes - before.1)
            #expect(changes.deleted.count == loans - 10)
            #expect(try container.newContext().count(for: FetchRequest<LendingLoan>(entityName: "Loan")) == 10)
        }
        // One DELETE … RETURNING (the members and books lose the loans by it) and the history row.
        #expect(counts == [2, 2], "statements deleting 40 and 1,990 loans: \(counts)")
    }

    @Test func aBatchUpdateIsOneStatementWithTheSameOutcomeAsObjects() throws {
        let results = try onBothStores { kind, container, counter in
            let context = container.newContext()
            let held = try #require(try context.fetch(try FetchRequest<LendingLoan>(entityName: "Loan", predicate: "day == 5")).first)
            let before = counter.writes
            let changes = try context.batchUpdate(try FetchRequest<LendingLoan>(entityName: "Loan", predicate: "member.name == 'M1' AND day > 3"), set: ["day": 100])
            if kind == "sqlite" {
                #expect(counter.writes - before == 2, "one UPDATE … WHERE … RETURNING, and the history row")
                #expect(try container.history().last?.changes == changes)
            }
            #expect(changes.updated.count == 9 && changes.updated.values.allSatisfy { $0 == ["day"] })
            #expect(held.day == 100)   // the context's own object shows the new value
            return describe(changes, container) + (try snapshot(container))
        }
        #expect(results[0] == results[1])
    }

    @MainActor @Test func theMainContextsLiveResultsHearOfAStatementDelete() async throws {
        let (container, url) = try library("sqlite")
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let main = container.mainContext
        let early = try LiveResults(try FetchRequest<LendingLoan>(entityName: "Loan", predicate: "day < 5", sortDescriptors: [SortDescriptor("day")]), in: main)
        let member = try #require(try main.fetch(try FetchRequest<LendingMember>(entityName: "Member", predicate: "name == 'M1'")).first)
        #expect(member.loans.count == 10 && early.objects.count == 5)
        _ = try await container.performBackgroundTask { context in
            try context.batchDelete(try FetchRequest<LendingLoan>(entityName: "Loan", predicate: "day IN {1, 2, 5}"))
        }
        for _ in 0..<200 where early.objects.count != 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(early.objects.map(\.day) == [0, 3, 4])
        #expect(member.loans.count == 8)   // days 1 and 5 left M1's loans
    }
}

/// An empty container of `model` over a new SQLite file (`kind == "sqlite"`, its statements counted by
/// `counter`; the file's URL returned for removal) or the in-memory store.
func emptyContainer(_ kind: String, model: ManagedObjectModel, counter: StatementCounter? = nil) throws -> (ManagedContainer, URL?) {
    let url = kind == "sqlite" ? scratchDirectory.appendingPathComponent("\(model.name)-\(UUID().uuidString).sqlite") : nil
    let store: any PersistentStore
    if let url {
        var configuration = SQLiteConfiguration()
        configuration.statementCounter = counter
        store = try SQLiteStore(url: url, model: model, configuration: configuration)
    } else {
        store = InMemoryStore(model: model)
    }
    return (ManagedContainer(model: model, store: store), url)
}

extension ManagedObject {
    /// The object after `configure` ran on it (test set-up).
    func with(_ configure: (Self) -> Void) -> Self {
        configure(self)
        return self
    }
}


/// Join tables carry a covering index of their members (issue 41: loading the members of many
/// records reads the index alone); a store made before it gets it when opened, links intact.
@Suite struct JoinIndexUpgradeTests {
    func indexes(_ path: String) -> Set<String> { sqliteMasterNames(path, type: "index") }

    @Test func aStoreWithTheOldJoinIndexGetsTheMembersIndexWhenOpened() throws {
        let (container, url) = try SetBasedBatchTests().library("sqlite")
        let path = try #require(url).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let before = try SetBasedBatchTests().snapshot(container)
        // One table for the pair (Book.shelves and Shelf.books), an index for each side's reads.
        #expect(indexes(path).isSuperset(of: ["Book.shelves.members", "Book.shelves.inverse"]))
        // Back to the index stores had before: on source and position only.
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        sqlite3_exec(db, "DROP INDEX \"Book.shelves.members\"; CREATE INDEX \"Book.shelves.source\" ON \"Book.shelves\" (\"source\", \"position\")", nil, nil, nil)
        sqlite3_close(db)
        #expect(!indexes(path).contains("Book.shelves.members"))
        let reopened = ManagedContainer(model: SetBasedBatchTests.model, store: try SQLiteStore(url: URL(fileURLWithPath: path), model: SetBasedBatchTests.model))
        let names = indexes(path)
        #expect(names.contains("Book.shelves.members"))
        #expect(!names.contains("Book.shelves.source"))
        #expect(try SetBasedBatchTests().snapshot(reopened) == before)
    }
}
