import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// Merge policy × kind of clash × store (issue 40). Two contexts read one post; "theirs" (`.error`)
/// saves a change first, then "mine" saves its own under the policy under test. The expected
/// outcomes are written out first, from Core Data's documented merge policies, with this runtime's
/// rules where Core Data is silent or differs on purpose (docs/concurrency.md, "Choosing a merge
/// policy"): adding and removing members of a to-many relationship is never a conflict; an update
/// of a record deleted meanwhile is dropped under every policy but `.error` (no policy writes a
/// deleted record again).
@Suite struct MergePolicyMatrixTests {
    enum Clash: String, CaseIterable, CustomTestStringConvertible {
        case sameAttribute, differentAttributes, toOneVsToOne, toManyVsToMany, deleteVsUpdate, updateVsDelete
        var testDescription: String { rawValue }
    }

    /// What a save leads to: whether it throws a conflict, and the post as stored afterwards (nil: gone).
    struct Outcome: Equatable, CustomStringConvertible {
        var conflict: Bool
        var post: StoredPost?
        var description: String { "\(conflict ? "conflict" : "saved"), \(post.map { "\($0)" } ?? "post gone")" }
    }

    struct StoredPost: Equatable, CustomStringConvertible {
        var title: String
        var likes: Int64
        var author: String
        var tags: Set<String>
        var description: String { "\(title) / \(likes) likes / by \(author) / tags \(tags.sorted())" }
    }

    /// The post as set up: "First", 10 likes, by Lovelace, tagged swift.
    static let original = StoredPost(title: "First", likes: 10, author: "Lovelace", tags: ["swift"])

    static func expected(_ policy: MergePolicy, _ clash: Clash) -> Outcome {
        var post = original
        let conflict = policy == .error && clash != .toManyVsToMany
        // What the other save did, which every outcome but `.overwrite`'s keeps where it clashes.
        switch clash {
        case .sameAttribute, .differentAttributes, .deleteVsUpdate: post.title = "Theirs"
        case .toOneVsToOne: post.author = "Hopper"
        case .toManyVsToMany: post.tags.insert("server")
        case .updateVsDelete: break
        }
        if conflict { return Outcome(conflict: true, post: clash == .updateVsDelete ? nil : post) }
        switch (clash, policy) {
        case (.sameAttribute, .mergeByPropertyObjectTrump), (.sameAttribute, .overwrite):
            post.title = "Mine"
        case (.differentAttributes, .mergeByPropertyObjectTrump), (.differentAttributes, .mergeByPropertyStoreTrump):
            post.likes = 99                                    // both changes kept
        case (.differentAttributes, .overwrite):
            post.title = "First"                               // the whole object, as read, written back
            post.likes = 99
        case (.toOneVsToOne, .mergeByPropertyObjectTrump), (.toOneVsToOne, .overwrite):
            post.author = "King"
        case (.toManyVsToMany, _):
            post.tags.insert("linux")                          // never a conflict: both members kept
        case (.deleteVsUpdate, .mergeByPropertyObjectTrump), (.deleteVsUpdate, .overwrite):
            return Outcome(conflict: false, post: nil)         // the delete wins
        case (.updateVsDelete, _):
            return Outcome(conflict: false, post: nil)         // the deletion stands, under every policy
        default:
            break                                              // the store's values stay
        }
        return Outcome(conflict: false, post: post)
    }

    static let policies: [MergePolicy] = [.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]

