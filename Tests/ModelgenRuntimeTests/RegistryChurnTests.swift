import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// The registry (`ObjectRegistry`) through what an app does to it with thousands of objects in a
/// SQLite store: a bulk save (rebuilt under permanent IDs), a smaller save among saved objects
/// (re-keyed one by one), deletes, undo and redo of inserts, a child context's save into its parent,
/// fetches that meet registered objects, a reset, and a bulk save among fetched objects. After each step every object the context
/// holds is the one `object(with:)` answers for its ID, and nothing else is registered.
@Suite struct RegistryChurnTests {
    /// Every registered object is found under its own ID, and exactly `expected` are registered.
    private func expectConsistent(_ context: ManagedObjectContext, _ expected: [ManagedObject], _ step: String) {
        let registered = context.registeredObjects
        #expect(registered.count == expected.count, "\(step): \(registered.count) registered, \(expected.count) expected")
        #expect(Set(registered.map(ObjectIdentifier.init)) == Set(expected.map(ObjectIdentifier.init)), "\(step)")
        for object in expected where context.object(with: object.objectID) !== object {
            Issue.record("\(step): \(object.objectID) finds another object")
        }
    }

    @Test func thousandsOfObjectsStayFoundThroughSavesUndoChildrenAndReset() throws {
        let url = try temporaryDirectory().appendingPathComponent("churn.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
        let context = container.newContext()

        var authors: [ManagedObject] = (0..<3_000).map { makeAuthor(context, "Bulk\($0)") }
        expectConsistent(context, authors, "inserted")
        try context.save()   // most of the registry: rebuilt under the permanent IDs
        #expect(authors.allSatisfy { !$0.objectID.isTemporaryID })
        expectConsistent(context, authors, "bulk save")

        let more = (0..<400).map { makeAuthor(context, "More\($0)") }
        for author in authors[..<200] { context.delete(author) }
        try context.save()   // a few among many: re-keyed one by one, the deleted ones leave
        authors = Array(authors[200...]) + more
        expectConsistent(context, authors, "small save with deletes")

        context.undoGroup { _ = (0..<300).map { makeAuthor(context, "Undone\($0)") } }
        context.undo()
        expectConsistent(context, authors, "undo of inserts")
        context.redo()
        let redone = context.insertedObjects
        #expect(redone.count == 300)
        expectConsistent(context, authors + redone, "redo of inserts")
        try context.save()
        authors += redone

        // A child inserts into its parent; the parent saves them.
        let child = context.newChildContext()
        let fromChild = (0..<500).map { makeAuthor(child, "Child\($0)") }
        try child.save()
        let arrived = context.insertedObjects
        #expect(arrived.count == 500)
        try context.save()
        authors += arrived
        expectConsistent(context, authors, "a child's save")
        expectConsistent(child, fromChild, "the child after its save")

        // A fetch meets every registered object and makes none anew.
        let fetched = try context.fetch(FetchRequest<Author>(entityName: "Author"))
        #expect(fetched.count == authors.count)
        #expect(Set(fetched.map(ObjectIdentifier.init)) == Set(authors.map(ObjectIdentifier.init)))

        context.reset()
        expectConsistent(context, [], "reset")
        let again = try context.fetch(FetchRequest<Author>(entityName: "Author"))
        #expect(again.count == authors.count && Set(again.map(\.objectID)) == Set(authors.map(\.objectID)))
        expectConsistent(context, again, "fetched after reset")

        // More new objects than registered ones: the save rebuilds the registry, carrying the fetched
        // objects over by their keys and adding the new ones under their permanent IDs.
        let bulk = (0..<5_000).map { makeAuthor(context, "Second\($0)") }
        try context.save()
        expectConsistent(context, again + bulk, "a second bulk save among fetched objects")
        #expect(try container.newContext().count(for: FetchRequest<Author>(entityName: "Author")) == again.count + 5_000)
    }
}
