import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// Saves of several contexts under shared parents (issue 40): adding members to a to-many relationship
/// changes the members' rows (or join rows), never the parent's, so it never conflicts; a save writes
/// only the properties it changed, so it never writes back a value another save changed. On the
/// in-memory and SQLite stores (PostgreSQL: ModelgenPostgresTests.ConcurrentWriterStoreTests).
@Suite struct ConcurrentWritersTests {
    static let stores = ["in-memory", "sqlite"]

    /// A container on `kind` with a saved author "Lovelace", her post "First" and a tag "swift" on it.
    func library(_ kind: String) throws -> (ManagedContainer, URL?) {
        let url = kind == "sqlite" ? scratchDirectory.appendingPathComponent("writers-\(UUID().uuidString).sqlite") : nil
        let container = try ManagedContainer(model: BlogModel.model, store: url.map(StoreDescription.sqlite) ?? .inMemory)
        let context = container.newContext()
        let post = Post(context: context, title: "First", author: makeAuthor(context))
        post.addToTags(Tag(context: context, name: "swift"))
        try context.save()
        return (container, url)
    }

    func author(in context: ManagedObjectContext) throws -> Author {
        try #require(try context.fetch(FetchRequest<Author>(entityName: "Author")).first)
    }

    func tag(in context: ManagedObjectContext) throws -> Tag {
        try #require(try context.fetch(FetchRequest<Tag>(entityName: "Tag")).first)
    }

    /// What a new context reads.
    func stored(_ container: ManagedContainer) throws -> (lastName: String, posts: [String], tagged: Set<String>, rating: Int16) {
        let reader = container.newContext()
        let author = try author(in: reader)
        return (author.lastName, author.posts.map(\.title), Set(try tag(in: reader).posts.map(\.title)), author.rating)
    }

