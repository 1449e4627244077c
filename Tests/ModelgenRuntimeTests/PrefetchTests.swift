import CSQLite
import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// Loading a list costs a constant number of queries per relationship (issue 41): a fetch reads the
/// results' to-many relationships with one query per relationship for all of them, and
/// `relationshipKeyPathsForPrefetching` loads related objects with one query per step of each path,
/// whatever the number of results. Counted with SQLite's statement trace (queries only).
@Suite struct PrefetchTests {
    /// A SQLite store of `posts` posts, `postsPerAuthor` by each author, each post with two of three
    /// tags and one comment; and the counter of the statements its connections run.
    func blog(posts: Int, postsPerAuthor: Int = 5) throws -> (ManagedContainer, StatementCounter, URL) {
        let url = scratchDirectory.appendingPathComponent("prefetch-\(UUID().uuidString).sqlite")
        let counter = StatementCounter()
        var configuration = SQLiteConfiguration()
        configuration.statementCounter = counter
        let container = ManagedContainer(model: BlogModel.model, store: try SQLiteStore(url: url, model: BlogModel.model, configuration: configuration))
        let context = container.newContext(observation: .unobserved)
        let tags = ["a", "b", "c"].map { Tag(context: context, name: $0) }
        let reader = Reader(context: context)
        reader.firstName = "Rea"; reader.lastName = "Der"; reader.email = "reader@example.com"; reader.createdAt = Date()
        var authors: [Author] = []
        for index in 0..<posts {
            if index % postsPerAuthor == 0 { authors.append(makeAuthor(context, "Author\(index)")) }
            let post = Post(context: context, title: "Post \(index)", author: authors[authors.count - 1])
            post.addToTags(tags[index % 3])
            post.addToTags(tags[(index + 1) % 3])
            let comment = Comment(context: context)
            comment.text = "on \(index)"
            comment.postedAt = Date()
            comment.post = post
            comment.reader = reader
        }
        try context.save()
        return (container, counter, url)
    }

    /// Statements run by `body` in a new context.
    func statements(_ container: ManagedContainer, _ counter: StatementCounter, _ body: (ManagedObjectContext) throws -> Void) rethrows -> Int {
        let context = container.newContext(observation: .unobserved)
        let before = counter.count
        try body(context)
        return counter.count - before
    }

    @Test func aFetchReadsToManyRelationshipsWithOneQueryEachWhateverTheNumberOfResults() throws {
        var counts: [Int] = []
        for size in [20, 200] {
            let (container, counter, url) = try blog(posts: size)
            defer { try? FileManager.default.removeItem(at: url) }
            counts.append(try statements(container, counter) { context in
                let posts = try context.fetch(FetchRequest<Post>(entityName: "Post"))
                #expect(posts.count == size)
                #expect(posts.allSatisfy { $0.tags.count == 2 && $0.comments.count == 1 })
            })
        }
        #expect(counts[0] == counts[1], "statements for 20 and 200 posts: \(counts)")
        #expect(counts[0] == 3, "the fetch, and one query per to-many relationship (tags, comments): \(counts)")
    }

