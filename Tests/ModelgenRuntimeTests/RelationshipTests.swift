import Foundation
import Testing
@testable import ModelgenRuntime

@Suite struct RelationshipTests {
    @Test func oneToManyInverseFollowsBothWays() throws {
        let (_, context) = try makeContext()
        let ann = makeAuthor(context, "Ann"), bob = makeAuthor(context, "Bob")
        let post = Post(context: context, title: "P", author: ann)
        #expect(ann.posts == [post])
        post.author = bob   // moves: leaves Ann's posts
        #expect(ann.posts.isEmpty && bob.posts == [post])
        bob.posts = []
        #expect(post.author == nil)
    }

    @Test func orderedToManyKeepsOrderAndInsertsAtIndex() throws {
        let (container, context) = try makeContext()
        let ann = makeAuthor(context)
        let p1 = Post(context: context, title: "1", author: ann)
        let p2 = Post(context: context, title: "2", author: ann)
        let p0 = Post(context: context)
        p0.id = UUID(); p0.title = "0"; p0.body = ""
        ann.insertIntoPosts(p0, at: 0)
        #expect(ann.posts.map(\.title) == ["0", "1", "2"])
        #expect(p0.author === ann)
        ann.posts = [p2, p0, p1]
        try context.save()
        let other = container.newContext()
        let fetched = try #require(try other.fetch(FetchRequest<Author>(entityName: "Author")).first)
        #expect(fetched.posts.map(\.title) == ["2", "0", "1"])
    }

    @Test func manyToManyInverseFollows() throws {
        let (_, context) = try makeContext()
        let post = Post(context: context, title: "P", author: makeAuthor(context))
        let swift = Tag(context: context), linux = Tag(context: context)
        swift.name = "swift"; linux.name = "linux"
        post.addToTags(swift)
        post.tags = [swift, linux]
        #expect(swift.posts == [post] && linux.posts == [post])
        post.removeFromTags(swift)
        #expect(swift.posts.isEmpty && post.tags == [linux])
    }

    @Test func relationshipsThatAreTheirOwnInverse() throws {
        let (_, context) = try makeContext()
        let a = Member(context: context), b = Member(context: context), c = Member(context: context)
        a.friends = [b, c]
        #expect(b.friends == [a] && c.friends == [a])
        a.spouse = b
        #expect(b.spouse === a)
        c.spouse = b   // b leaves a
        #expect(b.spouse === c && a.spouse == nil)
    }

    @Test func cascadeDeletesDependents() throws {
        let (container, context) = try makeContext()
        let ann = makeAuthor(context)
        let post = Post(context: context, title: "P", author: ann)
        let comment = Comment(context: context)
        comment.text = "hi"; comment.postedAt = Date(); comment.post = post
        try context.save()
        context.delete(ann)
        #expect(post.isDeleted && comment.isDeleted)
        try context.save()
        let other = container.newContext()
        #expect(try other.count(for: FetchRequest<Post>(entityName: "Post")) == 0)
        #expect(try other.count(for: FetchRequest<Comment>(entityName: "Comment")) == 0)
    }

    @Test func nullifyRemovesTheDeletedObjectFromInverses() throws {
        let (_, context) = try makeContext()
        let reader = Reader(context: context)
        reader.firstName = "R"; reader.lastName = "R"; reader.email = "r@r.r"; reader.createdAt = Date()
        let post = Post(context: context, title: "P", author: makeAuthor(context))
        let comment = Comment(context: context)
        comment.text = "x"; comment.postedAt = Date(); comment.post = post; comment.reader = reader
        try context.save()
        context.delete(reader)
        #expect(comment.reader == nil && !comment.isDeleted)
        try context.save()
    }

    @Test func denyBlocksTheSaveNamingTheBlockingObjects() throws {
        let (container, context) = try makeContext()
        let post = Post(context: context, title: "P", author: makeAuthor(context))
        let tag = Tag(context: context)
        tag.name = "swift"
        post.addToTags(tag)
        try context.save()
        context.delete(tag)
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? ValidationError else { return false }
            return error.failures.count == 1 && error.failures[0].key == "posts" && error.failures[0].message.contains(post.objectID.description)
        }
        #expect(try container.newContext().count(for: FetchRequest<Tag>(entityName: "Tag")) == 1)  // nothing written
        context.rollback()
        post.removeFromTags(tag)
        context.delete(tag)
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest<Tag>(entityName: "Tag")) == 0)
    }

    @Test func relationshipCountsAreValidated() throws {
        let (_, context) = try makeContext()
        let post = Post(context: context, title: "P", author: makeAuthor(context))
        for i in 0..<11 {
            let tag = Tag(context: context)
            tag.name = "t\(i)"
            post.addToTags(tag)
        }
        #expect {
            try context.save()
        } throws: { error in
            (error as? ValidationError)?.failures.contains { $0.key == "tags" && $0.message.contains("at most 10") } ?? false
        }
    }
}
