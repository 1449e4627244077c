import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// Aggregates, grouping and distinct values (issue 41): the SQL store answers with one query, the
/// in-memory store computes on its records, and both give the same rows.
@Suite struct AggregateTests {
    /// Three authors: Ada with posts of 10, 20 and 30 likes, Bea with 5 and 7, Cy with none.
    func blog(_ kind: String) throws -> (ManagedContainer, ManagedObjectContext, URL?) {
        let url = kind == "sqlite" ? scratchDirectory.appendingPathComponent("aggregate-\(UUID().uuidString).sqlite") : nil
        let counter = StatementCounter()
        var configuration = SQLiteConfiguration()
        configuration.statementCounter = counter
        let container = kind == "sqlite"
            ? ManagedContainer(model: BlogModel.model, store: try SQLiteStore(url: url!, model: BlogModel.model, configuration: configuration))
            : try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let context = container.newContext()
        for (name, likes) in [("Ada", [10, 20, 30]), ("Bea", [5, 7]), ("Cy", [])] {
            let author = makeAuthor(context, name)
            for (index, count) in likes.enumerated() {
                let post = Post(context: context, title: "\(name) \(index)", author: author)
                post.likes = Int64(count)
                post.status = index == 0 ? .published : .draft
            }
        }
        try context.save()
        return (container, context, url)
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func aReportPerAuthorInOneQuery(_ kind: String) throws {
        let (container, context, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let counter = (container.store as? SQLiteStore)?.statementCounterForTests
        let before = counter?.count ?? 0
        let report = try context.aggregate(AggregateRequest(Post.fetchRequest(), groupBy: ["author.lastName"],
                                                            columns: [.count(as: "posts"), .sum("likes", as: "likes"), .average("likes", as: "mean"),
                                                                      .maximum("title", as: "last")],
                                                            sortBy: [(key: "likes", ascending: false)]))
        if let counter { #expect(counter.count - before == 1, "one query") }
        #expect(report.map { $0.string("author.lastName") } == ["Ada", "Bea"])
        #expect(report.map { $0.int("posts") } == [3, 2])
        #expect(report.map { $0.int("likes") } == [60, 12])
        #expect(report.map { $0.double("mean") } == [20, 6])
        #expect(report.map { $0.string("last") } == ["Ada 2", "Bea 1"])
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func typedKeyPathsAndAHavingPredicate(_ kind: String) throws {
        let (_, context, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        // Grouped by the related author (a typed key path), columns over typed key paths, groups kept by `having`.
        let request = AggregateRequest(Post.fetchRequest(), groupedBy: [\Post.author],
                                       columns: [.sum(\Post.likes, as: "likes"), .count(\Post.publishedAt, as: "published"), .count(as: "posts")],
                                       sortBy: [(key: "likes", ascending: true)], having: try FetchPredicate("likes > $MIN OR posts >= 3"))
        var variables = request
        variables.fetch.variables = ["MIN": 10]
        let rows = try context.aggregate(variables)
        let authors = try context.fetch(FetchRequest<Author>(entityName: "Author", sortDescriptors: [SortDescriptor("lastName")]))
        #expect(rows.map { $0.objectID("author") } == [authors[1].objectID, authors[0].objectID])   // Bea (12 likes), Ada (60)
        #expect(rows.map { $0.int("posts") } == [2, 3])
        variables.fetch.variables = ["MIN": 12]
        #expect(try context.aggregate(variables).map { $0.int("likes") } == [60])
        // A having predicate naming what the request does not compute is an error naming it.
        var wrong = request
        wrong.having = try FetchPredicate("title == 'x'")
        #expect(throws: RuntimeError.self) { try context.aggregate(wrong) }
        // Typed prefetching names the relationship the same way.
        var fetch = Post.fetchRequest()
        fetch.prefetch(\.author)
        fetch.prefetch(\.tags, then: "posts")
        #expect(try context.fetch(fetch).count == 5)
    }

    /// The SQL stores keep groups with `HAVING` when the predicate names only group key paths and
    /// columns (a variable bound after the WHERE clause's); otherwise the query has none and the context
    /// filters (and reports a wrong name).
    @Test func havingRunsAsSQL() throws {
        let (container, context, url) = try blog("sqlite")
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let store = try #require(container.store as? SQLiteStore)
        func sql(_ having: String, groupBy: [String] = ["author.lastName"]) throws -> SQLQueryTranslator.SQL {
            var query = StoreQuery(entityNames: ["Post"], entityName: "Post", predicate: try FetchPredicate("likes >= $LOW").predicate,
                                   variables: ["LOW": .value(.int(1)), "MIN": .value(.int(10))])
            query.having = try FetchPredicate(having).predicate
            return try SQLQueryTranslator(layout: store.layout, query: query, dialect: SQLiteDialect())
                .aggregate(groupBy: groupBy, columns: [.sum("likes", as: "likes"), .count(as: "posts")]).sql
        }
        let kept = try sql("likes > $MIN AND posts >= 2 AND author.lastName BEGINSWITH 'A'")
        #expect(kept.text.contains(" HAVING "), "\(kept.text)")
        #expect(kept.bindings.count > 2)   // $LOW in WHERE, then $MIN and the prefix in HAVING
        let notSQL = try sql("title == 'x'")
        #expect(!notSQL.text.contains("HAVING"))
        #expect(notSQL.bindings.count == 1)
        // The groups it keeps are those the context's filter keeps.
        var request = AggregateRequest(Post.fetchRequest(), groupBy: ["author.lastName"], columns: [.sum("likes", as: "likes"), .count(as: "posts")],
                                       having: try FetchPredicate("likes > $MIN AND posts >= 2"))
        request.fetch.variables = ["MIN": 12]   // Ada 60 likes in 3 posts, Bea 12 in 2
        #expect(try context.aggregate(request).map { $0.string("author.lastName") } == ["Ada"])
        request.fetch.variables = ["MIN": 11]
        #expect(Set(try context.aggregate(request).map { $0.string("author.lastName") }) == ["Ada", "Bea"])
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func groupsByARelationshipAnAttributeOrNothing(_ kind: String) throws {
        let (_, context, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        // By the related record itself.
        let byAuthor = try context.aggregate(AggregateRequest(Post.fetchRequest(), groupBy: ["author"], columns: [.sum("likes", as: "likes")]))
        let ada = try #require(try context.fetch(try FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Ada'")).first)
        #expect(byAuthor.first { $0.objectID("author") == ada.objectID }?.int("likes") == 60)
        // Distinct values: a grouping with no columns.
        let statuses = try context.aggregate(AggregateRequest(Post.fetchRequest(), groupBy: ["status"], columns: [], sortBy: [(key: "status", ascending: true)]))
        #expect(statuses.map { $0.int("status") } == [0, 1])
        // One group of everything, with a predicate (#Predicate or string): the least and the most liked.
        let popular = try context.aggregate(AggregateRequest(FetchRequest(predicate: #Predicate<Post> { $0.likes >= 7 }),
                                                             columns: [.minimum("likes", as: "least"), .maximum("likes", as: "most"), .count()]))
        #expect(popular.count == 1 && popular[0].int("least") == 7 && popular[0].int("most") == 30 && popular[0].int("count") == 4)
        // Nothing matches: one row, a count of 0 and no sum (as SQL).
        let none = try context.aggregate(AggregateRequest(try FetchRequest<Post>(entityName: "Post", predicate: "likes > 1000"), columns: [.count(), .sum("likes", as: "likes")]))
        #expect(none.count == 1 && none[0].int("count") == 0 && none[0]["likes"] == .null)
        #expect(throws: RuntimeError.self) { try context.aggregate(AggregateRequest(Post.fetchRequest(), groupBy: ["likes"], columns: [.count(as: "likes")])) }
    }

    /// An aggregate template declared in the model file (RuntimeFixture.model.yaml's `likesPerAuthor`):
    /// the generated function takes the variables of its predicate and having predicate, typed, and
    /// the rows come back as the generated struct, each column in the type the validator gave it.
    @Test(arguments: ["in-memory", "sqlite"])
    func aTemplateInTheModelFileGivesTypedRows(_ kind: String) throws {
        let (_, context, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let day = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let posts = try context.fetch(FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("title")]))
        let byTitle = Dictionary(uniqueKeysWithValues: posts.map { ($0.title, $0) })
        byTitle["Ada 0"]!.publishedAt = day
        byTitle["Ada 2"]!.publishedAt = day.addingTimeInterval(86_400)
        byTitle["Ada 1"]!.score = Decimal(string: "9.5")!
        byTitle["Ada 2"]!.score = Decimal(string: "10.25")!   // more than 9.5 as a number, less as text
        byTitle["Bea 1"]!.score = Decimal(string: "2.5")!
        try context.save()

        // Posts with 6 likes or more: all of Ada's, Bea's 7; authors with one such post or more.
        let rows = try context.aggregate(BlogModel.likesPerAuthor(minLikes: 6, minPosts: 1))
        #expect(rows.map(\.authorLastName) == ["Ada", "Bea"])
        #expect(rows.map(\.posts) == [3, 1])
        #expect(rows.map(\.likes) == [60, 7])
        #expect(rows.map(\.meanLikes) == [20, 7])
        #expect(rows.map(\.firstTitle) == ["Ada 0", "Bea 1"])
        #expect(rows.map(\.lastPublished) == [day.addingTimeInterval(86_400), nil])
        #expect(rows.map(\.published) == [2, 0])
        #expect(rows.map(\.topScore) == [Decimal(string: "10.25")!, Decimal(string: "2.5")!])
        let ada = try #require(try context.fetch(try FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Ada'")).first)
        #expect(rows.first?.author == ada.objectID)

        // The having predicate's variable: only authors with two such posts or more.
        #expect(try context.aggregate(BlogModel.likesPerAuthor(minLikes: 6, minPosts: 2)).map(\.authorLastName) == ["Ada"])
        // Distinct values of a raw-value enum attribute and a related attribute, sorted as the template says.
        let statuses = try context.aggregate(BlogModel.postStatuses())
        #expect(statuses.map(\.status) == [PostStatus.draft.rawValue, PostStatus.published.rawValue])
        #expect(statuses.map(\.authorRating) == [0, 0])
        // The template by name, as a plain aggregate request, and refused as a fetch of objects.
        var request: AggregateRequest<Post> = try BlogModel.model.aggregateRequest(fromTemplate: "likesPerAuthor", variables: ["MIN_LIKES": 6, "MIN_POSTS": 2])
        #expect(try context.aggregate(request).map { $0.int("likes") } == [60])
        request.fetch.variables["MIN_LIKES"] = 25
        #expect(try context.aggregate(request).isEmpty)
        #expect(throws: RuntimeError.self) { try BlogModel.model.fetchRequest(fromTemplate: "likesPerAuthor", variables: ["MIN_LIKES": 6, "MIN_POSTS": 2], as: Post.self) }
        #expect(throws: RuntimeError.missingVariable("MIN_POSTS")) { try BlogModel.model.aggregateRequest(fromTemplate: "likesPerAuthor", variables: ["MIN_LIKES": 6], as: Post.self) }
    }

    /// Grouped through to-many relationships (a many-to-many and a one-to-many), in one query on
    /// SQLite: each link counts once, a record without members falls in the nil group, and two key
    /// paths through one relationship take the same member. The rows equal what the whole objects say.
    @Test(arguments: ["in-memory", "sqlite"])
    func groupsThroughToManyRelationshipsCountEachLinkOnce(_ kind: String) throws {
        let (container, context, url) = try blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let posts = try context.fetch(FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("title")]))
        let (swift, data, fresh) = (Tag(context: context, name: "swift"), Tag(context: context, name: "data"), Tag(context: context, name: "unused"))
        // Ada 0 (10 likes): swift, data; Ada 1 (20): swift; Ada 2 (30): none; Bea 0 (5): data; Bea 1 (7): swift, data.
        for (post, tags) in zip(posts, [[swift, data], [swift], [], [data], [swift, data]]) { post.tags = Set(tags) }
        _ = fresh
        try context.save()
        let counter = (container.store as? SQLiteStore)?.statementCounterForTests
        let before = counter?.count ?? 0
        let perTag = try context.aggregate(AggregateRequest(Post.fetchRequest(), groupBy: ["tags.name"],
                                                            columns: [.count(as: "posts"), .sum("likes", as: "likes")],
                                                            sortBy: [(key: "tags.name", ascending: true)]))
        if let counter { #expect(counter.count - before == 1, "one query") }
        // Worked out from the objects: each post once per tag, untagged posts in the nil group.
        var expected: [String?: (posts: Int64, likes: Int64)] = [:]
        for post in posts {
            for name in post.tags.isEmpty ? [nil] : post.tags.map(\.name) {
                expected[name, default: (0, 0)].posts += 1
                expected[name, default: (0, 0)].likes += post.likes
            }
        }
        #expect(perTag.map { $0.string("tags.name") } == [nil, "data", "swift"])
        #expect(perTag.map { "\($0.int("posts") ?? -1)/\($0.int("likes") ?? -1)" }
                    == [nil, "data", "swift"].map { "\(expected[$0]!.posts)/\(expected[$0]!.likes)" })
        // By the related record and its attribute at once (the same member), from the tag's side, and
        // through a one-to-many: Cy has no posts, so one row with a nil post.
        let pairs = try context.aggregate(AggregateRequest(FetchRequest<Tag>(entityName: "Tag"), groupBy: ["posts", "posts.title"], columns: [.count()]))
        #expect(pairs.count == 5, "\(pairs)")   // the four tagged posts and the unused tag's nil
        for row in pairs {
            let title = row.string("posts.title")
            let post = posts.first { $0.title == title }
            #expect(row.objectID("posts") == post?.objectID, "\(row)")
            #expect(row.int("count") == Int64(post?.tags.count ?? 1), "\(row)")   // a row per link
        }
        let perAuthor = try context.aggregate(AggregateRequest(FetchRequest<Author>(entityName: "Author"), groupBy: ["lastName", "posts.status"],
                                                               columns: [.count(as: "posts")],
                                                               sortBy: [(key: "lastName", ascending: true), (key: "posts.status", ascending: true)]))
        #expect(perAuthor.map { "\($0.string("lastName") ?? "?") \($0.int("posts.status").map(String.init) ?? "nil") \($0.int("posts") ?? -1)" }
                    == ["Ada 0 2", "Ada 1 1", "Bea 0 1", "Bea 1 1", "Cy nil 1"])
    }
}
