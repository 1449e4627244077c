import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

/// Batch deletes, updates and inserts on every store kind, PostgreSQL included, give the same results
/// (ModelgenRuntimeTests.BatchOperationTests covers them in depth on in-memory and SQLite).
@Suite struct BatchOperationStoreTests {
    @Test(arguments: availableKinds)
    func batchOperationsAgreeOnEveryStore(_ kind: StoreKind) throws {
        let container = ManagedContainer(model: semanticsModel, store: try kind.makeStore().store)
        let setup = container.newContext()
        func person(_ name: String) throws -> ManagedObject {
            let employee = try setup.insertObject(entityName: "Employee")
            try employee.setValue(name, forKey: "name")
            try employee.setValue("\(name.lowercased())@example.com", forKey: "email")
            return employee
        }
        let ada = try person("Ada"), bo = try person("Bo")
        for (title, members, tasks) in [("P1", [ada, bo], ["t1", "t2"]), ("P2", [bo], ["t3"])] {
            let project = try setup.insertObject(entityName: "Project")
            try project.setValue(title, forKey: "title")
            try project.setValue(members, forKey: "members")
            if title == "P1" { try project.setValue(ada, forKey: "lead") }
            for summary in tasks {
                let task = try setup.insertObject(entityName: "Task")
                try task.setValue(summary, forKey: "summary")
                try task.setValue(project, forKey: "project")
            }
        }
        try setup.save()
        func names(_ entity: String, _ key: String, _ predicate: String = "TRUEPREDICATE") throws -> [String] {
            let reader = container.newContext()
            return try reader.fetch(try FetchRequest<ManagedObject>(entityName: entity, predicate: predicate)).map { try $0.value(forKey: key) as! String }.sorted()
        }
        let context = container.newContext()
        // Deny: Ada leads P1.
        #expect(throws: ValidationError.self, "\(kind)") {
            try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Employee", predicate: "name == 'Ada'"))
        }
        // Cascade (the tasks) and nullify (members' projects, the lead's leads).
        let deleted = try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Project", predicate: "title == 'P1'"))
        #expect(deleted.deleted.count == 3, "\(kind)")
        #expect(try names("Task", "summary") == ["t3"], "\(kind)")
        #expect(try names("Project", "title", "ANY members.name == 'Bo'") == ["P2"], "\(kind)")
        #expect(try names("Employee", "name", "projects.@count == 0") == ["Ada"], "\(kind)")
        try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Employee", predicate: "name == 'Ada'"))
        #expect(try names("Employee", "name") == ["Bo"], "\(kind)")
        // Update: attributes in the store; a value out of bounds or a repeated unique value refused.
        try context.batchUpdate(FetchRequest<ManagedObject>(entityName: "Project"), set: ["budget": Int64(7)])
        #expect(try names("Project", "title", "budget == 7") == ["P2"], "\(kind)")
        // Insert: defaults applied, uniqueness refused.
        let ids = try context.batchInsert(entityName: "Employee", values: (1...3).map { ["name": "E\($0)", "email": "e\($0)@example.com"] })
        #expect(ids.count == 3, "\(kind)")
        #expect(try names("Employee", "name", "level == 1") == ["Bo", "E1", "E2", "E3"], "\(kind)")
        #expect(throws: ValidationError.self, "\(kind)") {
            try context.batchInsert(entityName: "Customer", values: [["name": "Twin", "email": "bo@example.com"]])
        }
        // A set-based update that repeats a unique value is refused whole (one UPDATE on the SQL stores).
        #expect(throws: ValidationError.self, "\(kind)") {
            try context.batchUpdate(FetchRequest<ManagedObject>(entityName: "Employee"), set: ["email": "same@example.com"])
        }
        #expect(try names("Employee", "email", "email == 'same@example.com'").isEmpty, "\(kind)")
    }

    /// Tasks (a to-one whose inverse is the projects' ordered to-many) are deleted with statements on
    /// the SQL stores: the projects lose them, the change set and the history say so, as in memory.
    @Test(arguments: availableKinds)
    func setBasedDeletesAgreeOnEveryStore(_ kind: StoreKind) throws {
        #expect(semanticsModel.allowsSetBasedDeletion(of: ["Task"]))
        let container = ManagedContainer(model: semanticsModel, store: try kind.makeStore().store)
        let setup = container.newContext()
        for title in ["P1", "P2"] {
            let project = try setup.insertObject(entityName: "Project")
            try project.setValue(title, forKey: "title")
            for index in 1...3 {
                let task = try setup.insertObject(entityName: "Task")
                try task.setValue("\(title).\(index)", forKey: "summary")
                try task.setValue(project, forKey: "project")
            }
        }
        // A task of no project: its deleted row names no record that loses it.
        try setup.insertObject(entityName: "Task").setValue("X.2", forKey: "summary")
        try setup.save()
        let context = container.newContext()
        let changes = try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Task", predicate: "summary ENDSWITH '.2' OR project.title == 'P2' AND summary != 'P2.3'"))
        #expect(changes.deleted.count == 4, "\(kind)")
        #expect(changes.updated.values.map { $0.sorted() } == [["tasks"], ["tasks"]], "\(kind)")
        let reader = container.newContext()
        let projects = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Project", sortDescriptors: [SortDescriptor("title")]))
        let lists = try projects.map { try ($0.value(forKey: "tasks") as! [ManagedObject]).map { try $0.value(forKey: "summary") as! String } }
        #expect(lists == [["P1.1", "P1.3"], ["P2.3"]], "\(kind)")
        if kind != .inMemory { #expect(try container.history().last?.changes == changes, "\(kind)") }
    }
}

