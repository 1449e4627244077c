import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

/// Child contexts on every store kind, PostgreSQL included (the in-memory and SQLite stores are also
/// covered in depth by ModelgenRuntimeTests.ChildContextTests): a child reads its parent's unsaved
/// state through the parent (fetches run in the parent's store, SQL on PostgreSQL), saves into the
/// parent and never into the store; uniqueness and deny rules hold; a cancelled child changes nothing.
@Suite struct ChildContextStoreTests {
    @Test(arguments: availableKinds)
    func aChildSavesIntoItsParentOnEveryStore(_ kind: StoreKind) throws {
        let container = ManagedContainer(model: semanticsModel, store: try kind.makeStore().store)
        let parent = container.newContext()
        let ada = try parent.insertObject(entityName: "Employee")
        try ada.setValue("Ada", forKey: "name")
        try ada.setValue("ada@example.com", forKey: "email")
        let project = try parent.insertObject(entityName: "Project")
        try project.setValue("Engine", forKey: "title")
        try project.setValue(ada, forKey: "lead")
        try parent.save()
        // An unsaved change in the parent, which the child must see.
        try project.setValue("Analytical Engine", forKey: "title")

        /// Counted in a new context each time (one that loaded the records earlier keeps their values).
        func stored(_ entity: String, _ predicate: String) throws -> Int {
            let reader = container.newContext()
            return try reader.count(for: FetchRequest<ManagedObject>(entityName: entity, predicate: predicate))
        }

        // Cancelled: dropped without a save.
        do {
            let cancelled = parent.newChildContext()
            let copy = try cancelled.existingObject(with: project.objectID)
            try copy.setValue("Never", forKey: "title")
        }
        #expect(try project.value(forKey: "title") as? String == "Analytical Engine")

        let child = parent.newChildContext()
        let found = try child.fetch(FetchRequest<ManagedObject>(entityName: "Project", predicate: "title BEGINSWITH 'Analytical'"))
        #expect(found.map(\.objectID) == [project.objectID])
        let childProject = try #require(found.first)
        let task = try child.insertObject(entityName: "Task")
        try task.setValue("Design", forKey: "summary")
        try task.setValue(childProject, forKey: "project")
        // Uniqueness against the parent: a second person with Ada's email is refused in the child.
        let twin = try child.insertObject(entityName: "Customer")
        try twin.setValue("Twin", forKey: "name")
        try twin.setValue("ada@example.com", forKey: "email")
        #expect(throws: ValidationError.self) { try child.save() }
        child.delete(twin)
        // Deny: Ada leads a project, so she cannot be deleted.
        child.delete(try child.existingObject(with: ada.objectID))
        #expect(throws: ValidationError.self) { try child.save() }
        child.rollback()
        let again = try #require(try child.fetch(FetchRequest<ManagedObject>(entityName: "Project")).first)
        let kept = try child.insertObject(entityName: "Task")
        try kept.setValue("Build", forKey: "summary")
        try kept.setValue(again, forKey: "project")
        try child.save()

        #expect((try project.value(forKey: "tasks") as? [ManagedObject])?.count == 1)
        #expect(try stored("Task", "TRUEPREDICATE") == 0)
        #expect(try stored("Project", "title == 'Engine'") == 1)
        try parent.save()
        #expect(try stored("Task", "summary == 'Build' AND project.title == 'Analytical Engine'") == 1)
    }

    /// A child's save changes a to-many relationship in its parent by what the child added and removed:
    /// members it only kept are not written back, so one its parent deleted meanwhile stays deleted and
    /// one another context deleted from the store does not fail the save.
    @Test(arguments: availableKinds)
    func aChildsSaveChangesOnlyTheMembersItAddedOrRemoved(_ kind: StoreKind) throws {
        let container = ManagedContainer(model: lendingModel, store: try kind.makeStore(model: lendingModel).store)
        let parent = container.newContext()
        let book = try parent.make("Book", ["title": "Dune"])
        let loans = try (0..<3).map { try parent.make("Loan", ["returned": Double($0), "book": book]) }
        try parent.save()

        let child = parent.newChildContext()
        let childBook = try child.existingObject(with: book.objectID)
        #expect((try childBook.value(forKey: "loans") as? [ManagedObject])?.count == 3)
        let added = try child.make("Loan", ["book": childBook])
        child.delete(try child.existingObject(with: loans[2].objectID))
        // Meanwhile the parent deletes one loan and another context deletes another from the store.
        parent.delete(loans[0])
        let other = container.newContext()
        other.delete(try other.existingObject(with: loans[1].objectID))
        try other.save()

        try child.save()
        let held = Set(try #require(try book.value(forKey: "loans") as? [ManagedObject]))
        #expect(!held.contains(loans[0]) && !held.contains(loans[2]), "\(kind): \(held.map(\.objectID))")
        #expect(held.map(\.objectID).contains(added.objectID), "\(kind)")
        #expect(loans[0].isDeleted && loans[2].isDeleted, "\(kind)")
        try parent.save()
        let stored = try container.newContext().fetch(FetchRequest<ManagedObject>(entityName: "Loan"))
        #expect(stored.count == 1, "\(kind): \(stored.map(\.objectID))")
    }

    /// A child that reorders an ordered relationship gives its parent that order; members the parent
    /// added meanwhile keep their place after the child's.
    @Test(arguments: availableKinds)
    func aChildsNewOrderKeepsItsParentsNewMembers(_ kind: StoreKind) throws {
        let container = ManagedContainer(model: semanticsModel, store: try kind.makeStore().store)
        let parent = container.newContext()
        let project = try parent.make("Project", ["title": "Loom"])
        let tasks = try ["warp", "weft", "shuttle"].map { try parent.make("Task", ["summary": $0, "project": project]) }
        try parent.save()

        let child = parent.newChildContext()
        let childProject = try child.existingObject(with: project.objectID)
        let childTasks = try #require(try childProject.value(forKey: "tasks") as? [ManagedObject])
        try childProject.setValue([childTasks[2], childTasks[0], childTasks[1]], forKey: "tasks")
        let added = try parent.make("Task", ["summary": "treadle", "project": project])

        try child.save()
        let order = try #require(try project.value(forKey: "tasks") as? [ManagedObject])
        #expect(order.map(\.objectID) == [tasks[2], tasks[0], tasks[1], added].map(\.objectID), "\(kind)")
        try parent.save()
        let reader = container.newContext()
        let stored = try reader.existingObject(with: project.objectID)
        #expect((try stored.value(forKey: "tasks") as? [ManagedObject])?.map(\.objectID) == order.map(\.objectID), "\(kind)")
    }
}
