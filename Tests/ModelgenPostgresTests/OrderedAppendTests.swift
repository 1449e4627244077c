import Foundation
import ModelgenRuntime
import Testing

/// Two saves appending to one ordered relationship, each read before the other committed, leave
/// their elements in commit order after what the store held: a list read between the two saves stays
/// a prefix of the final list. Found by the history checker (`make history`): the second save put its
/// own order first and moved the first save's element after its own.
@Suite struct OrderedAppendTests {
    func tasks(_ context: ManagedObjectContext, of project: String) throws -> [String] {
        var request = FetchRequest<ManagedObject>(entityName: "Project", predicate: try FetchPredicate("title == $T"))
        request.variables = ["T": project]
        let found = try #require(try context.fetch(request).first)
        return try (found.value(forKey: "tasks") as? [ManagedObject] ?? []).map { try $0.value(forKey: "summary") as! String }
    }

    func project(_ context: ManagedObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(try FetchRequest<ManagedObject>(entityName: "Project", predicate: "title == 'Plan'")).first)
    }

    func task(_ context: ManagedObjectContext, _ summary: String, in project: ManagedObject) throws -> ManagedObject {
        let task = try context.make("Task", ["summary": summary])
        try task.setValue(project, forKey: "project")
        return task
    }

    @Test(arguments: availableKinds)
    func concurrentAppendsKeepCommitOrder(_ kind: StoreKind) throws {
        let (store, _) = try kind.makeStore()
        let container = ManagedContainer(model: semanticsModel, store: store)
        let setup = container.newContext()
        let plan = try setup.make("Project", ["title": "Plan"])
        _ = try task(setup, "first", in: plan)
        try setup.save()

        let one = container.newContext(), two = container.newContext(), front = container.newContext()
        _ = try task(one, "one", in: try project(one))
        _ = try task(two, "two", in: try project(two))
        // A third save puts its element first: the context's order holds where it placed it.
        let head = try project(front)
        _ = try head.value(forKey: "tasks")
        let early = try front.make("Task", ["summary": "zero"])
        var order = try head.value(forKey: "tasks") as? [ManagedObject] ?? []
        order.insert(early, at: 0)
        try head.setValue(order, forKey: "tasks")

        try one.save()
        let between = try tasks(container.newContext(), of: "Plan")
        try two.save()
        try front.save()
        let final = try tasks(container.newContext(), of: "Plan")
        #expect(between == ["first", "one"], "\(kind)")
        #expect(final == ["zero", "first", "one", "two"], "\(kind)")
    }

    /// The merge itself: members another save added stay after the member they follow in the store.
    @Test func aDeltaKeepsOtherSavesMembersWhereTheStoreHasThem() {
        func id(_ key: Int64) -> ObjectID { ObjectID(entityName: "Task", key: key) }
        let stored = [id(1), id(2), id(3), id(4)]           // 3 and 4: added by other saves after this context read [1, 2]
        #expect(ToManyDelta(added: [id(9)], order: [id(1), id(2), id(9)]).applied(to: stored) == [id(1), id(2), id(3), id(4), id(9)])
        #expect(ToManyDelta(added: [id(9)], order: [id(9), id(1), id(2)]).applied(to: stored) == [id(9), id(1), id(2), id(3), id(4)])
        #expect(ToManyDelta(order: [id(2), id(1)]).applied(to: stored) == [id(2), id(1), id(3), id(4)])
        #expect(ToManyDelta(removed: [id(2)], order: [id(1)]).applied(to: stored) == [id(1), id(3), id(4)])
        #expect(ToManyDelta(added: [id(9)], order: [id(9)]).applied(to: [id(5)]) == [id(5), id(9)])
    }
}
