// The Swift blocks of README.md, docs/runtime.md and docs/predicates.md, compiled here (Swift 6 mode,
// warnings as errors) against the Blog example's generated classes, and run by the tests below.
// DocumentationCodeTests (ModelgenCLITests) finds every ```swift block of the README and docs/ in a
// file the tests compile (this one, the concurrency guide's, the generated references, the examples)
// or, for Package.swift fragments, has SwiftPM load them; a block found nowhere fails the test.
import Foundation
import ModelgenRuntime
import Observation
import Synchronization
import Testing
#if canImport(SwiftUI)
import SwiftUI
#else
/// SwiftUI's `View`, where there is no SwiftUI (Linux): enough for the README's view to type-check.
protocol View {
    associatedtype Body
    @MainActor var body: Body { get }
}

/// SwiftUI's `Text`, where there is no SwiftUI (Linux).
struct Text: View {
    let content: String
    init(_ content: String) { self.content = content }
    var body: Never { fatalError("a stand-in for SwiftUI's Text") }
}

/// SwiftUI's `List` over identifiable data, where there is no SwiftUI (Linux): it asks, as SwiftUI's
/// does, that the elements be `Identifiable`.
struct List<Data: RandomAccessCollection, Row: View>: View where Data.Element: Identifiable {
    let data: Data
    let rowContent: (Data.Element) -> Row
    init(_ data: Data, rowContent: @escaping (Data.Element) -> Row) {
        self.data = data
        self.rowContent = rowContent
    }
    var body: [Row] { data.map(rowContent) }
}
#endif

// MARK: README.md

struct PostRow: View {
    let post: Post                                   // no @ObservedObject, no publisher
    var body: some View { Text("\(post.title) · \(post.likes) likes") }
}

struct PostList: View {
    let results: LiveResults<Post>                   // Observable: redraws when the results change
    var body: some View {
        List(results.objects) { post in PostRow(post: post) }   // objects are Identifiable by objectID
    }
}

/// The README's observation example, as it is written there.
@MainActor func watchPosts(of ann: Author) {
    withObservationTracking {
        _ = ann.posts.map(\.title)                        // ann: an Author
    } onChange: {
        print("ann's posts changed")                      // fires for post.author = ann, too
    }
}

/// A flag an observation's change handler sets (it may run on another thread).
final class ChangeFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

// MARK: docs/runtime.md

/// The runtime guide's first example; returns what the test checks.
func runtimeGuideExample() throws -> (popular: [Post], same: Post, post: Post, context: ManagedObjectContext) {
    let container = try ManagedContainer(model: BlogModel.model, store: .inMemory)
    let context = container.newContext()

    let author = Author(context: context)          // inserts; awakeFromInsert runs once
    author.firstName = "Ann"
    author.lastName = "Lee"
    author.email = "ann@example.com"
    let post = Post(context: context, id: UUID(), title: "Hello", body: "…", author: author)
    post.likes = 120                               // inverse kept: author.posts now holds post
    try context.save()                             // validates everything first; all-or-nothing

    let popular = try context.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "likes >= $MIN", variables: ["MIN": 100]))
    let same = try context.existingObject(with: post.objectID, as: Post.self)   // typed look-up by ID
    context.delete(author)                         // cascade / nullify / deny / noAction
    context.undo(); context.redo(); context.rollback()
    return (popular, same, post, context)
}

/// A page of the post list: each title, its author's last name and its first tag by name.
func postLines(_ context: ManagedObjectContext, page: Int) throws -> [String] {
    var fetch = Post.fetchRequest()
    fetch.sortDescriptors = [SortDescriptor("title")]
    fetch.fetchLimit = 50
    fetch.fetchOffset = page * 50
    let rows = try context.fetch(ProjectionRequest(fetch, properties: [
        ProjectedProperty("title"), ProjectedProperty("author.lastName", as: "author"),
        .first("tags.name", by: [SortDescriptor("name")], as: "tag"),
    ]))
    return rows.map { "\($0.string("title") ?? "") by \($0.string("author") ?? "?") \($0.string("tag") ?? "")" }
}

