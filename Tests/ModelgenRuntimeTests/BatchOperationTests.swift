import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// Batch deletes, updates and inserts (issue 41) on the in-memory and SQLite stores: delete rules as a
/// save applies them, values checked, uniqueness refused, the change set merged and published (live
/// results of the main context, the store's history). PostgreSQL: ModelgenPostgresTests.
@Suite struct BatchOperationTests {
    static let stores = ["in-memory", "sqlite"]

    /// Three authors (Ada, Bea, Cy) with two posts each; every post tagged "swift", with one comment
    /// by one reader.
    func blog(_ kind: String) throws -> (ManagedContainer, URL?) {
        let url = kind == "sqlite" ? scratchDirectory.appendingPathComponent("batch-\(UUID().uuidString).sqlite") : nil
        let container = try ManagedContainer(model: BlogModel.model, store: url.map(StoreDescription.sqlite) ?? .inMemory)
        let context = container.newContext()
        let swift = Tag(context: context, name: "swift")
        let reader = Reader(context: context)
        reader.firstName = "Rea"; reader.lastName = "Der"; reader.email = "reader@example.com"; reader.createdAt = Date()
        for name in ["Ada", "Bea", "Cy"] {
            let author = makeAuthor(context, name)
            for index in 1...2 {
                let post = Post(context: context, title: "\(name) \(index)", author: author)
                post.likes = Int64(index * 10)
                post.addToTags(swift)
                let comment = Comment(context: context)
                comment.text = "on \(name) \(index)"
                comment.postedAt = Date()
                comment.post = post
                comment.reader = reader
            }
        }
        try context.save()
        return (container, url)
    }

    func count(_ container: ManagedContainer, _ entity: String, _ predicate: String = "TRUEPREDICATE") throws -> Int {
        let reader = container.newContext()
        return try reader.count(for: try FetchRequest<ManagedObject>(entityName: entity, predicate: predicate))
    }

