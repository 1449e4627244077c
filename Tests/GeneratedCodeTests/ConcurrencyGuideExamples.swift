// The code of docs/concurrency.md, compiled here (Swift 6 mode, warnings as errors) against
// Examples/Staff's generated classes and run by the tests below. Each ```swift block of the guide
// must appear in this file verbatim (`guideBlocksAreCompiledHere` checks), so the guide cannot drift.
import Foundation
import ModelgenRuntime
import Observation
import Testing

/// A row of the import (the guide's input type).
struct PersonRow: Sendable {
    var first: String
    var last: String
}

// MARK: Pattern 1: the main context for UI

/// A screen's list: every employee of a team, kept current.
@MainActor func teamList(_ container: ManagedContainer, team: ObjectID) throws -> LiveResults<Employee> {
    var request = Employee.fetchRequest()
    request.predicate = try FetchPredicate("department == $TEAM")
    request.variables = ["TEAM": team]
    request.sortDescriptors = [SortDescriptor("lastName")]
    return try LiveResults(request, in: container.mainContext)   // Observable: a SwiftUI view redraws
}

// MARK: Pattern 2: background import

/// A one-off job: a context on a background actor; objects stay inside, IDs come out.
func hire(_ rows: [PersonRow], into team: ObjectID, container: ManagedContainer) async throws -> [ObjectID] {
    try await container.performBackgroundTask { context in
        let department = try context.existingObject(with: team, as: Department.self)
        let people = rows.map { Employee(context: context, firstName: $0.first, lastName: $0.last) }
        for person in people { person.department = department }
        try context.save()
        return people.map(\.objectID)
    }
}

/// A long-lived importer: your own actor owning a context.
actor TeamImporter: ModelActor {
    let modelContext: ManagedObjectContext

    init(container: ManagedContainer) {
        modelContext = container.newContext(observation: .unobserved)
    }

    /// Imports rows in batches, one save per batch; returns how many it saved.
    func importPeople(_ rows: [PersonRow], batchSize: Int = 500) throws -> Int {
        var saved = 0
        for batch in stride(from: 0, to: rows.count, by: batchSize).map({ rows[$0..<min($0 + batchSize, rows.count)] }) {
            for row in batch { _ = Employee(context: modelContext, firstName: row.first, lastName: row.last) }
            try modelContext.save()
            saved += batch.count
        }
        return saved
    }
}

// MARK: Pattern 3: another process

/// A server process following every save to the file, its own and other processes' alike.
func followSaves(_ container: ManagedContainer, until done: @escaping @Sendable (ChangeSet) -> Bool) async {
    container.watchOtherProcesses(every: .milliseconds(50))   // the main context starts this itself
    for await change in container.changes {
        print("inserted \(change.inserted.count), updated \(change.updated.count), deleted \(change.deleted.count)")
        if done(change) { break }
    }
}

/// Catching up after a restart: everything saved after the last token this process handled.
func catchUp(_ container: ManagedContainer, after token: Int64?) throws -> Int64? {
    let transactions = try container.history(after: token)
    for transaction in transactions {
        print("\(transaction.author) at \(transaction.timestamp): \(transaction.changes)")
    }
    if let last = transactions.last?.token { try container.pruneHistory(through: last) }
    return transactions.last?.token ?? token
}

// MARK: The guide's code, run

@Suite struct ConcurrencyGuideTests {
    @MainActor @Test func thePatternsOfTheGuideWorkTogether() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("guide-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ManagedContainer(model: StaffModel.model, store: .sqlite(url))
        let sales = Department(context: container.mainContext, name: "Sales")
        try container.mainContext.save()

        let list = try teamList(container, team: sales.objectID)
        let hired = try await hire([PersonRow(first: "Ann", last: "Baker"), PersonRow(first: "Cy", last: "Adams")],
                                   into: sales.objectID, container: container)
        #expect(hired.count == 2)
        #expect(try await eventually { list.objects.map(\.lastName) == ["Adams", "Baker"] })

        // Another container on the same file stands for another process: its saves arrive through history.
        let otherProcess = try ManagedContainer(model: StaffModel.model, store: .sqlite(url))
        let importer = TeamImporter(container: otherProcess)
        let rows = (0..<1200).map { PersonRow(first: "P", last: "Person \($0)") }
        #expect(try await importer.importPeople(rows) == 1200)
        let token = try catchUp(container, after: nil)
        #expect(token != nil)
        #expect(try container.history().isEmpty)   // pruned through the last token
        #expect(try container.mainContext.count(for: Employee.fetchRequest()) == 1202)
    }

    /// Every ```swift block of docs/concurrency.md is in this file, character for character.
    @Test func guideBlocksAreCompiledHere() throws {
        let tests = URL(fileURLWithPath: #filePath)
        let root = tests.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/concurrency.md"), encoding: .utf8)
        let source = try String(contentsOf: tests, encoding: .utf8)
        let blocks = guide.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count >= 5)
        for block in blocks { #expect(source.contains(block), "not compiled: \(block.prefix(80))") }
    }
}
