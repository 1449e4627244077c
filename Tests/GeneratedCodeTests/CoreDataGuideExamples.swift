// The code of docs/coming-from-core-data.md, compiled here (Swift 6 mode, warnings as errors) against
// the Blog example's generated classes and run by the tests below.
import Foundation
import ModelgenRuntime
import Testing

// MARK: The container and its contexts

/// `NSPersistentContainer(name:)` + `loadPersistentStores`, or SwiftData's `ModelContainer`.
func openBlog(at url: URL) throws -> ManagedContainer {
    try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
}

/// `viewContext` / `mainContext`: main-actor, merges every other context's saves as they commit.
@MainActor func recentPosts(_ container: ManagedContainer) throws -> LiveResults<Post> {
    let request = FetchRequest(predicate: #Predicate<Post> { $0.publishedAt != nil },
                               sortBy: [SortDescriptor(\.publishedAt, order: .reverse)])
    return try LiveResults(request, in: container.mainContext)   // NSFetchedResultsController, @Query
}

/// `performBackgroundTask` / `@ModelActor`: objects stay inside, IDs come out.
func importPosts(_ titles: [String], by author: ObjectID, into container: ManagedContainer) async throws -> [ObjectID] {
    try await container.performBackgroundTask { context in
        context.mergePolicy = .mergeByPropertyObjectTrump       // NSMergeByPropertyObjectTrumpMergePolicy
        let writer = try context.existingObject(with: author, as: Author.self)
        let posts = titles.map { Post(context: context, id: UUID(), title: $0, body: "", author: writer) }
        try context.save()
        return posts.map(\.objectID)
    }
}

// MARK: Requests

/// `NSFetchRequest` with a format string and `fetchLimit`, then the same as `#Predicate`.
func popularTitles(_ context: ManagedObjectContext) throws -> [String] {
    var request = Post.fetchRequest()
    request.predicate = try FetchPredicate("likes >= 100 AND author.lastName BEGINSWITH[c] 'a'")
    request.sortDescriptors = [SortDescriptor("likes", ascending: false)]
    request.fetchLimit = 10
    let typed = FetchRequest(predicate: #Predicate<Post> { $0.likes >= 100 }, sortBy: [SortDescriptor(\.title)])
    return try context.fetch(request).map(\.title) + context.fetch(typed).map(\.title)
}

/// `NSBatchDeleteRequest` and `NSBatchUpdateRequest`: set-based, one statement each on the SQL stores,
/// and unlike Core Data's the change sets reach every context (no `mergeChanges(fromRemoteContextSave:)`).
func archiveQuietPosts(_ context: ManagedObjectContext) throws -> (archived: Int, deleted: Int) {
    let archived = try context.batchUpdate(FetchRequest(predicate: #Predicate<Post> { $0.likes == 0 }), set: ["status": 2])
    let deleted = try context.batchDelete(FetchRequest(predicate: #Predicate<Tag> { $0.posts.count == 0 }))
    return (archived.updated.count, deleted.deleted.count)
}

// MARK: Persistent history

/// `NSPersistentHistoryChangeRequest.fetchHistory(after:)` and `deleteHistory(before:)`.
func changesSince(_ token: Int64?, in container: ManagedContainer) throws -> (inserted: Int, last: Int64?) {
    let transactions = try container.history(after: token)
    let inserted = transactions.reduce(0) { $0 + $1.changes.inserted.count }
    if let last = transactions.last?.token { try container.pruneHistory(through: last) }
    return (inserted, transactions.last?.token ?? token)
}

// MARK: The tests that run them

@Suite struct CoreDataGuideExamples {
    @Test @MainActor func theGuideRunsOnASQLiteStore() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("guide-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try openBlog(at: url)
        let context = container.newContext()
        let ann = Author(context: context)
        ann.firstName = "Ann"
        ann.lastName = "Archer"
        ann.email = "ann@example.com"
        let hello = Post(context: context, id: UUID(), title: "Hello", body: "…", author: ann)
        hello.likes = 120
        hello.publishedAt = Date(timeIntervalSince1970: 10)
        _ = Tag(context: context, name: "unused")
        try context.save()

        let live = try recentPosts(container)
        #expect(live.objects.map(\.title) == ["Hello"])
        let (_, start) = try changesSince(nil, in: container)
        let imported = try await importPosts(["Quiet", "Loud"], by: ann.objectID, into: container)
        #expect(imported.count == 2)
        #expect(try changesSince(start, in: container).inserted == 2)
        #expect(try popularTitles(container.newContext()) == ["Hello", "Hello"])
        let (archived, deleted) = try archiveQuietPosts(container.newContext())
        #expect(archived == 2 && deleted == 1)
    }
}