    @Test(arguments: ["in-memory", "sqlite"], policies)
    func everyClashEndsAsCoreDataSays(_ kind: String, _ policy: MergePolicy) throws {
        for clash in Clash.allCases {
            let url = kind == "sqlite" ? scratchDirectory.appendingPathComponent("matrix-\(UUID().uuidString).sqlite") : nil
            defer { url.map { try? FileManager.default.removeItem(at: $0) } }
            let container = try ManagedContainer(model: BlogModel.model, store: url.map(StoreDescription.sqlite) ?? .inMemory)
            let setup = container.newContext()
            let lovelace = makeAuthor(setup, "Lovelace")
            _ = makeAuthor(setup, "Hopper")
            _ = makeAuthor(setup, "King")
            let original = Post(context: setup, title: "First", author: lovelace)
            original.likes = 10
            original.addToTags(Tag(context: setup, name: "swift"))
            for name in ["server", "linux"] { _ = Tag(context: setup, name: name) }
            try setup.save()
            let postID = original.objectID

            let theirs = container.newContext(), mine = container.newContext()
            mine.mergePolicy = policy
            func post(in context: ManagedObjectContext) throws -> Post { try context.existingObject(with: postID, as: Post.self) }
            func author(_ name: String, in context: ManagedObjectContext) throws -> Author {
                try #require(try context.fetch(try FetchRequest<Author>(entityName: "Author", predicate: "lastName == $N", variables: ["N": name])).first)
            }
            func tag(_ name: String, in context: ManagedObjectContext) throws -> Tag {
                try #require(try context.fetch(try FetchRequest<Tag>(entityName: "Tag", predicate: "name == $N", variables: ["N": name])).first)
            }
            let theirPost = try post(in: theirs), myPost = try post(in: mine)
            _ = (theirPost.tags, myPost.tags, theirPost.author?.posts, myPost.author?.posts)   // read before either saves

            switch clash {
            case .sameAttribute: theirPost.title = "Theirs"
            case .differentAttributes, .deleteVsUpdate: theirPost.title = "Theirs"
            case .toOneVsToOne: theirPost.author = try author("Hopper", in: theirs)
            case .toManyVsToMany: theirPost.addToTags(try tag("server", in: theirs))
            case .updateVsDelete: theirs.delete(theirPost)
            }
            try theirs.save()
            switch clash {
            case .sameAttribute, .updateVsDelete: myPost.title = "Mine"
            case .differentAttributes: myPost.likes = 99
            case .toOneVsToOne: myPost.author = try author("King", in: mine)
            case .toManyVsToMany: myPost.addToTags(try tag("linux", in: mine))
            case .deleteVsUpdate: mine.delete(myPost)
            }
            var conflict = false
            do { try mine.save() } catch is MergeConflictError { conflict = true }

            let reader = container.newContext()
            let stored = try reader.fetch(FetchRequest<Post>(entityName: "Post")).first.map { p in
                StoredPost(title: p.title, likes: p.likes, author: p.author?.lastName ?? "none", tags: Set(p.tags.map(\.name)))
            }
            let outcome = Outcome(conflict: conflict, post: stored)
            #expect(outcome == Self.expected(policy, clash), "\(kind), \(policy), \(clash)")
            // Links agree from both sides: the author lists the post, each tag lists it.
            if let stored = try reader.fetch(FetchRequest<Post>(entityName: "Post")).first {
                #expect(stored.author?.posts.contains(stored) ?? true, "\(kind), \(policy), \(clash)")
                for tag in stored.tags { #expect(tag.posts.contains(stored), "\(kind), \(policy), \(clash): \(tag.name)") }
                let others = try reader.fetch(FetchRequest<Author>(entityName: "Author")).filter { $0 !== stored.author }
                #expect(!others.contains { $0.posts.contains(stored) }, "\(kind), \(policy), \(clash)")
            }
            // What `mine` shows afterwards is what is stored (merged objects take the stored values).
            if !conflict, let stored, !myPost.isDeleted, myPost.managedObjectContext != nil, !myPost.isFault {
                #expect(myPost.title == stored.title && myPost.likes == stored.likes, "\(kind), \(policy), \(clash): mine shows \(myPost.title)")
            }
        }
    }

    /// Under `.error` the conflict is data: each object and each clashing property, with what this
    /// context read, what it has now and what the store holds.
    @Test(arguments: ["in-memory", "sqlite"])
    func aConflictListsEachPropertyWithItsThreeValues(_ kind: String) throws {
        let url = kind == "sqlite" ? scratchDirectory.appendingPathComponent("conflict-\(UUID().uuidString).sqlite") : nil
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let container = try ManagedContainer(model: BlogModel.model, store: url.map(StoreDescription.sqlite) ?? .inMemory)
        let setup = container.newContext()
        let post = Post(context: setup, title: "First", author: makeAuthor(setup))
        post.likes = 10
        try setup.save()
        let theirs = container.newContext(), mine = container.newContext()
        let theirPost = try theirs.existingObject(with: post.objectID, as: Post.self)
        let myPost = try mine.existingObject(with: post.objectID, as: Post.self)
        theirPost.title = "Theirs"
        try theirs.save()
        myPost.title = "Mine"
        myPost.likes = 11
        do {
            try mine.save()
            Issue.record("no conflict")
        } catch let error as MergeConflictError {
            #expect(error.conflicts.map(\.id) == [post.objectID])
            let object = try #require(error.objects.first)
            #expect(object.id == post.objectID && !object.deletedHere && !object.deletedInStore)
            let byKey = Dictionary(uniqueKeysWithValues: object.properties.map { ($0.key, $0) })
            #expect(Set(byKey.keys) == ["title", "likes", "searchTitle"])   // searchTitle is derived from title
            #expect(byKey["title"] == PropertyConflict(key: "title", readValue: .string("First"), newValue: .string("Mine"), storedValue: .string("Theirs")))
            #expect(byKey["likes"] == PropertyConflict(key: "likes", readValue: .int(10), newValue: .int(11), storedValue: .int(10)))
            #expect(byKey["title"]?.changedHere == true && byKey["title"]?.changedInStore == true)
            #expect(byKey["likes"]?.changedInStore == false)
            #expect(String(describing: error).contains("title: read First, now Mine, stored Theirs"), "\(error)")
        }
        #expect(mine.hasChanges && myPost.title == "Mine")   // a failed save changes nothing
    }

    /// An object merged by property is validated again on its merged values: a merge that would store
    /// what the object's own rules refuse fails the save, with nothing written.
    @Test func aMergedObjectIsValidatedAgain() throws {
        let container = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let setup = container.newContext()
        let author = makeAuthor(setup)
        try setup.save()
        let theirs = container.newContext(), mine = container.newContext()
        mine.mergePolicy = .mergeByPropertyObjectTrump
        let theirAuthor = try theirs.existingObject(with: author.objectID, as: Author.self)
        let myAuthor = try mine.existingObject(with: author.objectID, as: Author.self)
        theirAuthor.bio = "spam"
        try theirs.save()
        myAuthor.rating = 2
        myAuthor.extraValidationMessage = "refuses the merged object"   // the fixture's validateForUpdate hook
        #expect {
            try mine.save()
        } throws: { error in
            (error as? ValidationError)?.failures.map(\.message) == ["refuses the merged object"]
        }
        let reader = container.newContext()
        #expect(try reader.existingObject(with: author.objectID, as: Author.self).rating == 0)
    }

    /// The main context's merge of other saves keeps an unsaved edit to one property while another
    /// property takes the merged value.
    @MainActor @Test func theMainContextKeepsAnUnsavedEditWhileMergingAnotherProperty() async throws {
        let container = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let main = container.mainContext
        let post = Post(context: main, title: "First", author: makeAuthor(main))
        try main.save()
        post.title = "Unsaved edit"
        let other = container.newContext()
        try other.existingObject(with: post.objectID, as: Post.self).likes = 42
        try other.save()
        var merged = false
        for _ in 0..<200 where !merged {
            try await Task.sleep(for: .milliseconds(10))
            merged = post.likes == 42
        }
        #expect(merged)
        #expect(post.title == "Unsaved edit" && main.hasChanges)
        main.mergePolicy = .mergeByPropertyObjectTrump
        try main.save()
        let reader = container.newContext()
        let stored = try reader.existingObject(with: post.objectID, as: Post.self)
        #expect(stored.title == "Unsaved edit" && stored.likes == 42)
    }
}
