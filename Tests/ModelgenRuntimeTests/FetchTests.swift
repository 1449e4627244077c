import Foundation
import Testing
import ModelgenPredicate
@testable import ModelgenRuntime

@Suite struct FetchTests {
    /// Three authors, five posts with likes 0, 50, 100, 150, 200, tags on some.
    func seed() throws -> (ManagedContainer, ManagedObjectContext) {
        let (container, context) = try makeContext()
        let ann = makeAuthor(context, "Ann"), bob = makeAuthor(context, "Bob")
        let reader = Reader(context: context)
        reader.firstName = "Rea"; reader.lastName = "Der"; reader.email = "r@x.y"; reader.createdAt = Date()
        let swift = Tag(context: context)
        swift.name = "swift"
        for (index, likes) in [0, 50, 100, 150, 200].enumerated() {
            let post = Post(context: context, title: "Post \(index)", author: index % 2 == 0 ? ann : bob)
            post.likes = Int64(likes)
            post.publishedAt = Date(timeIntervalSinceReferenceDate: Double(index) * 1000)
            if index >= 3 { post.addToTags(swift) }
        }
        try context.save()
        return (container, container.newContext())
    }

    @Test func predicatesSortsLimitsAndOffsets() throws {
        let (_, context) = try seed()
        var request = try FetchRequest<Post>(entityName: "Post", predicate: "likes >= $MIN AND author.lastName ==[c] 'ann'",
                                             variables: ["MIN": 50], sortDescriptors: [SortDescriptor("likes", ascending: false)])
        #expect(try context.fetch(request).map(\.likes) == [200, 100])
        request.fetchLimit = 1
        request.fetchOffset = 1
        #expect(try context.fetch(request).map(\.likes) == [100])
        #expect(try context.count(for: request) == 1)
        request.fetchLimit = nil
        request.fetchOffset = -3                                     // counts as none, as in SQL
        #expect(try context.fetch(request).map(\.likes) == [200, 100])
        #expect(try context.count(for: request) == 2)
        let tagged = try FetchRequest<Post>(entityName: "Post", predicate: "ANY tags.name == 'swift'")
        #expect(try context.count(for: tagged) == 2)
        let counted = try FetchRequest<Author>(entityName: "Author", predicate: "posts.@count >= 3")
        #expect(try context.fetch(counted).map(\.lastName) == ["Ann"])
        let none = try FetchRequest<Post>(entityName: "Post", predicate: "NONE tags.name == 'swift' AND title BEGINSWITH 'Post' AND title LIKE '*2'")
        #expect(try context.fetch(none).map(\.title) == ["Post 2"])
        let between = try FetchRequest<Post>(entityName: "Post", predicate: "likes BETWEEN {50, 150} AND NOT likes == 100")
        #expect(try context.count(for: between) == 2)
        // Variables inside the bounds (a fetch request template's `BETWEEN {$MIN, $MAX}`).
        var bounded = try FetchRequest<Post>(entityName: "Post", predicate: "likes BETWEEN {$MIN, $MAX}", sortDescriptors: [SortDescriptor("likes")])
        bounded.variables = ["MIN": Int64(50), "MAX": Int64(150)]
        #expect(try context.fetch(bounded).map(\.likes) == [50, 100, 150])
    }

    @Test func subentitiesAreIncludedByDefault() throws {
        let (_, context) = try seed()
        var people = FetchRequest<Person>(entityName: "Person", sortDescriptors: [SortDescriptor("lastName")])
        #expect(try context.fetch(people).map(\.lastName) == ["Ann", "Bob", "Der"])
        #expect(try context.fetch(people).contains { $0 is Reader })
        people.includesSubentities = false
        #expect(try context.fetch(people).isEmpty)   // Person is abstract: no objects of its own
    }