/// Clubs whose people (required club) and events go with them, people's tickets with them, and a
/// sponsor cycle: a batch delete cascades and denies in SQL on SQLite and PostgreSQL, as the in-memory
/// store's record-by-record delete does.
let clubsModel = try! ManagedObjectModel(name: "Clubs", entities: [
    EntityDescription("Club", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("people", destination: "Person", inverse: "club", toMany: true, deleteRule: .cascade),
        RelationshipDescription("events", destination: "Event", inverse: "club", toMany: true, deleteRule: .cascade),
    ]),
    EntityDescription("Person", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("club", destination: "Club", inverse: "people", optional: false),
        RelationshipDescription("tickets", destination: "Ticket", inverse: "holder", toMany: true, deleteRule: .cascade),
        RelationshipDescription("sponsor", destination: "Person", inverse: "sponsored", deleteRule: .cascade),
        RelationshipDescription("sponsored", destination: "Person", inverse: "sponsor", toMany: true),
    ]),
    EntityDescription("Event", class: ManagedObject.self, attributes: [AttributeDescription("title", .string)], relationships: [
        RelationshipDescription("club", destination: "Club", inverse: "events"),
        RelationshipDescription("tickets", destination: "Ticket", inverse: "event", toMany: true, deleteRule: .deny),
    ]),
    EntityDescription("Ticket", class: ManagedObject.self, attributes: [AttributeDescription("seat", .int64)], relationships: [
        RelationshipDescription("holder", destination: "Person", inverse: "tickets", optional: false),
        RelationshipDescription("event", destination: "Event", inverse: "tickets"),
    ]),
])

@Suite struct CascadingBatchDeleteStoreTests {
    /// Three clubs of three people (C0's and C1's in sponsor cycles), an event each, a ticket per
    /// person for their club's event, and C2's first person holding one for C1's event too.
    func clubs(_ kind: StoreKind) throws -> ManagedContainer {
        let (store, _) = try kind.makeStore(model: clubsModel)
        let container = ManagedContainer(model: clubsModel, store: store)
        let context = container.newContext()
        let make = context.make
        var events: [ManagedObject] = [], firsts: [ManagedObject] = []
        for c in 0..<3 {
            let club = try make("Club", ["name": "C\(c)"])
            let event = try make("Event", ["title": "E\(c)", "club": club])
            let people = try (0..<3).map { try make("Person", ["name": "P\(c).\($0)", "club": club]) }
            for (n, person) in people.enumerated() {
                _ = try make("Ticket", ["seat": Int64(c * 10 + n), "holder": person, "event": event])
                if c < 2 { try person.setValue(people[(n + 2) % 3], forKey: "sponsor") }
            }
            events.append(event)
            firsts.append(people[0])
        }
        _ = try make("Ticket", ["seat": Int64(99), "holder": firsts[2], "event": events[1]])
        try context.save()
        return container
    }

    func snapshot(_ container: ManagedContainer) throws -> [String] {
        let context = container.newContext()
        var lines: [String] = []
        for (entity, key) in [("Club", "name"), ("Person", "name"), ("Event", "title"), ("Ticket", "seat")] {
            lines += try context.fetch(FetchRequest<ManagedObject>(entityName: entity, sortDescriptors: [SortDescriptor(key)])).map {
                "\(entity) \(try $0.value(forKey: key)!)"
            }
        }
        return lines
    }

    @Test(arguments: availableKinds)
    func cascadesAndDenialsAgreeOnEveryStore(_ kind: StoreKind) throws {
        let container = try clubs(kind)
        let context = container.newContext()
        let before = try snapshot(container)
        // C1's event still has C2's ticket: refused, naming it, nothing changed.
        #expect(throws: ValidationError.self, "\(kind)") {
            try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Club", predicate: "name == 'C1'"))
        }
        #expect(try snapshot(container) == before, "\(kind)")
        // C0: its people (a cycle), their tickets, its event.
        let changes = try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Club", predicate: "name == 'C0'"))
        #expect(changes.deleted.map(\.entityName).sorted() == ["Club", "Event"] + Array(repeating: "Person", count: 3) + Array(repeating: "Ticket", count: 3), "\(kind)")
        #expect(try snapshot(container) == before.filter { !$0.hasPrefix("Club C0") && !$0.hasPrefix("Person P0.") && !$0.hasPrefix("Event E0") && !["Ticket 0", "Ticket 1", "Ticket 2"].contains($0) }, "\(kind)")
        if kind != .inMemory { #expect(try container.history().last?.changes == changes, "\(kind)") }
        // C1 and C2 together: the ticket the deny rule guarded goes with its holder.
        let rest = try context.batchDelete(try FetchRequest<ManagedObject>(entityName: "Club", predicate: "name IN {'C1', 'C2'}"))
        #expect(rest.deleted.count == 2 + 6 + 2 + 7, "\(kind)")
        #expect(try snapshot(container).isEmpty, "\(kind)")
    }
}