/// Posts to pick from, by title: titles and authors loaded, bodies left in the store until one is read.
func postsToPick(_ context: ManagedObjectContext) throws -> [Post] {
    var request = Post.fetchRequest()
    request.sortDescriptors = [SortDescriptor("title")]
    request.fetchProperties(\.title, \.author)
    return try context.fetch(request)
}

/// Likes per author, most liked first: one query on a SQL store.
func likesPerAuthor(_ context: ManagedObjectContext) throws -> [(author: String, posts: Int64, likes: Int64)] {
    let request = AggregateRequest(FetchRequest(predicate: #Predicate<Post> { $0.likes > 0 }),
                                   groupBy: ["author.lastName"],
                                   columns: [.count(as: "posts"), .sum("likes", as: "likes")],
                                   sortBy: [(key: "likes", ascending: false)])
    return try context.aggregate(request).map { row in
        (row.string("author.lastName") ?? "", row.int("posts") ?? 0, row.int("likes") ?? 0)
    }
}

/// Authors with at least `minimum` likes in all, by typed key paths: groups kept by `having`.
func popularAuthors(_ context: ManagedObjectContext, minimum: Int64) throws -> [ObjectID] {
    var fetch = Post.fetchRequest()
    fetch.variables = ["MIN": minimum]
    let request = AggregateRequest(fetch, groupedBy: [\Post.author],
                                   columns: [.sum(\Post.likes, as: "likes"), .count(as: "posts")],
                                   sortBy: [(key: "likes", ascending: false)],
                                   having: try FetchPredicate("likes >= $MIN"))
    return try context.aggregate(request).compactMap { $0.objectID("author") }
}

/// A list screen: posts with their authors and tags loaded by the fetch (typed key paths).
func postList(_ context: ManagedObjectContext) throws -> [String] {
    var request = FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("title")], fetchLimit: 50)
    request.prefetch(\.author)
    request.prefetch(\.tags)
    return try context.fetch(request).map { "\($0.title) by \($0.author?.lastName ?? "?") \($0.tags.map(\.name).sorted())" }
}

