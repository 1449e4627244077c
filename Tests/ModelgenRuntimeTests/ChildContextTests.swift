import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// Child contexts (Core Data's parent contexts) on the in-memory and SQLite stores: a child reads its
/// parent's unsaved state, its save lands in the parent and never in the store, dropping it leaves the
/// parent as it was, validation, uniqueness and delete rules hold, children nest, and a background child
/// of the main context pushes into it. (The PostgreSQL store: ModelgenPostgresTests.)
@Suite struct ChildContextTests {
    static let stores = ["in-memory", "sqlite"]

    /// A container on `kind` with a saved author "Lovelace" and her post "First" (10 likes).
    func blog(_ kind: String) throws -> (ManagedContainer, ManagedObjectContext, URL?) {
        let url = kind == "sqlite" ? scratchDirectory.appendingPathComponent("child-\(UUID().uuidString).sqlite") : nil
        let container = try ManagedContainer(model: BlogModel.model, store: url.map(StoreDescription.sqlite) ?? .inMemory)
        let context = container.newContext()
        let author = makeAuthor(context)
        let post = Post(context: context, title: "First", author: author)
        post.likes = 10
        try context.save()
        return (container, context, url)
    }

    func storeCount<T: ManagedObject>(_ container: ManagedContainer, _ type: T.Type, _ predicate: String? = nil) throws -> Int {
        let reader = container.newContext()
        var request = FetchRequest<T>(entityName: "\(T.self)")
        if let predicate { request.predicate = try FetchPredicate(predicate) }
        return try reader.count(for: request)
    }

