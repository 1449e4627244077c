import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

/// Projections on every store kind: the values a list shows, one row per record in the fetch's order
/// and window, equal to what the whole objects say; a first member of a many-to-many in the order a
/// request names, and of an ordered one-to-many in its own order.
@Suite struct ProjectionStoreTests {
    /// Employees (in the shared Person table beside customers) on projects; projects with ordered tasks.
    func staffed(_ kind: StoreKind) throws -> ManagedContainer {
        let container = ManagedContainer(model: semanticsModel, store: try kind.makeStore().store)
        let context = container.newContext()
        let people = try ["Cy", "Ada", "Bea"].enumerated().map { (index: Int, name: String) in
            try context.make("Employee", ["name": name, "email": "\(name)@example.com", "level": Int16(index + 1)])
        }
        _ = try context.make("Customer", ["name": "Dee", "email": "dee@example.com"])
        for (index, title) in ["Loom", "Engine", "Idle", "Mill"].enumerated() {
            let members = [[0, 2], [1, 2, 0], [], [2]][index].map { people[$0] }
            let project = try context.make("Project", ["title": title, "budget": Int64(10 * (index + 1)), "members": members,
                                                       "lead": members.last])
            for step in (0..<index).reversed() { _ = try context.make("Task", ["summary": "\(title) step \(step)", "project": project]) }
        }
        try context.save()
        return container
    }

    @Test(arguments: availableKinds)
    func aListsValuesAreTheObjectsValues(_ kind: StoreKind) throws {
        let container = try staffed(kind)
        let context = container.newContext()
        var fetch = try FetchRequest<ManagedObject>(entityName: "Project", predicate: "budget >= 20", sortDescriptors: [SortDescriptor("title")])
        fetch.fetchLimit = 2
        fetch.fetchOffset = 1
        let rows = try context.fetch(ProjectionRequest(fetch, properties: [
            ProjectedProperty("title"), ProjectedProperty("budget", as: "money"), ProjectedProperty("lead.name", as: "leader"), ProjectedProperty("lead"),
            .first("members.name", by: [SortDescriptor("name")], as: "firstMember"),
            .first("members", by: [SortDescriptor("level", ascending: false)], as: "senior"),
            .first("tasks.summary", as: "firstTask"),
        ]))
        // The same questions asked of whole objects, in a fresh context.
        let reader = container.newContext()
        let objects = try reader.fetch(fetch)
        #expect(rows.map(\.objectID) == objects.map(\.objectID), "\(kind)")
        #expect(rows.map { $0.string("title") } == ["Idle", "Mill"], "\(kind)")
        for (row, project) in zip(rows, objects) {
            let members = try #require(try project.value(forKey: "members") as? [ManagedObject])
            let lead = try project.value(forKey: "lead") as? ManagedObject
            let tasks = try #require(try project.value(forKey: "tasks") as? [ManagedObject])
            #expect(row.int("money") == (try project.value(forKey: "budget") as? Int64), "\(kind)")
            #expect(row.string("leader") == (try lead?.value(forKey: "name") as? String), "\(kind)")
            #expect(row.relatedID("lead") == lead?.objectID, "\(kind)")
            #expect(row.string("firstMember") == (try members.map { try $0.value(forKey: "name") as! String }.min()), "\(kind)")
            let senior = try members.max { (try $0.value(forKey: "level") as! Int16) < (try $1.value(forKey: "level") as! Int16) }
            #expect(row.relatedID("senior") == senior?.objectID, "\(kind)")
            #expect(row.string("firstTask") == (try tasks.first?.value(forKey: "summary") as? String), "\(kind): \(row)")
        }
        #expect(rows.last?.string("firstTask") == "Mill step 2", "\(kind): the ordered relationship's own order")
        // The SQL stores answer it themselves (one SELECT), with the same rows.
        if kind != .inMemory {
            let store = try #require(container.store as? any QueryingStore)
            var query = StoreQuery(entityNames: ["Project"], entityName: "Project", predicate: try FetchPredicate("budget >= 20").predicate,
                                   sortDescriptors: [SortDescriptor("title")], fetchLimit: 2, fetchOffset: 1)
            query.variables = [:]
            let answered = try store.project(query, properties: [ProjectedProperty("title"), .first("tasks.summary", as: "firstTask")])
            #expect(answered?.map { [$0.string("title"), $0.string("firstTask")] } == rows.map { [$0.string("title"), $0.string("firstTask")] }, "\(kind)")
        }
        #expect(rows.first?.string("firstMember") == nil && rows.first?.string("leader") == nil, "\(kind): no members, no lead")
    }