    @Test(arguments: stores)
    func aBatchDeleteAppliesCascadeAndNullifyAndIsPublished(_ kind: String) throws {
        let (container, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let context = container.newContext()
        let held = try #require(try context.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "title == 'Ada 1'")).first)
        let changes = try context.batchDelete(try FetchRequest<Author>(entityName: "Author", predicate: "lastName IN {'Ada', 'Bea'}"))
        // Two authors, their four posts (cascade) and the posts' four comments (cascade) are gone.
        #expect(changes.deleted.count == 10)
        #expect(try count(container, "Author") == 1 && count(container, "Post") == 2 && count(container, "Comment") == 2)
        // Nullify: the tag and the reader no longer list what was deleted (both sides agree).
        let check = container.newContext()
        let swift = try #require(try check.fetch(FetchRequest<Tag>(entityName: "Tag")).first)
        #expect(Set(swift.posts.map(\.title)) == ["Cy 1", "Cy 2"])
        let reader = try #require(try check.fetch(FetchRequest<Reader>(entityName: "Reader")).first)
        #expect(reader.comments.count == 2)
        #expect(Set(changes.updated.keys) == [swift.objectID, reader.objectID])
        // The batching context let go of the deleted post it held.
        #expect(held.managedObjectContext == nil)
    }

    @Test(arguments: stores)
    func aDenyRuleRefusesTheWholeBatch(_ kind: String) throws {
        let (container, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let context = container.newContext()
        _ = Tag(context: context, name: "unused")
        try context.save()
        #expect {
            try context.batchDelete(FetchRequest<Tag>(entityName: "Tag"))
        } throws: { error in
            let failures = (error as? ValidationError)?.failures ?? []
            return failures.count == 1 && failures[0].key == "posts" && failures[0].message.hasPrefix("delete denied: still related to Post/p")
        }
        #expect(try count(container, "Tag") == 2)
        // Deleting the posts too in one batch is allowed only with the tag's posts gone first.
        try context.batchDelete(FetchRequest<Post>(entityName: "Post"))
        try context.batchDelete(FetchRequest<Tag>(entityName: "Tag"))
        #expect(try count(container, "Tag") == 0 && count(container, "Comment") == 0)
    }

    @MainActor @Test(arguments: stores)
    func theMainContextAndItsLiveResultsHearOfABatch(_ kind: String) async throws {
        let (container, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let main = container.mainContext
        let popular = try LiveResults(try FetchRequest<Post>(entityName: "Post", predicate: "likes >= 15", sortDescriptors: [SortDescriptor("title")]), in: main)
        #expect(popular.objects.map(\.title) == ["Ada 2", "Bea 2", "Cy 2"])
        let shown = popular.objects[0]
        try await container.performBackgroundTask { context in
            try context.batchUpdate(try FetchRequest<Post>(entityName: "Post", predicate: "title BEGINSWITH 'Bea'"), set: ["likes": 99])
            try context.batchDelete(try FetchRequest<Post>(entityName: "Post", predicate: "title == 'Ada 2'"))
        }
        var current: [String] = []
        for _ in 0..<200 {
            current = popular.objects.map(\.title)
            if current == ["Bea 1", "Bea 2", "Cy 2"] { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(current == ["Bea 1", "Bea 2", "Cy 2"])
        #expect(popular.objects.first?.likes == 99)
        #expect(shown.managedObjectContext == nil)   // the deleted post left the main context
        if kind == "sqlite" {
            let history = try container.history()
            #expect(history.suffix(2).map { ($0.changes.updated.count, $0.changes.deleted.count) }.map { "\($0)/\($1)" } == ["2/0", "3/2"])   // the delete also updated the author, the tag and the reader
        }
    }

    @Test(arguments: stores)
    func aBatchUpdateChecksItsValuesAndUniqueness(_ kind: String) throws {
        let (container, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let context = container.newContext()
        let post = try #require(try context.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "title == 'Cy 1'")).first)
        #expect(post.likes == 10)
        let changes = try context.batchUpdate(try FetchRequest<Post>(entityName: "Post", predicate: "likes < 15"), set: ["likes": 1, "body": "short"])
        #expect(changes.updated.count == 3 && changes.updated.values.allSatisfy { $0 == ["likes", "body"] })
        #expect(post.likes == 1 && post.body == "short")   // the context's own objects show the new values
        #expect(try count(container, "Post", "likes == 1 AND body == 'short'") == 3)
        #expect(try count(container, "Post", "likes == 20") == 3)   // the others untouched
        #expect {
            try context.batchUpdate(FetchRequest<Post>(entityName: "Post"), set: ["likes": -5, "title": ""])
        } throws: { error in
            Set((error as? ValidationError)?.failures.compactMap(\.key) ?? []) == ["likes", "title"]
        }
        #expect(throws: RuntimeError.self) { try context.batchUpdate(FetchRequest<Post>(entityName: "Post"), set: ["author": nil]) }
        _ = Tag(context: context, name: "other")
        try context.save()
        #expect(throws: ValidationError.self) { try context.batchUpdate(FetchRequest<Tag>(entityName: "Tag"), set: ["name": "same"]) }
        #expect(try count(container, "Tag", "name == 'same'") == 0)
    }

    @Test(arguments: stores)
    func aBatchInsertAppliesDefaultsAndRefusesBadRecords(_ kind: String) throws {
        let (container, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let context = container.newContext()
        let ids = try context.batchInsert(entityName: "Tag", values: (0..<500).map { ["name": "tag \($0)"] })
        #expect(ids.count == 500 && ids.allSatisfy { !$0.isTemporaryID })
        #expect(try count(container, "Tag") == 501)
        let readers = try context.batchInsert(entityName: "Reader", values: [["firstName": "A", "lastName": "B", "email": "a@example.com", "createdAt": Date()]])
        #expect(try context.existingObject(with: readers[0], as: Reader.self).isSubscribed == false)   // the default
        #expect {
            try context.batchInsert(entityName: "Tag", values: [["name": "fine"], ["name": ""], ["name": "x", "nothing": 1]])
        } throws: { error in error is RuntimeError }
        #expect {
            try context.batchInsert(entityName: "Tag", values: [["name": "fine"], ["name": ""]])
        } throws: { error in
            (error as? ValidationError)?.failures.map(\.message) == ["is below the minimum 1 characters (record 1)"]
        }
        #expect(throws: ValidationError.self) { try context.batchInsert(entityName: "Tag", values: [["name": "swift"]]) }   // unique
        #expect(try count(container, "Tag") == 501)
    }
}