    @Test(arguments: stores)
    func aChildSeesItsParentsUnsavedChangesAndSavesIntoItNotTheStore(_ kind: String) throws {
        let (container, parent, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let author = try #require(try parent.fetch(FetchRequest<Author>(entityName: "Author")).first)
        author.lastName = "Unsaved"
        let draft = Post(context: parent, title: "Draft", author: author)

        let child = parent.newChildContext()
        #expect(child.parent === parent)
        let childAuthor = try child.existingObject(with: author.objectID, as: Author.self)
        #expect(childAuthor !== author)
        #expect(childAuthor.lastName == "Unsaved")   // (its fixture sets bio when fetched)
        #expect(Set(childAuthor.posts.map(\.title)) == ["First", "Draft"])
        // Fetches see the parent's unsaved insert, and run the predicate on it.
        #expect(try child.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "title == 'Draft'")).map(\.objectID) == [draft.objectID])
        #expect(try child.count(for: FetchRequest<Post>(entityName: "Post")) == 2)
        // Variables reach the parent's fetch as values: an object (by its ID) and a list for IN.
        let byAuthor = try FetchRequest<Post>(entityName: "Post", predicate: "author == $A AND title IN $T",
                                              variables: ["A": childAuthor, "T": ["First", "Draft", "Other"]])
        #expect(Set(try child.fetch(byAuthor).map(\.title)) == ["First", "Draft"])
        #expect(try child.count(for: byAuthor) == 2)

        childAuthor.rating = 4
        let childPost = Post(context: child, title: "From the child", author: childAuthor)
        try child.save()
        #expect(!child.hasChanges)
        // In the parent, as its own unsaved changes; the store has none of it.
        #expect(author.rating == 4)
        #expect(author.lastName == "Unsaved")
        let pushed = try #require(parent.registeredObjects.first { $0.objectID == childPost.objectID } as? Post)
        #expect(pushed.isInserted && pushed.title == "From the child" && pushed.author === author)
        #expect(author.posts.contains(pushed))
        #expect(try storeCount(container, Post.self) == 1)
        #expect(try storeCount(container, Author.self, "rating == 4") == 0)
        // The parent's save writes it all.
        try parent.save()
        #expect(try storeCount(container, Post.self) == 3)
        #expect(try storeCount(container, Author.self, "rating == 4 AND lastName == 'Unsaved'") == 1)
    }

    @Test(arguments: stores)
    func droppingOrRollingBackAChildLeavesTheParentAsItWas(_ kind: String) throws {
        let (_, parent, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let post = try #require(try parent.fetch(FetchRequest<Post>(entityName: "Post")).first)
        do {
            let child = parent.newChildContext()
            let edited = try child.existingObject(with: post.objectID, as: Post.self)
            edited.title = "Thrown away"
            child.delete(edited.author!)
            _ = Tag(context: child, name: "unsaved")
        }   // the child is dropped
        let child = parent.newChildContext()
        try child.existingObject(with: post.objectID, as: Post.self).title = "Rolled back"
        child.rollback()
        try child.save()
        #expect(post.title == "First")
        #expect(!parent.hasChanges)
        #expect(try parent.count(for: FetchRequest<Tag>(entityName: "Tag")) == 0)
    }

    /// The child's save is validated as a store save is, and a refused save changes neither the
    /// child's objects' state nor the parent.
    @Test(arguments: stores)
    func aChildsSaveIsValidatedWithUniquenessAgainstTheParentAndDenyRules(_ kind: String) throws {
        let (_, parent, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        // The parent holds an unsaved author whose email a child's new author repeats.
        _ = makeAuthor(parent, "Hopper", email: "grace@example.com")
        let child = parent.newChildContext()
        let copy = makeAuthor(child, "Copy", email: "grace@example.com")
        copy.rating = 9
        #expect {
            try child.save()
        } throws: { error in
            let keys = Set((error as? ValidationError)?.failures.compactMap(\.key) ?? [])
            return keys == ["email", "rating"]
        }
        #expect(try parent.count(for: FetchRequest<Author>(entityName: "Author")) == 2)
        copy.email = "copy@example.com"
        copy.rating = 3
        try child.save()
        #expect(try parent.count(for: FetchRequest<Author>(entityName: "Author")) == 3)

        // Deny: a tag with posts cannot be deleted, in the child as in a store save.
        let post = try #require(try child.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "title == 'First'")).first)
        let tag = Tag(context: child, name: "kept")
        post.addToTags(tag)
        try child.save()
        child.delete(tag)
        #expect(throws: ValidationError.self) { try child.save() }
        child.rollback()
        #expect(try parent.count(for: FetchRequest<Tag>(entityName: "Tag")) == 1)
    }

    @Test(arguments: stores)
    func deletesAndCascadesReachTheParentAndOnlyChangedPropertiesAreWritten(_ kind: String) throws {
        let (container, parent, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let author = try #require(try parent.fetch(FetchRequest<Author>(entityName: "Author")).first)
        let child = parent.newChildContext()
        let childAuthor = try child.existingObject(with: author.objectID, as: Author.self)
        childAuthor.rating = 2
        // The parent changes another property after the child read the author: both edits stay.
        author.lastName = "Edited"
        try child.save()
        #expect(author.rating == 2 && author.lastName == "Edited")

        // A delete cascades (posts) in the child and in the parent alike; the store keeps all until the parent saves.
        child.delete(childAuthor)
        try child.save()
        #expect(author.isDeleted)
        #expect(try parent.count(for: FetchRequest<Post>(entityName: "Post")) == 0)
        #expect(try storeCount(container, Post.self) == 1)
        try parent.save()
        #expect(try storeCount(container, Post.self) == 0)
        #expect(try storeCount(container, Author.self) == 0)
    }

    @Test(arguments: stores)
    func childrenNestAndAGrandchildsSaveStopsAtItsParent(_ kind: String) throws {
        let (container, root, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let child = root.newChildContext()
        let grandchild = child.newChildContext()
        let author = try #require(try grandchild.fetch(FetchRequest<Author>(entityName: "Author")).first)
        let tag = Tag(context: grandchild, name: "nested")
        let post = Post(context: grandchild, title: "Deep", author: author)
        post.addToTags(tag)
        try grandchild.save()
        #expect(try child.count(for: FetchRequest<Post>(entityName: "Post")) == 2)
        #expect(try root.count(for: FetchRequest<Post>(entityName: "Post")) == 1)
        try child.save()
        #expect(try root.count(for: FetchRequest<Post>(entityName: "Post")) == 2)
        let deep = try #require(try root.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "title == 'Deep'")).first)
        #expect(deep.tags.map(\.name) == ["nested"])
        try root.save()
        #expect(try storeCount(container, Post.self, "ANY tags.name == 'nested'") == 1)

        // The grandchild's objects keep the temporary IDs the root has since replaced: it goes on editing them.
        #expect(post.objectID.isTemporaryID)
        post.title = "Deeper"
        try grandchild.save()
        try child.save()
        try root.save()
        #expect(try storeCount(container, Post.self, "title == 'Deeper'") == 1)
    }

    /// A child's save reaches the parent's live results at once, and the parent's save then reaches
    /// the store; a child edit thrown away never shows.
    @Test(arguments: stores)
    func theParentsLiveResultsHearOfAChildsSave(_ kind: String) throws {
        let (_, parent, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let popular = try LiveResults(try FetchRequest<Post>(entityName: "Post", predicate: "likes >= 5", sortDescriptors: [SortDescriptor("title")]), in: parent)
        #expect(popular.objects.map(\.title) == ["First"])
        let post = popular.objects[0]
        do {
            let cancelled = parent.newChildContext()
            try cancelled.existingObject(with: post.objectID, as: Post.self).likes = 0
        }
        #expect(popular.objects.map(\.title) == ["First"])
        let child = parent.newChildContext()
        let author = try child.existingObject(with: post.author!.objectID, as: Author.self)
        Post(context: child, title: "Another", author: author).likes = 7
        try child.existingObject(with: post.objectID, as: Post.self).likes = 1
        try child.save()
        #expect(popular.objects.map(\.title) == ["Another"])
        #expect(!popular.lastDifference.isEmpty)
        try parent.save()
        #expect(popular.objects.map(\.title) == ["Another"])
    }

    /// A child's save names a record the parent has deleted since: refused, nothing applied.
    @Test(arguments: stores)
    func aSaveNamingARecordDeletedMeanwhileChangesNothing(_ kind: String) throws {
        let (_, parent, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let post = try #require(try parent.fetch(FetchRequest<Post>(entityName: "Post")).first)
        let child = parent.newChildContext()
        let childPost = try child.existingObject(with: post.objectID, as: Post.self)
        childPost.title = "Edited"
        let tag = Tag(context: child, name: "orphan")
        childPost.addToTags(tag)
        parent.delete(post)
        #expect(throws: RuntimeError.objectNotFound(post.objectID)) { try child.save() }
        #expect(child.hasChanges)
        #expect(try parent.count(for: FetchRequest<Tag>(entityName: "Tag")) == 0)
    }

    /// The parent holds a record as a fault; another context deletes it from the store; a child that
    /// loaded it before links to it: the save is refused, nothing applied (no fault fires on a gone record).
    @Test(arguments: stores)
    func aSaveLinkingToARecordGoneFromTheStoreChangesNothing(_ kind: String) throws {
        let (container, parent, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let setup = container.newContext()
        let tag = Tag(context: setup, name: "soon gone")
        try setup.save()
        let post = try #require(try parent.fetch(FetchRequest<Post>(entityName: "Post")).first)
        let fault = parent.object(with: tag.objectID)
        #expect(fault.isFault)
        let child = parent.newChildContext()
        let childTag = try child.existingObject(with: tag.objectID, as: Tag.self)
        setup.delete(tag)
        try setup.save()
        try child.existingObject(with: post.objectID, as: Post.self).addToTags(childTag)
        #expect(throws: RuntimeError.objectNotFound(tag.objectID)) { try child.save() }
        #expect(post.tags.isEmpty && !parent.hasChanges)
    }

    /// A background child of the main context: its reads and its save enter the main actor, its save
    /// has reached the main context when `performChildTask` returns, and the store is untouched.
    @MainActor @Test(arguments: stores)
    func aBackgroundChildOfTheMainContextSavesIntoIt(_ kind: String) async throws {
        let (container, _, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let main = container.mainContext
        let author = try #require(try main.fetch(FetchRequest<Author>(entityName: "Author")).first)
        author.lastName = "Main"
        let authorID = author.objectID
        let (seen, newID) = try await main.performChildTask { child in
            let childAuthor = try child.existingObject(with: authorID, as: Author.self)
            let seen = childAuthor.lastName
            var titles: [String] = []
            for index in 0..<50 { titles.append("Post \(index)") }
            let posts = titles.map { Post(context: child, title: $0, author: childAuthor) }
            childAuthor.rating = 5
            try child.save()
            return (seen, posts[0].objectID)
        }
        #expect(seen == "Main")
        #expect(author.rating == 5)
        #expect(author.posts.count == 51)
        #expect(main.registeredObjects.contains { $0.objectID == newID && $0.isInserted })
        #expect(try storeCount(container, Post.self) == 1)
        try main.save()
        #expect(try storeCount(container, Post.self) == 51)
    }

    /// Temporary IDs of children never collide, with each other or with their parent's.
    @Test func siblingChildrenAndTheirParentInsertUnderDistinctIDs() throws {
        let (_, parent) = try makeContext()
        let a = parent.newChildContext(), b = parent.newChildContext()
        let fromParent = Tag(context: parent, name: "p")
        let fromA = Tag(context: a, name: "a"), fromB = Tag(context: b, name: "b")
        #expect(Set([fromParent.objectID, fromA.objectID, fromB.objectID]).count == 3)
        try a.save()
        try b.save()
        #expect(Set(try parent.fetch(FetchRequest<Tag>(entityName: "Tag")).map(\.name)) == ["p", "a", "b"])
        try parent.save()
        #expect(try parent.count(for: FetchRequest<Tag>(entityName: "Tag")) == 3)
    }
}
