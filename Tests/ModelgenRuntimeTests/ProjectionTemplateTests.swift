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
}
