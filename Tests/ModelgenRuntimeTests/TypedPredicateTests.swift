import Foundation
import TestScratch
import Synchronization
import Testing
@testable import ModelgenRuntime

/// `#Predicate` queries against generated classes: each typed form returns what its string predicate
/// returns, in memory and on SQLite, where it runs as SQL (no in-memory fallback is reported); what
/// cannot be translated throws, naming the expression.
@Suite struct TypedPredicateTests {
    /// A `#Predicate` and the string predicate it means.
    struct Case: CustomTestStringConvertible, @unchecked Sendable {
        var format: String
        var predicate: Foundation.Predicate<Post>
        var testDescription: String { format }
    }

    static let cutoff = Date(timeIntervalSinceReferenceDate: 1500)
    static let two = Decimal(2)
    static let link = URL(string: "https://example.com/2")
    static let draft = PostStatus.draft

    static let cases: [Case] = [
        Case(format: "likes > 50", predicate: #Predicate<Post> { $0.likes > 50 }),
        Case(format: "likes >= 50 AND likes <= 150", predicate: #Predicate<Post> { $0.likes >= 50 && $0.likes <= 150 }),
        Case(format: "title CONTAINS 'Post' OR likes == 0", predicate: #Predicate<Post> { $0.title.contains("Post") || $0.likes == 0 }),
        Case(format: "NOT title BEGINSWITH 'Post'", predicate: #Predicate<Post> { !$0.title.starts(with: "Post") }),
        Case(format: "author.lastName == 'Ann'", predicate: #Predicate<Post> { $0.author?.lastName == "Ann" }),
        Case(format: "publishedAt == nil", predicate: #Predicate<Post> { $0.publishedAt == nil }),
        Case(format: "publishedAt != nil AND publishedAt > $DATE", predicate: #Predicate<Post> { $0.publishedAt != nil && $0.publishedAt! > cutoff }),
        Case(format: "tags.@count >= 1", predicate: #Predicate<Post> { $0.tags.count >= 1 }),
        Case(format: "ANY tags.name == 'go'", predicate: #Predicate<Post> { $0.tags.contains { $0.name == "go" } }),
        Case(format: "ALL comments.text != 'comment on 0'", predicate: #Predicate<Post> { $0.comments.allSatisfy { $0.text != "comment on 0" } }),
        Case(format: "SUBQUERY(tags, $t, $t.name == 'go' OR $t.name == 'rust').@count > 0",
             predicate: #Predicate<Post> { $0.tags.contains { $0.name == "go" || $0.name == "rust" } }),
        Case(format: "SUBQUERY(comments, $c, NOT ($c.text CONTAINS '0' OR $c.reader.lastName == 'Nobody')).@count == 0",
             predicate: #Predicate<Post> { $0.comments.allSatisfy { $0.text.contains("0") || $0.reader?.lastName == "Nobody" } }),
        Case(format: "title IN {'Post 0', 'Post 2'}", predicate: #Predicate<Post> { ["Post 0", "Post 2"].contains($0.title) }),
        Case(format: "likes BETWEEN {50, 150}", predicate: #Predicate<Post> { (50...150).contains($0.likes) }),
        Case(format: "likes >= 50 AND likes < 150", predicate: #Predicate<Post> { (50..<150).contains($0.likes) }),
        Case(format: "status == 0 AND score > 2", predicate: #Predicate<Post> { $0.status == draft && $0.score > two }),
        Case(format: "link == $LINK", predicate: #Predicate<Post> { $0.link == link }),
        Case(format: "TRUEPREDICATE", predicate: #Predicate<Post> { _ in true }),
        Case(format: "author.posts.@count == 3 AND commentCount == 0", predicate: #Predicate<Post> { $0.author?.posts.count == 3 && $0.commentCount == 0 }),
    ]

    func containers() throws -> [ManagedContainer] {
        let directory = try temporaryDirectory()
        let memory = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let sqlite = try ManagedContainer(model: BlogModel.model, store: .sqlite(directory.appendingPathComponent("typed.sqlite")))
        try seedBlog(memory)
        try seedBlog(sqlite)
        return [memory, sqlite]
    }

    @Test(arguments: cases)
    func aTypedPredicateReturnsWhatItsStringReturns(_ testCase: Case) throws {
        var results: [[String]] = []
        for container in try containers() {
            let fallbacks = Mutex(0)
            container.onInMemoryFetch { _ in fallbacks.withLock { $0 += 1 } }
            let context = container.newContext()
            let typed = FetchRequest(predicate: testCase.predicate, sortBy: [SortDescriptor(\Post.title)])
            let titles = try context.fetch(typed).map(\.title)
            let variables: [String: Any?] = ["DATE": Self.cutoff, "LINK": URL(string: "https://example.com/2")!]
            let string = try FetchRequest<Post>(entityName: "Post", predicate: testCase.format, variables: variables,
                                                sortDescriptors: [ModelgenRuntime.SortDescriptor("title")])
            #expect(titles == (try context.fetch(string).map(\.title)), "\(testCase.format)")
            #expect(try context.count(for: typed) == titles.count)
            #expect(fallbacks.withLock { $0 } == 0, "\(testCase.format) ran in memory on \(container.store)")
            if case .sql = try context.queryPlan(for: string) {
                #expect(try context.queryPlan(for: typed).sqlPlan != nil, "\(testCase.format): the typed form is SQL too")
            }
            results.append(titles)
        }
        #expect(results[0] == results[1], "in memory and SQLite agree on \(testCase.format)")
        #expect(testCase.format == "TRUEPREDICATE" || results[0].count < 5, "\(testCase.format) selects: \(results[0])")
    }

    @Test func sortDescriptorsLimitsAndObjectsAsValues() throws {
        for container in try containers() {
            let context = container.newContext()
            // Objects are compared by an attribute: Foundation's Predicate holds only Codable values.
            let email = try #require(try context.fetch(FetchRequest(predicate: #Predicate<Author> { $0.lastName == "Ann" })).first).email
            let byLikes = FetchRequest(predicate: #Predicate<Post> { $0.author?.email == email }, sortBy: [SortDescriptor(\Post.likes, order: .reverse)])
            #expect(try context.fetch(byLikes).map(\.likes) == [200, 100, 0])
            var top = FetchRequest(sortBy: [SortDescriptor(\Post.likes, order: .reverse), SortDescriptor(\Post.title)], fetchLimit: 2)
            #expect(try context.fetch(top).map(\.likes) == [200, 150])
            top.fetchOffset = 1
            #expect(try context.fetch(top).map(\.likes) == [150, 100])
            // Live results and batches take typed requests too.
            let live = try LiveResults(FetchRequest(predicate: #Predicate<Post> { $0.likes >= 100 }, sortBy: [SortDescriptor(\Post.likes)]), in: context)
            #expect(live.objects.map(\.likes) == [100, 150, 200])
            #expect(try context.fetch(FetchRequest(predicate: #Predicate<Post> { $0.likes >= 100 }), batchSize: 2).count == 3)
        }
    }

    @Test func whatCannotBeTranslatedThrowsNamingIt() throws {
        let context = try containers()[1].newContext()
        let arithmetic = FetchRequest(predicate: #Predicate<Post> { $0.likes + 1 > 5 })
        let error = try #require(throws: UnsupportedPredicateError.self) { try context.fetch(arithmetic) }
        #expect(error.message.contains("PredicateExpressions.Arithmetic"), "\(error)")
        let notModeled = FetchRequest(predicate: #Predicate<Post> { $0.hasChanges })
        let second = try #require(throws: UnsupportedPredicateError.self) { try context.count(for: notModeled) }
        #expect(second.message.contains("names no modeled attribute or relationship of entity 'Post'"), "\(second)")
        let length = FetchRequest(predicate: #Predicate<Post> { $0.title.count > 3 })
        let third = try #require(throws: UnsupportedPredicateError.self) { try context.fetch(length) }
        #expect(third.message.contains("a key path of String cannot be translated"), "\(third)")
    }
}
