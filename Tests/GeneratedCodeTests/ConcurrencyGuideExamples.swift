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

// MARK: Pattern 1b: editing in a child context

/// A sheet that edits an employee: the edit lives in a child of the main context until Done.
@MainActor final class EmployeeEditor {
    let draft: ManagedObjectContext
    let employee: Employee                 // the child's copy: bind the sheet's fields to it

    init(editing id: ObjectID, in container: ManagedContainer) throws {
        draft = container.mainContext.newChildContext()
        employee = try draft.existingObject(with: id, as: Employee.self)
    }

    /// Cancel: the draft's changes are dropped; the main context never saw them.
    func cancel() {
        draft.rollback()
    }

    /// Done: validated and pushed into the main context (its live results update), then saved.
    func done() throws {
        try draft.save()
        try draft.parent?.save()
    }
}

/// A raise for a whole team, computed off the main actor; the main context holds it unsaved.
@MainActor func giveRaise(to team: ObjectID, percent: Decimal, container: ManagedContainer) async throws -> Int {
    try await container.mainContext.performChildTask { child in
        let department = try child.existingObject(with: team, as: Department.self)
        for person in department.members { person.salary *= 1 + percent / 100 }
        try child.save()                   // into the main context, not the store
        return department.members.count
    }
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

// MARK: Choosing a merge policy

/// A server handler: its own edits win property by property; what others saved stays.
func renameDepartment(_ id: ObjectID, to name: String, container: ManagedContainer) async throws {
    try await container.performBackgroundTask { context in
        context.mergePolicy = .mergeByPropertyObjectTrump
        let department = try context.existingObject(with: id, as: Department.self)
        department.name = name
        try context.save()
    }
}

/// An editor under `.error`: what someone else saved meanwhile, property by property.
func whatOthersChanged(_ error: MergeConflictError) -> [String] {
    error.objects.flatMap { object in
        object.properties.filter(\.changedInStore).map { property in
            "\(property.key): you read \(property.readValue.readableText), now \(property.storedValue?.readableText ?? "deleted")"
        }
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

// MARK: The serializable save

/// Moves an employee out of a department unless that would leave it empty: runs again when what it
/// read changed before it saved (another save moved someone out meanwhile).
func moveOut(_ lastName: String, of department: String, in container: ManagedContainer) async throws -> Bool {
    while true {
        do {
            return try await container.performBackgroundTask { context in
                context.saveIsolation = .serializable
                var request = Department.fetchRequest()
                request.predicate = try FetchPredicate("name == $NAME")
                request.variables = ["NAME": department]
                guard let department = try context.fetch(request).first, department.members.count > 1,
                      let leaving = department.members.first(where: { $0.lastName == lastName }) else { return false }
                leaving.department = nil
                try context.save()
                return true
            }
        } catch is ReadConflictError {
            continue   // a new context reads the state the other save left
        }
    }
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

    /// The editing sheet, as a user would: one edit cancelled, one saved; the main context's live
    /// results (sorted by last name) show only the saved one, and so does the store. Then a raise for
    /// the team in a background child: the main context holds it unsaved until it saves.
    @MainActor @Test func theEditingSheetCancelsOnceAndSavesOnce() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ManagedContainer(model: StaffModel.model, store: .sqlite(url))
        let main = container.mainContext
        let sales = Department(context: main, name: "Sales")
        for (first, last) in [("Ann", "Baker"), ("Cy", "Adams")] {
            let person = Employee(context: main, firstName: first, lastName: last)
            person.department = sales
            person.salary = 1000
        }
        try main.save()
        let list = try teamList(container, team: sales.objectID)
        #expect(list.objects.map(\.lastName) == ["Adams", "Baker"])
        let ann = list.objects[1]

        let cancelled = try EmployeeEditor(editing: ann.objectID, in: container)
        cancelled.employee.lastName = "Zed"
        #expect(list.objects.map(\.lastName) == ["Adams", "Baker"])
        cancelled.cancel()
        #expect(ann.lastName == "Baker" && !main.hasChanges)

        let editor = try EmployeeEditor(editing: ann.objectID, in: container)
        editor.employee.lastName = "Aaron"
        try editor.done()
        #expect(list.objects.map(\.lastName) == ["Aaron", "Adams"])
        #expect(!main.hasChanges)
        let reader = container.newContext()
        #expect(try reader.fetch(Employee.fetchRequest()).map(\.lastName).sorted() == ["Aaron", "Adams"])

        #expect(try await giveRaise(to: sales.objectID, percent: 10, container: container) == 2)
        #expect(list.objects.map(\.salary) == [1100, 1100])
        #expect(main.hasChanges)
        #expect(try reader.fetch(Employee.fetchRequest()).map(\.salary) == [1000, 1000])
        try main.save()
        let later = container.newContext()
        #expect(try later.fetch(Employee.fetchRequest()).map(\.salary) == [1100, 1100])
    }

    /// The merge-policy examples: a handler's rename wins over nothing it did not change (another
    /// save's budget stays), and an editor under `.error` hears what clashed.
    @Test func theMergePolicyExamplesWork() async throws {
        let container = try ManagedContainer(model: StaffModel.model, store: .inMemory)
        let setup = container.newContext()
        let sales = Department(context: setup, name: "Sales")
        try setup.save()
        let editor = container.newContext()
        let edited = try editor.existingObject(with: sales.objectID, as: Department.self)
        edited.budget = 500
        try await renameDepartment(sales.objectID, to: "Sales & Marketing", container: container)
        let budgets = container.newContext()
        try budgets.existingObject(with: sales.objectID, as: Department.self).budget = 900
        try budgets.save()
        do {
            try editor.save()
            Issue.record("no conflict")
        } catch let error as MergeConflictError {
            #expect(Set(whatOthersChanged(error)) == ["budget: you read 0, now 900", "name: you read Sales, now Sales & Marketing"])
        }
        let reader = container.newContext()
        let stored = try reader.existingObject(with: sales.objectID, as: Department.self)
        #expect(stored.name == "Sales & Marketing" && stored.budget == 900)
    }

    /// The serializable example: two moves out of a department of two, at once; one of them leaves
    /// the department its last member, the other finds one member and gives up (whichever saved
    /// second either read one member or was refused and read again).
    @Test func theSerializableExampleNeverEmptiesADepartment() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("guide-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ManagedContainer(model: StaffModel.model, store: .sqlite(url))
        for round in 0..<20 {
            let setup = container.newContext()
            let team = Department(context: setup, name: "Team \(round)")
            for name in ["Ames", "Bell"] {
                let employee = Employee(context: setup)
                employee.firstName = "A"
                employee.lastName = name
                employee.department = team
            }
            try setup.save()
            async let first = moveOut("Ames", of: "Team \(round)", in: container)
            async let second = moveOut("Bell", of: "Team \(round)", in: container)
            let moved = try await [first, second]
            #expect(moved.filter { $0 }.count == 1, "round \(round): \(moved)")
            let check = container.newContext()
            #expect(try check.existingObject(with: team.objectID, as: Department.self).members.count == 1)
        }
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
