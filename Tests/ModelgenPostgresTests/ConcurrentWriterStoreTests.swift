import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

/// Two servers (two containers, each with its own store connection) adding members under one shared
/// parent, on every store kind: both saves succeed with the default policy, every member and link is
/// kept, and a parent renamed meanwhile keeps its new name (issue 40).
@Suite struct ConcurrentWriterStoreTests {
    @Test(arguments: availableKinds)
    func twoServersAddingUnderOneParentLoseNothing(_ kind: StoreKind) throws {
        let (store, reopen) = try kind.makeStore()
        let first = ManagedContainer(model: semanticsModel, store: store)
        let second = ManagedContainer(model: semanticsModel, store: kind == .inMemory ? store : try reopen(semanticsModel))
        let setup = first.newContext()
        let engine = try setup.insertObject(entityName: "Project")
        try engine.setValue("Engine", forKey: "title")
        try setup.save()

        func project(in context: ManagedObjectContext) throws -> ManagedObject {
            try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Project")).first)
        }
        let a = first.newContext(), b = second.newContext()
        let projectA = try project(in: a), projectB = try project(in: b)
        _ = try projectA.value(forKey: "tasks")
        _ = try projectB.value(forKey: "members")
        // Meanwhile a third context renames the project.
        let renamer = second.newContext()
        try project(in: renamer).setValue("Analytical Engine", forKey: "title")
        try renamer.save()

        for (context, project, name) in [(a, projectA, "a"), (b, projectB, "b")] {
            for index in 0..<3 {
                let task = try context.insertObject(entityName: "Task")
                try task.setValue("\(name)\(index)", forKey: "summary")
                try task.setValue(project, forKey: "project")
            }
            let member = try context.insertObject(entityName: "Employee")
            try member.setValue(name, forKey: "name")
            try member.setValue("\(name)@example.com", forKey: "email")
            try member.setValue([project], forKey: "projects")
        }
        try a.save()
        try b.save()

        let reader = first.newContext()
        let stored = try project(in: reader)
        #expect(try stored.value(forKey: "title") as? String == "Analytical Engine", "\(kind)")
        let tasks = try #require(try stored.value(forKey: "tasks") as? [ManagedObject])
        #expect(Set(try tasks.map { try $0.value(forKey: "summary") as! String }) == ["a0", "a1", "a2", "b0", "b1", "b2"], "\(kind)")
        let members = try #require(try stored.value(forKey: "members") as? [ManagedObject])
        #expect(Set(try members.map { try $0.value(forKey: "name") as! String }) == ["a", "b"], "\(kind)")
        // Each member's own side of the link is there too.
        for member in members {
            #expect((try member.value(forKey: "projects") as? [ManagedObject])?.map(\.objectID) == [stored.objectID], "\(kind)")
        }

        // Constraints spanning rows, checked in the committing transaction: a project holds at most 4
        // members (it has 2: two servers add 2 each, the second is refused), and an employee who leads a
        // project cannot be deleted (a lead set by the other server meanwhile is seen).
        let c = first.newContext(), d = second.newContext()
        for (context, name) in [(c, "c"), (d, "d")] {
            let target = try project(in: context)
            var members = try target.value(forKey: "members") as! [ManagedObject]
            for index in 0..<2 {
                let member = try context.insertObject(entityName: "Employee")
                try member.setValue("\(name)\(index)", forKey: "name")
                try member.setValue("\(name)\(index)@example.com", forKey: "email")
                members.append(member)
            }
            try target.setValue(members, forKey: "members")
        }
        try c.save()
        #expect(throws: ValidationError.self, "\(kind)") { try d.save() }
        let e = first.newContext(), f = second.newContext()
        let doomed = try #require(try e.fetch(try FetchRequest<ManagedObject>(entityName: "Employee", predicate: "name == 'c0'")).first)
        try project(in: f).setValue(try f.existingObject(with: doomed.objectID), forKey: "lead")
        try f.save()
        e.delete(doomed)
        #expect(throws: ValidationError.self, "\(kind)") { try e.save() }
        let check = first.newContext()
        #expect((try project(in: check).value(forKey: "members") as? [ManagedObject])?.count == 4, "\(kind)")
        #expect(try (project(in: check).value(forKey: "lead") as? ManagedObject)?.objectID == doomed.objectID, "\(kind)")
    }

    /// Four servers saving 100 tasks each under one shared project at the same time (PostgreSQL loads
    /// each save's tasks with COPY): every task is kept, in one ordered list, with unique keys; then
    /// one batch delete of the project cascades to all 400 in SQL, and a second project's tasks stay.
    @Test(arguments: availableKinds)
    func fourServersSavingHundredsUnderOneParentLoseNothing(_ kind: StoreKind) async throws {
        let (store, reopen) = try kind.makeStore()
        let first = ManagedContainer(model: semanticsModel, store: store)
        var servers = [first]
        for _ in 1..<4 { servers.append(ManagedContainer(model: semanticsModel, store: kind == .inMemory ? store : try reopen(semanticsModel))) }
        let setup = first.newContext()
        for title in ["Engine", "Loom"] {
            let project = try setup.insertObject(entityName: "Project")
            try project.setValue(title, forKey: "title")
        }
        try setup.save()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, server) in servers.enumerated() {
                group.addTask {
                    try await server.performBackgroundTask { context in
                        let engine = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Project", predicate: "title == 'Engine'")).first)
                        for index in 0..<100 {
                            let task = try context.insertObject(entityName: "Task")
                            try task.setValue("s\(number)-\(index)", forKey: "summary")
                            try task.setValue(engine, forKey: "project")
                        }
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let extra = first.newContext()
        let loom = try #require(try extra.fetch(FetchRequest<ManagedObject>(entityName: "Project", predicate: "title == 'Loom'")).first)
        let kept = try extra.insertObject(entityName: "Task")
        try kept.setValue("loom", forKey: "summary"); try kept.setValue(loom, forKey: "project")
        try extra.save()

        let reader = first.newContext()
        let engine = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Project", predicate: "title == 'Engine'")).first)
        let tasks = try #require(try engine.value(forKey: "tasks") as? [ManagedObject])
        #expect(tasks.count == 400, "\(kind)")
        #expect(Set(try tasks.map { try $0.value(forKey: "summary") as! String }).count == 400, "\(kind)")
        #expect(Set(tasks.map(\.objectID)).count == 400, "\(kind)")
        if kind != .inMemory { #expect(try first.history().filter { $0.changes.inserted.count == 100 }.count == 4, "\(kind)") }

        let changes = try reader.batchDelete(try FetchRequest<ManagedObject>(entityName: "Project", predicate: "title == 'Engine'"))
        #expect(changes.deleted.filter { $0.entityName == "Task" }.count == 400, "\(kind)")
        let after = first.newContext()
        #expect(try after.fetch(FetchRequest<ManagedObject>(entityName: "Task")).map { try $0.value(forKey: "summary") as! String } == ["loom"], "\(kind)")
    }
}
