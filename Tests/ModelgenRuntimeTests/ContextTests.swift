import Foundation
import Testing
@_spi(Generated) @testable import ModelgenRuntime

@Suite struct ValidationTests {
    @Test func allFailuresOfASaveComeInOneErrorAndNothingIsWritten() throws {
        let (container, context) = try makeContext()
        let author = makeAuthor(context)
        author.email = "not an email"
        author.rating = 9
        let post = Post(context: context)   // title, body, id and author missing
        post.likes = -1
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? ValidationError else { return false }
            let keys = Set(error.failures.map { "\($0.entityName).\($0.key ?? "")" })
            return keys.isSuperset(of: ["Author.email", "Author.rating", "Post.author", "Post.likes", "Post.title"])
        }
        #expect(try container.newContext().count(for: FetchRequest<Author>(entityName: "Author")) == 0)
        #expect(context.hasChanges)   // the context keeps its changes to fix
    }

    /// Generated final classes skip `validateValue(_:forKey:)` (nothing can override it there), and
    /// their model constraints still hold (the test above: Post's); a class the user writes keeps the
    /// hook (the test below: Author's).
    @Test func onlyClassesThatCanHaveTheHookAreAskedIt() {
        #expect(Post._mayValidateValues == false && Tag._mayValidateValues == false)
        #expect(Author._mayValidateValues && Person._mayValidateValues && ManagedObject._mayValidateValues)
    }

    /// Fetches skip `awakeFromFetch()` of generated final classes (`_awakesFromFetch` false: nothing
    /// can override it there) and still call it on classes the user writes, in one fetch of both.
    @Test func fetchesAwakeOnlyObjectsWhoseClassMayHaveTheHook() throws {
        #expect(Post._awakesFromFetch == false && Reader._awakesFromFetch == false)
        #expect(Author._awakesFromFetch && Person._awakesFromFetch && ManagedObject._awakesFromFetch)
        let (container, context) = try makeContext()
        _ = makeAuthor(context, "Awake")
        let reader = Reader(context: context)
        reader.firstName = "Rea"; reader.lastName = "Der"; reader.email = "r@x.y"; reader.createdAt = Date(timeIntervalSinceReferenceDate: 5)
        try context.save()
        let other = container.newContext()
        let people = try other.fetch(FetchRequest<Person>(entityName: "Person", sortDescriptors: [SortDescriptor("lastName")]))
        #expect(people.map { "\(type(of: $0))" } == ["Author", "Reader"])
        #expect((people[0] as? Author)?.awakeFromFetchCount == 1)
        let authorsOnly = try container.newContext().fetch(FetchRequest<Author>(entityName: "Author"))
        #expect(authorsOnly.map(\.awakeFromFetchCount) == [1])
    }

    @Test func customHooksRunAfterTheModelConstraints() throws {
        let (_, context) = try makeContext()
        let author = makeAuthor(context, "Forbidden")
        #expect {
            try context.save()
        } throws: { error in
            (error as? ValidationError)?.failures.map(\.message) == ["is not allowed"]
        }
        author.lastName = "Fine"
        try context.save()
        author.extraValidationMessage = "custom update rule"
        author.rating = 6   // super (model) fails first: the override's own check does not hide it
        #expect {
            try context.save()
        } throws: { error in
            (error as? ValidationError)?.failures.contains { $0.key == "rating" } ?? false
        }
        author.rating = 2
        #expect {
            try context.save()
        } throws: { error in
            (error as? ValidationError)?.failures.map(\.message) == ["custom update rule"]
        }
    }

    @Test func uniquenessAcrossStoreAndPendingChanges() throws {
        let (_, context) = try makeContext()
        _ = makeAuthor(context, "One", email: "same@example.com")
        try context.save()
        let duplicate = makeAuthor(context, "Two", email: "same@example.com")
        #expect {
            try context.save()
        } throws: { error in
            (error as? ValidationError)?.failures.contains { $0.key == "email" && $0.message.contains("uniqueness") } ?? false
        }
        duplicate.email = "other@example.com"
        try context.save()
    }
}

@Suite struct UndoAndRollbackTests {
    @Test func undoAndRedoAttributeChanges() throws {
        let (_, context) = try makeContext()
        let author = makeAuthor(context)
        try context.save()
        author.rating = 1
        context.endUndoGroup()
        author.rating = 2
        author.bio = "b"
        context.undo()
        #expect(author.rating == 1 && author.bio == nil)
        context.undo()
        #expect(author.rating == 0 && !context.hasChanges)
        context.redo()
        context.redo()
        #expect(author.rating == 2 && author.bio == "b")
        #expect(!context.canRedo)
    }

    @Test func undoOfInsertAndOfDeleteWithRelationships() throws {
        let (_, context) = try makeContext()
        let author = makeAuthor(context)
        let post = Post(context: context, title: "P", author: author)
        try context.save()
        let extra = Post(context: context, title: "Q", author: author)
        context.undo()
        #expect(context.insertedObjects.isEmpty && author.posts == [post])
        context.redo()
        #expect(context.insertedObjects.first === extra && author.posts.count == 2)
        context.undo()
        context.delete(author)   // cascades to the post
        #expect(post.isDeleted)
        context.undo()
        #expect(!author.isDeleted && !post.isDeleted && post.author === author && author.posts == [post])
        #expect(!context.hasChanges)
    }

    @Test func rollbackDropsEveryUnsavedChange() throws {
        let (_, context) = try makeContext()
        let author = makeAuthor(context)
        let post = Post(context: context, title: "P", author: author)
        try context.save()
        author.rating = 5
        post.title = "Changed"
        let newPost = Post(context: context, title: "New", author: author)
        context.delete(post)
        context.rollback()
        #expect(author.rating == 0 && post.title == "P" && !post.isDeleted)
        #expect(author.posts == [post])
        #expect(newPost.managedObjectContext == nil || !context.registeredObjects.contains(newPost))
        #expect(!context.hasChanges)
    }
}

@Suite struct ContextConflictTests {
    @Test func contextsSeeEachOthersSavesAndDetectConflicts() throws {
        let (container, first) = try makeContext()
        let author = makeAuthor(first)
        try first.save()
        let second = container.newContext()
        let copy = try #require(try second.existingObject(with: author.objectID) as? Author)
        copy.rating = 3
        try second.save()
        author.rating = 4
        #expect(throws: MergeConflictError.self) { try first.save() }
        #expect(author.isUpdated)   // the failed save changed nothing
        first.mergePolicy = .overwrite
        try first.save()
        let third = container.newContext()
        #expect((try third.existingObject(with: author.objectID) as? Author)?.rating == 4)
    }

    @Test func storeWinsDropsTheContextsConflictingChanges() throws {
        let (container, first) = try makeContext()
        let author = makeAuthor(first)
        try first.save()
        let second = container.newContext()
        (try second.existingObject(with: author.objectID) as! Author).rating = 3
        try second.save()
        first.mergePolicy = .rollback
        author.rating = 1
        try first.save()
        #expect(author.rating == 3)
    }
}
