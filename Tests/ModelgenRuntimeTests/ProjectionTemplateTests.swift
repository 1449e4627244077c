import Foundation
import Testing
@testable import ModelgenRuntime

/// A projection template declared in the model file (RuntimeFixture.model.yaml's `postLines`): the
/// generated function takes its predicate's variable, typed; its rows are the generated struct, a
/// property per key path (optional where the model lets the value be nil), equal to what the objects
/// say, in the template's order and limit, on every store.
@Suite struct ProjectionTemplateTests {
    @Test(arguments: ["in-memory", "sqlite"])
    func aProjectionTemplateGivesTypedRowsEqualToTheObjects(_ kind: String) throws {
        let (container, context, url) = try AggregateTests().blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let ada = try #require(try context.fetch(try FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Ada'")).first)
        let day = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let posts = try context.fetch(FetchRequest<Post>(entityName: "Post"))
        posts.first { $0.title == "Ada 1" }?.publishedAt = day
        try context.save()

        let reader = container.newContext()
        let rows = try reader.fetch(BlogModel.postLines(minLikes: 6))
        // Likes 30, 20, 10, 7 (and 5, below the minimum): the first three, most liked first.
        #expect(rows.map(\.title) == ["Ada 2", "Ada 1", "Ada 0"])
        #expect(rows.map(\.likes) == [30, 20, 10])
        #expect(rows.map(\.publishedAt) == [nil, day, nil])
        #expect(rows.map(\.authorLastName) == ["Ada", "Ada", "Ada"])
        #expect(rows.map(\.authorEmail) == Array(repeating: ada.email, count: 3))
        #expect(rows.map(\.author) == Array(repeating: ada.objectID, count: 3))
        #expect(rows.map(\.status) == [PostStatus.draft.rawValue, PostStatus.draft.rawValue, PostStatus.published.rawValue])
        for row in rows {
            let post = try reader.existingObject(with: row.objectID, as: Post.self)
            #expect(post.title == row.title && post.likes == row.likes && post.author?.objectID == row.author)
        }
        let fewer = try reader.fetch(BlogModel.postLines(minLikes: 8))
        #expect(fewer.map(\.title) == ["Ada 2", "Ada 1", "Ada 0"])
        #expect(try reader.fetch(BlogModel.postLines(minLikes: 25)).map(\.title) == ["Ada 2"])
        // The template by name: a plain projection request, and the fetch of its objects.
        let byName: ProjectionRequest<Post> = try BlogModel.model.projectionRequest(fromTemplate: "postLines", variables: ["MIN_LIKES": 6])
        #expect(try reader.fetch(byName).map { $0.string("title") } == ["Ada 2", "Ada 1", "Ada 0"])
        #expect(try reader.fetch(BlogModel.model.fetchRequest(fromTemplate: "postLines", variables: ["MIN_LIKES": 6], as: Post.self)).map(\.title) == ["Ada 2", "Ada 1", "Ada 0"])
        #expect(throws: RuntimeError.self) { try BlogModel.model.projectionRequest(fromTemplate: "postStatuses", as: Post.self) }
    }

    /// First members in a template (`authorLines`, `postNeighbours`): by the template's order, by the
    /// ordered relationship's own, named with `as`, the member's ID, and through a to-one
    /// relationship first; nil for a record without members. Each row equals what its objects say.
    @Test(arguments: ["in-memory", "sqlite"])
    func firstMembersInATemplateAreTheObjectsFirstMembers(_ kind: String) throws {
        let (container, context, url) = try AggregateTests().blog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        // Ada's posts in their order: Ada 0 (10 likes), Ada 1 (20), Ada 2 (30); moved so the order
        // differs from the keys' and from likes'.
        let ada = try #require(try context.fetch(try FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Ada'")).first)
        let adaPosts = ada.posts
        let reordered = [adaPosts[1], adaPosts[2], adaPosts[0]]
        ada.posts = reordered
        try context.save()

        let reader = container.newContext()
        let rows = try reader.fetch(BlogModel.authorLines())
        #expect(rows.map(\.lastName) == ["Ada", "Bea", "Cy"])
        #expect(rows.map(\.topTitle) == ["Ada 2", "Bea 1", nil])
        #expect(rows.map(\.postsTitle) == ["Ada 1", "Bea 0", nil])
        #expect(rows.map(\.fewestLikes) == [10, 5, nil])
        #expect(rows[0].posts == reordered[2].objectID && rows[2].posts == nil)
        for row in rows {
            let author = try reader.existingObject(with: row.objectID, as: Author.self)
            let posts = author.posts
            #expect(row.postsTitle == posts.first?.title)
            #expect(row.topTitle == posts.sorted { ($0.likes, $1.title) > ($1.likes, $0.title) }.first?.title)
            #expect(row.posts == posts.min { $0.likes < $1.likes }?.objectID)
        }

        let neighbours = try reader.fetch(BlogModel.postNeighbours())
        #expect(neighbours.map(\.title) == ["Ada 0", "Ada 1", "Ada 2", "Bea 0", "Bea 1"])
        #expect(neighbours.map(\.authorPostsTitle) == ["Ada 1", "Ada 1", "Ada 1", "Bea 0", "Bea 0"])
        // By name, the same request: the row keys are the names given (`as`) or the key paths.
        let byName: ProjectionRequest<Author> = try BlogModel.model.projectionRequest(fromTemplate: "authorLines")
        #expect(try reader.fetch(byName).map { $0.string("topTitle") } == ["Ada 2", "Bea 1", nil])
    }
}