    @Test func prefetchingLoadsRelatedObjectsWithOneQueryPerStep() throws {
        var prefetched: [Int] = [], faulting: [Int] = []
        for size in [20, 200] {
            let (container, counter, url) = try blog(posts: size)
            defer { try? FileManager.default.removeItem(at: url) }
            var request = FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("title")])
            request.relationshipKeyPathsForPrefetching = ["author", "tags", "comments.reader"]
            prefetched.append(try statements(container, counter) { context in
                let posts = try context.fetch(request)
                let before = counter.count
                // Everything the paths name is loaded: reading it runs no statement.
                let names = posts.map { "\($0.author?.lastName ?? "") \($0.tags.map(\.name).sorted()) \($0.comments.first?.reader?.firstName ?? "")" }
                #expect(counter.count == before, "reading prefetched objects ran statements")
                #expect(names.count == size && names.allSatisfy { $0.hasSuffix(" Rea") })
            })
            // The same reads without prefetching fire a fault per author: the count grows with the list.
            request.relationshipKeyPathsForPrefetching = []
            faulting.append(try statements(container, counter) { context in
                _ = try context.fetch(request).map { $0.author?.lastName }
            })
        }
        #expect(prefetched[0] == prefetched[1], "statements with prefetching for 20 and 200 posts: \(prefetched)")
        #expect(faulting[1] > faulting[0] + 20, "without prefetching: \(faulting)")
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func prefetchingGivesTheSameObjectsOnEveryStore(_ kind: String) throws {
        let url = scratchDirectory.appendingPathComponent("prefetch-same-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ManagedContainer(model: BlogModel.model, store: kind == "sqlite" ? .sqlite(url) : .inMemory)
        let setup = container.newContext()
        let ada = makeAuthor(setup, "Ada")
        for title in ["One", "Two"] { Post(context: setup, title: title, author: ada).addToTags(Tag(context: setup, name: title.lowercased())) }
        try setup.save()
        let context = container.newContext()
        var request = FetchRequest<Author>(entityName: "Author")
        request.relationshipKeyPathsForPrefetching = ["posts.tags"]
        let authors = try context.fetch(request)
        #expect(authors.flatMap { $0.posts.flatMap { $0.tags.map(\.name) } }.sorted() == ["one", "two"])
        request.relationshipKeyPathsForPrefetching = ["posts.nothing"]
        #expect(throws: RuntimeError.self) { try context.fetch(request) }
    }

    /// A prefetch reads only what is still a fault (an object already loaded keeps its unsaved change),
    /// with one query for the rest, and a related record another container deleted meanwhile is named.
    @Test func prefetchingReadsOnlyFaultsAndNamesARecordThatIsGone() throws {
        let (container, counter, url) = try blog(posts: 30, postsPerAuthor: 5)
        defer { try? FileManager.default.removeItem(at: url) }
        let context = container.newContext(observation: .unobserved)
        let loaded = try #require(try context.fetch(try FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Author5'")).first)
        loaded.lastName = "Changed"
        let posts = try context.fetch(FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("title")]))
        #expect(posts.compactMap(\.author).filter(\.isFault).count == 25)
        let before = counter.count
        try context.prefetch(["author"], from: posts)
        #expect(counter.count - before == 1, "one query for the five authors still faults")
        #expect(posts.allSatisfy { $0.author?.isFault == false })
        #expect(Set(posts.compactMap { $0.author?.lastName }) == ["Author0", "Changed", "Author10", "Author15", "Author20", "Author25"])
        #expect(loaded.hasChanges)

        // Another context deletes an author whose fault an earlier context still holds.
        let early = container.newContext(observation: .unobserved)
        let earlyPosts = try early.fetch(FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("title")]))
        let other = container.newContext()
        let doomed = try #require(try other.fetch(try FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Author25'")).first)
        let doomedID = doomed.objectID
        other.delete(doomed)
        try other.save()
        #expect(throws: RuntimeError.objectNotFound(doomedID)) { try early.prefetch(["author"], from: earlyPosts) }
        // The other authors were loaded all the same.
        #expect(earlyPosts.compactMap(\.author).filter { !$0.isFault }.count == 25)
    }
    /// On SQLite a to-many step reads the members with their owners' keys in one statement: kept by
    /// its inverse, from the members' table; in a join table, its links joined to the members' rows (a
    /// tag shared by many posts is decoded once). A member already loaded keeps its unsaved change
    /// either way; a member whose record is gone (a link left dangling) is named, as a fault that
    /// cannot load.
    @Test func aToManyStepReadsItsMembersInOneStatement() throws {
        let (container, counter, url) = try blog(posts: 40)
        defer { try? FileManager.default.removeItem(at: url) }
        let context = container.newContext(observation: .unobserved)
        let changed = try #require(try context.fetch(try FetchRequest<Tag>(entityName: "Tag", predicate: "name == 'b'")).first)
        changed.name = "bee"
        let edited = try #require(try context.fetch(try FetchRequest<Comment>(entityName: "Comment", predicate: "text == 'on 7'")).first)
        edited.text = "edited"
        let posts = try context.fetch(FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("title")]))
        var before = counter.count
        try context.prefetch(["tags"], from: posts)
        #expect(counter.count - before == 1, "the links joined to the tags' rows")
        #expect(posts.allSatisfy { $0.tags.count == 2 && $0.tags.allSatisfy { !$0.isFault } })
        #expect(Set(posts.flatMap { $0.tags.map(\.name) }) == ["a", "bee", "c"])
        #expect(changed.hasChanges && changed.name == "bee")
        before = counter.count
        try context.prefetch(["comments"], from: posts)
        #expect(counter.count - before == 1, "the comments (kept by their inverse) with their posts' keys in one statement")
        #expect(posts.allSatisfy { post in
            post.comments.count == 1 && post.comments.allSatisfy { !$0.isFault && $0.text == ($0 === edited ? "edited" : "on \(post.title.dropFirst(5))") }
        })
        #expect(edited.hasChanges && posts.contains { $0.comments.contains(edited) })
        #expect(counter.count - before == 1, "reading what was prefetched ran statements")

        // A link whose record is gone (written around the store): the prefetch names it.
        let tagC = try #require(try context.fetch(try FetchRequest<Tag>(entityName: "Tag", predicate: "name == 'c'")).first).objectID
        var raw: OpaquePointer?
        #expect(sqlite3_open(url.path, &raw) == SQLITE_OK)
        #expect(sqlite3_exec(raw, "DELETE FROM \"Tag\" WHERE \"Z_PK\" = \(tagC.key)", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(raw)
        let fresh = container.newContext(observation: .unobserved)
        let freshPosts = try fresh.fetch(FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("title")]))
        #expect(throws: RuntimeError.objectNotFound(tagC)) { try fresh.prefetch(["tags"], from: freshPosts) }
        #expect(freshPosts.flatMap(\.tags).filter { !$0.isFault }.count == 80 - freshPosts.filter { $0.tags.contains { $0.objectID == tagC } }.count)
    }
}