    /// A typed projection into a value type of one's own, across isolation; a key path through a
    /// to-many relationship without `.first` is an error, on every store.
    @Test(arguments: availableKinds)
    func typedRowsCrossIsolationAndAToManyKeyPathNeedsFirst(_ kind: StoreKind) async throws {
        struct Line: Sendable, Hashable { var title: String; var members: String? }
        let container = try staffed(kind)
        let lines = try await container.performBackgroundTask { context in
            let fetch = FetchRequest<ManagedObject>(entityName: "Project", sortDescriptors: [SortDescriptor("budget", ascending: false)])
            let request = TypedProjectionRequest(ProjectionRequest(fetch, properties: [ProjectedProperty("title"),
                                                                                       .first("members.name", by: [SortDescriptor("name", ascending: false)])])) {
                Line(title: $0.string("title") ?? "", members: $0.string("members.name"))
            }
            return try context.fetch(request)
        }
        #expect(lines == [Line(title: "Mill", members: "Bea"), Line(title: "Idle", members: nil), Line(title: "Engine", members: "Cy"),
                          Line(title: "Loom", members: "Cy")], "\(kind)")
        let context = container.newContext()
        #expect(throws: RuntimeError.self, "\(kind)") {
            try context.fetch(ProjectionRequest(FetchRequest<ManagedObject>(entityName: "Project"), properties: [ProjectedProperty("members.name")]))
        }
    }

    /// Live projection rows follow their context's saves: a changed value of a related record (a
    /// lead's name) updates the rows that show it, a new record is inserted in order, a deleted one
    /// removed; a change of an entity the projection does not read leaves the rows as they are.
    @MainActor @Test(arguments: availableKinds)
    func liveProjectionRowsFollowSaves(_ kind: StoreKind) throws {
        let container = try staffed(kind)
        let context = container.mainContext
        let fetch = FetchRequest<ManagedObject>(entityName: "Project", sortDescriptors: [SortDescriptor("title")])
        let live = try LiveProjection(ProjectionRequest(fetch, properties: [ProjectedProperty("title"), ProjectedProperty("lead.name", as: "lead")]),
                                      in: context)
        #expect(live.rows.map { $0.string("title") } == ["Engine", "Idle", "Loom", "Mill"], "\(kind)")
        #expect(live.rows.map { $0.string("lead") } == ["Cy", nil, "Bea", "Bea"], "\(kind)")

        let bea = try #require(try context.fetch(try FetchRequest<ManagedObject>(entityName: "Employee", predicate: "name == 'Bea'")).first)
        try bea.setValue("Beatrice", forKey: "name")
        try context.save()
        #expect(live.rows.map { $0.string("lead") } == ["Cy", nil, "Beatrice", "Beatrice"], "\(kind)")
        #expect(live.lastDifference.updated == [2, 3] && live.lastDifference.inserted.isEmpty, "\(kind): \(live.lastDifference)")

        _ = try context.make("Project", ["title": "Forge", "lead": bea])
        let idle = try #require(try context.fetch(try FetchRequest<ManagedObject>(entityName: "Project", predicate: "title == 'Idle'")).first)
        context.delete(idle)
        try context.save()
        #expect(live.rows.map { $0.string("title") } == ["Engine", "Forge", "Loom", "Mill"], "\(kind)")
        #expect(live.lastDifference.inserted == [1] && live.lastDifference.removed == [1], "\(kind): \(live.lastDifference)")

        let before = live.lastDifference
        _ = try context.make("Sample", ["text": "unrelated"])
        try context.save()
        #expect(live.lastDifference == before && live.rows.count == 4, "\(kind)")
    }
}