/// Clean-up and bulk edits in the store: each is one save, merged here and published.
func tidy(_ context: ManagedObjectContext, before day: Date) throws -> (deleted: Int, updated: Int, inserted: [ObjectID]) {
    let old = try context.batchDelete(FetchRequest(predicate: #Predicate<Comment> { $0.postedAt < day }))
    let quiet = try context.batchUpdate(FetchRequest(predicate: #Predicate<Post> { $0.likes == 0 }), set: ["status": 2])
    let tags = try context.batchInsert(entityName: "Tag", values: [["name": "archive"], ["name": "2026"]])
    return (old.deleted.count, quiet.updated.count, tags)
}

// MARK: docs/predicates.md

/// The predicate guide's `FUNCTION` example.
func registerDaysSince() {
    PredicateFunctions.register("daysSince:") { receiver, arguments in
        guard let start = arguments.first as? Date else { return nil }
        return Date().timeIntervalSince(start) / 86_400
    }
}

/// The predicate guide's `#Predicate` request.
func typedRequestExample(_ context: ManagedObjectContext) throws -> [Post] {
    let request = FetchRequest(predicate: #Predicate<Post> { $0.likes > 100 && $0.author?.lastName == "Ann" },
                               sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])
    let posts = try context.fetch(request)
    return posts
}

/// The predicate guide's list of calls, each with its typed request written in place.
func typedRequestsInPlace(_ context: ManagedObjectContext) throws
    -> (popular: [Post], howMany: Int, ids: [ObjectID], plan: QueryPlan, batched: [String], live: LiveResults<Post>) {
    let popular = try context.fetch(FetchRequest(predicate: #Predicate<Post> { $0.likes >= 100 }))
    let howMany = try context.count(for: FetchRequest(predicate: #Predicate<Post> { $0.likes >= 100 }))
    let ids = try context.fetchIDs(FetchRequest(predicate: #Predicate<Post> { $0.likes >= 100 }))
    let plan = try context.queryPlan(for: FetchRequest(predicate: #Predicate<Post> { $0.likes >= 100 }))
    var titles: [String] = []
    for post in try context.fetch(FetchRequest(predicate: #Predicate<Post> { $0.likes >= 100 }), batchSize: 500) {
        titles.append(post.title)
    }
    let live = try LiveResults(FetchRequest(predicate: #Predicate<Post> { $0.likes >= 100 },
                                            sortBy: [SortDescriptor(\.title)]), in: context)
    return (popular, howMany, ids, plan, titles, live)
}

// MARK: The documents' code, run

@Suite struct DocumentationExampleTests {
    /// A blog of three posts by Ann Ann (likes 50, 150, 300, published in that order) in `store`.
    func blog(_ store: StoreDescription) throws -> (ManagedContainer, ManagedObjectContext) {
        let container = try ManagedContainer(model: BlogModel.model, store: store)
        let context = container.newContext()
        let ann = Author(context: context)
        ann.firstName = "Ann"
        ann.lastName = "Ann"
        ann.email = "ann@example.com"
        for (title, likes) in [("Small", 50), ("Medium", 150), ("Large", 300)] {
            let post = Post(context: context, id: UUID(), title: title, body: "…", author: ann)
            post.likes = Int64(likes)
            post.publishedAt = Date(timeIntervalSince1970: Double(likes))   // the more likes, the later
        }
        try context.save()
        return (container, context)
    }

    @Test func theRuntimeGuideExampleRuns() throws {
        let (popular, same, post, context) = try runtimeGuideExample()
        #expect(popular.map(\.title) == ["Hello"])
        #expect(same === post)
        // The delete was rolled back: the author and post are still there, unchanged.
        #expect(!context.hasChanges)
        #expect(post.author?.firstName == "Ann")
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func theAggregateExampleRuns(_ kind: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docs-aggregate-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let (_, context) = try blog(kind == "sqlite" ? .sqlite(url) : .inMemory)
        let rows = try likesPerAuthor(context)
        #expect(rows.count == 1 && rows[0].author == "Ann" && rows[0].posts == 3 && rows[0].likes == 500)
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func theProjectionExampleRuns(_ kind: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docs-projection-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let (_, context) = try blog(kind == "sqlite" ? .sqlite(url) : .inMemory)
        let large = try #require(try context.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "title == 'Large'")).first)
        let (news, swift) = (Tag(context: context, name: "news"), Tag(context: context, name: "swift"))
        large.tags = [swift, news]
        try context.save()
        #expect(try postLines(context, page: 0) == ["Large by Ann news", "Medium by Ann ", "Small by Ann "])
        #expect(try postLines(context, page: 1).isEmpty)
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func thePartialObjectExampleRuns(_ kind: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docs-partial-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let (container, _) = try blog(kind == "sqlite" ? .sqlite(url) : .inMemory)
        let context = container.newContext()
        let posts = try postsToPick(context)
        #expect(posts.map(\.title) == ["Large", "Medium", "Small"])
        #expect(posts.map(\.isPartial) == Array(repeating: kind == "sqlite", count: 3), "\(kind)")
        #expect(posts.map { $0.author?.lastName } == ["Ann", "Ann", "Ann"])
        // An edit of a value the fetch left out loads the rest first and saves as a whole object would.
        let bodies = posts.map(\.body)
        posts[1].likes += 1
        try context.save()
        let check = container.newContext()
        let saved = try check.fetch(Post.fetchRequest()).sorted { $0.title < $1.title }
        #expect(saved.map(\.body) == bodies && saved.map(\.title) == ["Large", "Medium", "Small"])
        #expect(saved[1].likes == posts[1].likes && !posts[1].isPartial)
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func theHavingAndPrefetchExamplesRun(_ kind: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docs-having-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let (_, context) = try blog(kind == "sqlite" ? .sqlite(url) : .inMemory)
        #expect(try popularAuthors(context, minimum: 500).count == 1)
        #expect(try popularAuthors(context, minimum: 501).isEmpty)
        #expect(try postList(context) == ["Large by Ann []", "Medium by Ann []", "Small by Ann []"])
    }

    @Test func theBatchExampleRuns() throws {
        let (_, context) = try blog(.inMemory)
        let post = try #require(try context.fetch(Post.fetchRequest()).first)
        let comment = Comment(context: context)
        comment.text = "old"
        comment.postedAt = Date(timeIntervalSince1970: 0)
        comment.post = post
        let quiet = Post(context: context, id: UUID(), title: "Quiet", body: "…", author: post.author!)
        try context.save()
        let result = try tidy(context, before: Date(timeIntervalSince1970: 100))
        #expect(result.deleted == 1 && result.updated == 1 && result.inserted.count == 2)
        #expect(quiet.status == .archived && post.comments.isEmpty)
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func typedRequestsWrittenInPlaceRunOnEveryStore(_ kind: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docs-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let (_, context) = try blog(kind == "sqlite" ? .sqlite(url) : .inMemory)
        let result = try typedRequestsInPlace(context)
        #expect(Set(result.popular.map(\.title)) == ["Medium", "Large"])
        #expect(result.howMany == 2)
        #expect(Set(result.ids) == Set(result.popular.map(\.objectID)))
        #expect(kind == "sqlite" ? result.plan.sqlPlan != nil : result.plan.sqlPlan == nil, "\(result.plan)")
        #expect(Set(result.batched) == ["Medium", "Large"])
        #expect(result.live.objects.map(\.title) == ["Large", "Medium"])
        #expect(try typedRequestExample(context).map(\.title) == ["Large", "Medium"])
    }

    @Test func theFunctionExampleRegistersASelector() throws {
        registerDaysSince()
        let (_, context) = try blog(.inMemory)
        let request = try FetchRequest<Author>(entityName: "Author", predicate: "FUNCTION(SELF, 'daysSince:', createdAt) > 1")
        #expect(try context.fetch(request).count == 1)   // createdAt is 2001-01-01 (UserTypes.swift)
    }

    @MainActor @Test func theReadmeObservationExampleFires() throws {
        let (_, context) = try blog(.inMemory)
        let ann = try #require(try context.fetch(Author.fetchRequest()).first)
        watchPosts(of: ann)
        _ = PostRow(post: ann.posts[0])
        #if !canImport(SwiftUI)
        let list = try #require(PostList(results: try LiveResults(Post.fetchRequest(), in: context)).body as? List<[Post], PostRow>)
        #expect(list.data.map(\.id) == list.body.map(\.post.objectID))
        #endif
        // What the README says of it: setting a post's author fires the observation of the author's posts.
        let changed = ChangeFlag()
        withObservationTracking { _ = ann.posts.map(\.title) } onChange: { changed.set() }
        #expect(!changed.isSet)
        let post = Post(context: context, id: UUID(), title: "New", body: "…", author: ann)
        #expect(changed.isSet)
        #expect(ann.posts.contains(post))
    }

    /// `Identifiable` is the object ID (Post's own `id` attribute, a UUID, keeps its name), and typed
    /// look-ups say what they found when the class is not the one asked for.
    @Test func objectsAreIdentifiableByTheirObjectIDAndLookedUpByType() throws {
        let (_, context) = try blog(.inMemory)
        let post = try #require(try context.fetch(Post.fetchRequest()).first)
        func identity<T: Identifiable>(_ value: T) -> T.ID { value.id }
        #expect(identity(post) == post.objectID)
        let uuid: UUID = post.id
        #expect(try uuid == post.value(forKey: "id") as? UUID)
        let typed: Post = try context.existingObject(with: post.objectID)
        #expect(typed === post)
        #expect(throws: RuntimeError.self) { try context.existingObject(with: post.objectID, as: Author.self) }
        #expect(throws: RuntimeError.objectNotFound(ObjectID(entityName: "Post", key: 999))) {
            try context.existingObject(with: ObjectID(entityName: "Post", key: 999), as: Post.self)
        }
        // A new object's ID is temporary until its first save, which replaces it.
        let draft = Post(context: context, id: UUID(), title: "Draft", body: "…", author: post.author!)
        #expect(identity(draft).isTemporaryID)
        try context.save()
        #expect(!identity(draft).isTemporaryID)
    }
}
