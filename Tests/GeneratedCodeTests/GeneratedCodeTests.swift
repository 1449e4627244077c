import Foundation
import ModelgenRuntime
import Testing

/// The generated code of the example models, compiled in this target and exercised.
@Suite struct BlogGeneratedCodeTests {
    func context() throws -> (ManagedContainer, ManagedObjectContext) {
        let container = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        return (container, container.newContext())
    }

    @Test func insertRelateSaveAndFetchWithTemplateHelpers() throws {
        let (container, context) = try context()
        let ann = Author(context: context, firstName: "Ann", lastName: "Smith", email: "ann@example.com", createdAt: Date())
        #expect(ann.rating == 1)   // the user's awakeFromInsert ran
        let swift = Tag(context: context, name: "swift")
        for (index, likes) in [10, 120, 300].enumerated() {
            let post = Post(context: context, id: UUID(), title: "Post \(index)", body: "…", author: ann)
            post.likes = Int64(likes)
            post.status = .published
            post.publishedAt = Date(timeIntervalSinceReferenceDate: Double(index))
            if likes > 100 { post.addToTags(swift) }
        }
        let comment = Comment(context: context, text: "Nice", postedAt: Date(), post: ann.posts[0])
        try context.save()
        #expect(ann.posts[0].commentCount == 1)           // derived
        #expect(ann.posts[0].searchTitle == "post 0")
        #expect(comment.post?.author === ann)

        let reader = container.newContext()
        let popular = try reader.fetch(BlogModel.postsByAuthorName(name: "SMITH", minLikes: 100))
        #expect(popular.map(\.title) == ["Post 2", "Post 1"])
        #expect(popular.allSatisfy { $0.status == .published })
        #expect(try reader.count(for: BlogModel.taggedPosts(tagNames: ["swift"])) == 2)
        #expect(try reader.fetch(BlogModel.recentComments(since: Date.distantPast)).map(\.text) == ["Nice"])
        let authors = try reader.fetch(Author.fetchRequest())
        #expect(try authors.first?.popularPosts.map(\.likes) == [300, 120])
        #expect(try reader.count(for: Person.fetchRequest()) == 1)
    }

    @Test func assigningASetToAToManyRelationshipKeepsInversesInStep() throws {
        let (_, context) = try context()
        let ann = Author(context: context, firstName: "Ann", lastName: "Smith", email: "ann@example.com", createdAt: Date())
        let post = Post(context: context, id: UUID(), title: "Sets", body: "…", author: ann)
        let swift = Tag(context: context, name: "swift"), linux = Tag(context: context, name: "linux")
        post.tags = [swift, linux]                                  // the generated setter: setRelatedSet
        #expect(post.tags == [swift, linux])
        #expect(swift.posts == [post] && linux.posts == [post])    // inverses follow
        post.tags = [linux]
        #expect(post.tags == [linux] && swift.posts.isEmpty && linux.posts == [post])
        try context.save()
        post.tags = []
        #expect(linux.posts.isEmpty && post.changedValues().keys.contains(Post.Keys.tags))
    }

    @Test func validationDeleteRulesAndUndo() throws {
        let (_, context) = try context()
        let ann = Author(context: context, firstName: "Ann", lastName: "Smith", email: "not an email", createdAt: Date())
        let post = Post(context: context, id: UUID(), title: "", body: "", author: ann)
        #expect {
            try context.save()
        } throws: { error in
            let keys = Set((error as? ValidationError)?.failures.compactMap(\.key) ?? [])
            return keys.isSuperset(of: [Author.Keys.email, Post.Keys.title])
        }
        ann.email = "ann@example.com"
        post.title = "Hello"
        let tag = Tag(context: context, name: "swift")
        post.addToTags(tag)
        try context.save()

        ann.bio = "spam"
        #expect(throws: ValidationError.self) { try context.save() }   // the user's hook
        context.rollback()

        context.delete(tag)
        #expect(throws: ValidationError.self) { try context.save() }   // deny: the tag still has a post
        context.rollback()

        context.delete(ann)                                             // cascade to the post
        #expect(post.isDeleted)
        context.undo()
        #expect(!post.isDeleted && post.author === ann)
        context.delete(ann)
        try context.save()
        #expect(try context.count(for: Post.fetchRequest()) == 0)
    }
}

@Suite struct GraphicsGeneratedCodeTests {
    @Test func nonstandardAttributesOrderedShapesAndAHandWrittenClass() throws {
        let container = try ManagedContainer(model: GraphicsModel.model, store: .inMemory)
        let context = container.newContext()
        let canvas = Canvas(context: context, title: "Sketch")
        let rectangle = Rectangle(context: context, name: "r", createdAt: Date(),
                                  color: RGBAColor(red: 1, green: 0.5, blue: 0, alpha: 1),
                                  bounds: Rect(x: 1, y: 2, width: 3, height: 4))
        let circle = Circle(context: context)
        circle.name = "c"
        circle.createdAt = Date()
        circle.radius = 2.5
        canvas.shapes = [circle, rectangle]
        canvas.addToSelection(rectangle)
        try context.save()

        let other = container.newContext()
        let fetched = try #require(try other.fetch(Canvas.fetchRequest()).first)
        #expect(fetched.shapes.map(\.name) == ["c", "r"])
        let fetchedRectangle = try #require(fetched.shapes[1] as? Rectangle)
        #expect(fetchedRectangle.color == RGBAColor(red: 1, green: 0.5, blue: 0, alpha: 1))
        #expect(fetchedRectangle.bounds == Rect(x: 1, y: 2, width: 3, height: 4))
        #expect((fetched.shapes[0] as? Circle)?.radius == 2.5)
        #expect(fetched.selection.count == 1)
        other.delete(fetched)   // cascade to the shapes
        try other.save()
        #expect(try other.count(for: Shape.fetchRequest()) == 0)
    }
}

/// The version hash `modelgen` writes into generated code (its own computation, what `validate` prints
/// for each version) is the runtime's `ManagedObjectModel.versionHash` of the same model, which the
/// stores record: the reference models cover inheritance, composites, enums and transient attributes.
@Suite struct VersionHashTests {
    @Test func theGeneratorsVersionHashIsTheRuntimes() {
        #expect(BlogModel.versionHash == BlogModel.model.versionHash)
        #expect(GraphicsModel.versionHash == GraphicsModel.model.versionHash)
        #expect(LiteralsModel.versionHash == LiteralsModel.model.versionHash)
        #expect(StaffModel.versionHash == StaffModel.model.versionHash)
    }
}