    @Test(arguments: stores)
    func twoContextsAddingPostsToOneAuthorBothSucceedWithTheDefaultPolicy(_ kind: String) throws {
        let (container, url) = try library(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let a = container.newContext(), b = container.newContext()
        #expect(a.mergePolicy == .error)
        let authorA = try author(in: a), authorB = try author(in: b)
        let tagA = try tag(in: a), tagB = try tag(in: b)
        let fromA = Post(context: a, title: "From A", author: authorA)
        fromA.addToTags(tagA)
        let fromB = Post(context: b, title: "From B", author: authorB)
        fromB.addToTags(tagB)
        try a.save()
        try b.save()   // the author's and the tag's to-many sets grew in both: no conflict
        let after = try stored(container)
        #expect(Set(after.posts) == ["First", "From A", "From B"])
        #expect(after.posts.first == "First")
        #expect(after.tagged == ["First", "From A", "From B"])
        // The contexts go on: their objects are not in conflict with anything.
        authorA.rating = 3
        try a.save()
        #expect(try stored(container).rating == 3)
    }

    /// The data loss: a context that read the author, then only added a post under her, saved
    /// after another context renamed her; the rename stays, under every policy.
    @Test(arguments: stores, [MergePolicy.error, .overwrite, .rollback])
    func aSaveThatOnlyAddedChildrenNeverWritesBackTheParentsOldValues(_ kind: String, _ policy: MergePolicy) throws {
        let (container, url) = try library(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let importer = container.newContext()
        importer.mergePolicy = policy
        let stale = try author(in: importer)
        let editor = container.newContext()
        try author(in: editor).lastName = "Renamed"
        try editor.save()
        _ = Post(context: importer, title: "Imported", author: stale)
        try importer.save()
        let after = try stored(container)
        #expect(after.lastName == "Renamed")
        #expect(Set(after.posts) == ["First", "Imported"])
    }

    /// Changed properties are written one by one: two contexts changing different attributes of one
    /// object conflict under `.error` (Core Data's optimistic locking is per object), and with a policy
    /// that lets the save through, the other context's attribute stays as it saved it.
    @Test(arguments: stores)
    func aPolicyThatLetsASaveThroughWritesOnlyTheChangedProperties(_ kind: String) throws {
        let (container, url) = try library(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let first = container.newContext(), second = container.newContext()
        second.mergePolicy = .mergeByPropertyObjectTrump
        let one = try author(in: first), two = try author(in: second)
        one.lastName = "Byron"
        try first.save()
        two.rating = 4
        try second.save()
        let after = try stored(container)
        #expect(after.lastName == "Byron" && after.rating == 4)

        let third = container.newContext()
        try author(in: third).rating = 5
        one.lastName = "King"   // `first` read version 2; the store has 3
        #expect(throws: MergeConflictError.self) { try first.save() }
        _ = third
    }

    /// Adding to a record another context deleted meanwhile is a conflict (the record is gone), not
    /// a row that points nowhere.
    @Test(arguments: stores)
    func addingChildrenToADeletedParentConflicts(_ kind: String) throws {
        let (container, url) = try library(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let adder = container.newContext(), deleter = container.newContext()
        let author = try author(in: adder)
        _ = author.posts   // loaded before the delete
        deleter.delete(try self.author(in: deleter))
        try deleter.save()
        _ = Post(context: adder, title: "Orphan", author: author)
        #expect(throws: MergeConflictError.self) { try adder.save() }
        let reader = container.newContext()
        #expect(try reader.count(for: FetchRequest<Post>(entityName: "Post")) == 0)
    }

    /// Many importers at once under one parent: every post stored, in one author's ordered list, and
    /// every tag link kept.
    @Test(arguments: stores)
    func manyImportersUnderOneParentLoseNothing(_ kind: String) async throws {
        let (container, url) = try library(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for importer in 0..<4 {
                group.addTask {
                    try await container.performBackgroundTask { context in
                        for batch in 0..<5 {
                            let author = try self.author(in: context), tag = try self.tag(in: context)
                            for index in 0..<10 {
                                Post(context: context, title: "I\(importer) B\(batch) P\(index)", author: author).addToTags(tag)
                            }
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let after = try stored(container)
        #expect(after.posts.count == 201)
        #expect(Set(after.posts).count == 201)
        #expect(after.tagged.count == 201)
    }
}

/// Constraints that span rows are checked again inside the committing transaction, so two saves that
/// each kept them on what they read cannot break them together.
@Suite struct ConstraintsSpanningRowsTests {
    @Test(arguments: ConcurrentWritersTests.stores)
    func twoAddsPastAMaximumCountLeaveOneRefused(_ kind: String) throws {
        let (container, url) = try ConcurrentWritersTests().library(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let setup = container.newContext()
        let post = try #require(try setup.fetch(FetchRequest<Post>(entityName: "Post")).first)
        for index in 0..<8 { post.addToTags(Tag(context: setup, name: "t\(index)")) }   // 9 of at most 10
        try setup.save()
        let a = container.newContext(), b = container.newContext()
        let postA = try a.existingObject(with: post.objectID, as: Post.self), postB = try b.existingObject(with: post.objectID, as: Post.self)
        postA.addToTags(Tag(context: a, name: "from a"))
        postB.addToTags(Tag(context: b, name: "from b"))
        try a.save()
        #expect {
            try b.save()
        } throws: { error in
            guard let failure = (error as? ValidationError)?.failures.first else { return false }
            return failure.key == "tags" && failure.message.hasPrefix("has 11 objects, allows at most 10")
        }
        let reader = container.newContext()
        #expect(try reader.existingObject(with: post.objectID, as: Post.self).tags.count == 10)
        #expect(try reader.count(for: try FetchRequest<Tag>(entityName: "Tag", predicate: "name == 'from b'")) == 0)   // nothing of b's save
    }

    @Test(arguments: ConcurrentWritersTests.stores)
    func aDenyRuleHoldsAgainstALinkAddedMeanwhile(_ kind: String) throws {
        let (container, url) = try ConcurrentWritersTests().library(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let setup = container.newContext()
        let unused = Tag(context: setup, name: "unused")
        try setup.save()
        let deleter = container.newContext(), linker = container.newContext()
        let doomed = try deleter.existingObject(with: unused.objectID, as: Tag.self)
        #expect(doomed.posts.isEmpty)
        let post = try #require(try linker.fetch(FetchRequest<Post>(entityName: "Post")).first)
        post.addToTags(try linker.existingObject(with: unused.objectID, as: Tag.self))
        try linker.save()
        deleter.delete(doomed)   // its posts (none, as read) pass the context's deny check
        #expect {
            try deleter.save()
        } throws: { error in
            (error as? ValidationError)?.failures.first?.message.hasPrefix("delete denied: still related to 1 record") ?? false
        }
        let reader = container.newContext()
        #expect(try reader.existingObject(with: unused.objectID, as: Tag.self).posts.count == 1)
    }
}
