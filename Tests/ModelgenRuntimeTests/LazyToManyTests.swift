import Foundation
import Testing
@testable import ModelgenRuntime

/// Fetched objects' to-many relationships load when first used, a batch of objects at a time
/// (issue 41): a fetch never reads relationships nobody uses, a loop over a list stays out of N+1, and
/// every way of reading or changing a relationship sees the stored members first.
@Suite struct LazyToManyTests {
    /// A SQLite blog of `posts` posts by one author each of `posts / 10`, with two of three tags and a comment each.
    func blog(posts: Int) throws -> (ManagedContainer, StatementCounter, URL) {
        try PrefetchTests().blog(posts: posts, postsPerAuthor: 10)
    }

    @Test func aFetchReadsNoToManyRelationshipAndALoopLoadsThemABatchAtATime() throws {
        var loops: [Int] = []
        for size in [300, 2_500] {
            let (container, counter, url) = try blog(posts: size)
            defer { try? FileManager.default.removeItem(at: url) }
            let context = container.newContext(observation: .unobserved)
            var before = counter.count
            let posts = try context.fetch(FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("title")]))
            #expect(counter.count - before == 1, "the fetch alone: no relationship read")
            #expect(posts.allSatisfy { $0._pendingToMany != 0 })
            before = counter.count
            let tagged = posts.map { $0.tags.map(\.name).sorted().joined() }
            loops.append(counter.count - before)
            #expect(tagged.count == size && tagged.allSatisfy { $0.count == 2 })
            // Each post's tags are the two it was given (a batch gives every object its own members).
            for (post, names) in zip(posts, tagged) {
                let index = Int(post.title.dropFirst(5))!
                #expect(names == [["a", "b", "c"][index % 3], ["a", "b", "c"][(index + 1) % 3]].sorted().joined())
            }
        }
        // The three tags' rows, and the posts' tags a batch of 1,000 posts at a time, each batch one
        // statement (1 for 300 posts; 3 for 2,500): never one per post.
        #expect(loops == [3 + 1, 3 + 3], "statements of the loop over 300 and 2,500 posts: \(loops)")
    }

    @Test func changesThroughTheInverseSeeTheStoredMembers() throws {
        let (container, _, url) = try blog(posts: 30)
        defer { try? FileManager.default.removeItem(at: url) }
        let context = container.newContext()
        let author = try #require(try context.fetch(FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Author0'")).first)
        #expect(author._pendingToMany != 0)
        // A new post names the author: its pending `posts` is read from the store, then the post joins.
        let post = Post(context: context, title: "New", author: author)
        #expect(author.posts.count == 11)
        #expect(author.posts.last === post)
        try context.save()
        // Undo after a change of an object whose relationship was pending gives back the stored members.
        let other = try #require(try context.fetch(FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Author10'")).first)
        #expect(other._pendingToMany != 0)
        other.bio = "changed"
        #expect(other._pendingToMany == 0, "a registered change loads every relationship first")
        context.undo()
        #expect(other.posts.count == 10)
        // A deleted post leaves its author's list, pending or not.
        let fresh = container.newContext()
        let posts = try fresh.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Post 25'"))
        let owner = try #require(posts.first?.author)
        #expect(owner.lastName == "Author20")
        #expect(owner._pendingToMany != 0, "a fault fired alone leaves its to-many relationships for first use too")
        fresh.delete(posts[0])
        #expect(owner.posts.count == 9 && !owner.posts.contains(posts[0]))
        try fresh.save()
        let check = container.newContext()
        let stored = try #require(try check.fetch(FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Author20'")).first)
        #expect(stored.posts.count == 9)
        #expect(try stored.value(forKey: "posts") as? [ManagedObject] != nil)
        #expect(try check.count(for: FetchRequest<Post>(entityName: "Post", predicate: "author.lastName == 'Author0'")) == 11)
    }

    @Test func predicatesKeyValueAccessAndChildContextsReadPendingRelationships() throws {
        let (container, _, url) = try blog(posts: 40)
        defer { try? FileManager.default.removeItem(at: url) }
        let context = container.newContext()
        let authors = try context.fetch(FetchRequest<Author>(entityName: "Author", sortDescriptors: [SortDescriptor("lastName")]))
        #expect(authors.allSatisfy { $0._pendingToMany != 0 })
        // Evaluated in memory (a pending change of the entity keeps the fetch out of the store).
        authors[0].bio = "pending"
        let busy = try context.fetch(FetchRequest<Author>(entityName: "Author", predicate: "posts.@count == 10"))
        #expect(busy.count == 4)
        #expect((try authors[1].value(forKey: "posts") as? [ManagedObject])?.count == 10)
        #expect(authors[2].committedValues(forKeys: ["posts"])["posts"].flatMap { $0 as? [ManagedObject] }?.count == 10)
        // A child reads its parent's objects, pending relationships included.
        let child = context.newChildContext()
        let childAuthor = try child.existingObject(with: authors[3].objectID, as: Author.self)
        #expect(childAuthor.posts.count == 10)
        _ = Post(context: child, title: "From the child", author: childAuthor)
        try child.save()
        #expect(authors[3].posts.count == 11)
        try context.save()
        let check = container.newContext()
        #expect(try check.count(for: FetchRequest<Post>(entityName: "Post", predicate: "author.lastName == $NAME", variables: ["NAME": authors[3].lastName])) == 11)
    }
}