    @Test func pendingChangesAreReflected() throws {
        let (_, context) = try seed()
        let popular = try FetchRequest<Post>(entityName: "Post", predicate: "likes >= 150")
        let posts = try context.fetch(FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("likes")]))
        posts[0].likes = 999                 // changed, unsaved: now matches
        context.delete(posts[4])             // deleted, unsaved: gone
        let author = posts[0].author!
        let fresh = Post(context: context, title: "Fresh", author: author)
        fresh.likes = 500                    // inserted, unsaved: appears
        let result = Set(try context.fetch(popular).map(\.title))
        #expect(result == ["Post 0", "Post 3", "Fresh"])
    }

    @Test func templatesAndFetchedProperties() throws {
        let (_, context) = try seed()
        let request: FetchRequest<Post> = try BlogModel.model.fetchRequest(fromTemplate: "postsByAuthorName",
                                                                           variables: ["NAME": "ANN", "MIN_LIKES": Int64(100)])
        #expect(try context.fetch(request).map(\.title) == ["Post 4", "Post 2"])
        let tagged: FetchRequest<Post> = try BlogModel.model.fetchRequest(fromTemplate: "taggedPosts", variables: ["TAG_NAMES": ["swift", "go"]])
        #expect(try context.count(for: tagged) == 2)
        #expect(throws: RuntimeError.missingVariable("MIN_LIKES")) {
            let _: FetchRequest<Post> = try BlogModel.model.fetchRequest(fromTemplate: "postsByAuthorName", variables: ["NAME": "x"])
        }
        let ann = try #require(try context.fetch(try FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Ann'")).first)
        let popular = try ann.popularPosts
        #expect(popular.map(\.likes) == [200, 100])
        // $FETCHED_PROPERTY.userInfo.<key>: the fetched property's own entries (minLikes 50, prefix Post).
        #expect(try ann.chosenPosts.map(\.title) == ["Post 2", "Post 4"])
    }

    /// `$FETCHED_PROPERTY` is read as `$FETCHED_PROPERTY.userInfo.<key>`; another form is a model error
    /// naming the fetched property, and a key the userInfo lacks is NIL.
    @Test func fetchedPropertyVariableReadsTheUserInfo() throws {
        final class Shelf: ManagedObject {}
        func model(_ predicate: String) throws -> ManagedObjectModel {
            try ManagedObjectModel(name: "M", entities: [
                EntityDescription("Shelf", class: Shelf.self, attributes: [AttributeDescription("label", .string, optional: true)],
                                  fetchedProperties: [FetchedPropertyDescription("same", destination: "Shelf", predicate: predicate, userInfo: ["kind": "x"])]),
            ])
        }
        #expect(throws: RuntimeError.invalidModel("fetched property Shelf.same: $FETCHED_PROPERTY is read as $FETCHED_PROPERTY.userInfo.<key>, not $FETCHED_PROPERTY.name")) {
            try model("label == $FETCHED_PROPERTY.name")
        }
        let container = try ManagedContainer(model: try model("label == $FETCHED_PROPERTY.userInfo.missing"), store: .inMemory)
        let context = container.newContext()
        let shelf = try context.insertObject(entityName: "Shelf")
        _ = try context.insertObject(entityName: "Shelf")
        try shelf.setValue("x", forKey: "label")
        try context.save()
        #expect(try shelf.fetchedObjects(forProperty: "same").count == 1, "label == NIL: the one without a label")
    }

    @Test func fetchedObjectsAreFaultsUntilUsedThenUniqued() throws {
        let (_, context) = try seed()
        var request = FetchRequest<Post>(entityName: "Post")
        request.resultType = .faults
        let faults = try context.fetch(request)
        #expect(faults.allSatisfy { $0.isFault })
        _ = faults[0].title
        #expect(!faults[0].isFault)
        let again = try context.fetch(FetchRequest<Post>(entityName: "Post"))
        #expect(again[0] === faults[0])
    }

    @Test func invalidPredicatesAreErrors() {
        #expect(throws: RuntimeError.self) { try FetchPredicate("likes >") }
        // Asked again (texts parsed before are kept): still an error.
        #expect(throws: RuntimeError.self) { try FetchPredicate("likes >") }
    }

    /// Texts parsed before are answered from a cache: from several tasks at once, past the cache's
    /// size, each text still gives its own tree.
    @Test func aPredicateParsedAgainFromTheSameTextIsTheSameTree() async throws {
        let texts = (0..<600).map { "likes >= \($0) AND title BEGINSWITH 'p\($0)'" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for (index, text) in (task % 2 == 0 ? texts : texts.reversed()).enumerated() {
                        let description = try FetchPredicate(text).description
                        #expect(description.contains(">= \(task % 2 == 0 ? index : texts.count - 1 - index)"), "\(description)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try FetchPredicate(texts[7]).description == FetchPredicate(ModelgenPredicate.PredicateParser.parsePredicate(texts[7])).description)
    }
}
