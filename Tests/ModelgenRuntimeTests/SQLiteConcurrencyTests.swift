import Foundation
import TestScratch
import Synchronization
import Testing
@testable import ModelgenRuntime

/// The SQLite store under concurrency: one writer, a pool of readers, bounded busy waits.
@Suite struct SQLiteConcurrencyTests {
    /// Another connection holds the write lock: a save waits the busy timeout, then fails with `.busy`,
    /// writes nothing and keeps the context's changes; reads go on meanwhile; once the lock is gone
    /// the same save succeeds.
    @Test func aLockedFileFailsTheSaveClearlyAfterTheBusyTimeoutAndReadsGoOn() throws {
        let url = try temporaryDirectory().appendingPathComponent("busy.sqlite")
        let store = try SQLiteStore(url: url, model: BlogModel.model,
                                    configuration: SQLiteConfiguration(busyTimeout: .milliseconds(200)))
        let container = ManagedContainer(model: BlogModel.model, store: store)
        let context = container.newContext()
        _ = makeAuthor(context, "Ann")
        try context.save()

        let other = try SQLiteConnection(path: url.path, create: false, configuration: SQLiteConfiguration(busyTimeout: .zero))
        try other.execute("BEGIN IMMEDIATE")
        _ = makeAuthor(context, "Bob")
        let started = ContinuousClock.now
        #expect {
            try context.save()
        } throws: { error in
            guard case .busy(_, let timeout, _)? = error as? SQLiteStoreError else { return false }
            return timeout == 200 && "\(error)".contains("busy timeout (200 ms)")
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(150) && waited < .seconds(5))
        #expect(context.hasChanges)
        // A fresh context reads the saved state while the other connection still holds the lock.
        #expect(try container.newContext().count(for: FetchRequest<Author>(entityName: "Author")) == 1)

        try other.execute("COMMIT")
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest<Author>(entityName: "Author")) == 2)
    }

    /// One thread moves likes between posts (the total stays 1,000) while three threads fetch every
    /// post again and again: each fetch sees one committed state, never a save half applied.
    @Test func readsDuringSavesSeeOnlyWholeSaves() throws {
        let url = try temporaryDirectory().appendingPathComponent("snapshots.sqlite")
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
        let seed = container.newContext()
        let author = makeAuthor(seed)
        for index in 0..<10 { Post(context: seed, title: "Post \(index)", author: author).likes = 100 }
        try seed.save()

        let writerDone = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let torn = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                if worker == 0 {
                    defer { writerDone.store(true, ordering: .releasing) }
                    let context = container.newContext(observation: .unobserved)
                    let posts = try context.fetch(FetchRequest<Post>(entityName: "Post"))
                    var generator = SystemRandomNumberGenerator()
                    for _ in 0..<200 {
                        let from = posts.randomElement(using: &generator)!, to = posts.randomElement(using: &generator)!
                        let amount = Int64.random(in: 0...min(from.likes, 30), using: &generator)
                        from.likes -= amount
                        to.likes += amount
                        try context.save()
                    }
                } else {
                    repeat {
                        let context = container.newContext(observation: .unobserved)
                        let posts = try context.fetch(FetchRequest<Post>(entityName: "Post"))
                        let total = posts.reduce(0) { $0 + $1.likes }
                        if posts.count != 10 || total != 1000 { torn.withLock { $0.append("\(posts.count) posts, \(total) likes") } }
                        reads.add(1, ordering: .relaxed)
                    } while !writerDone.load(ordering: .acquiring)
                }
            } catch {
                torn.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        #expect(torn.withLock { $0 } == [])
        #expect(reads.load(ordering: .relaxed) >= 3)
        let check = container.newContext()
        let final = try check.fetch(FetchRequest<Post>(entityName: "Post"))
        #expect(final.reduce(0) { $0 + $1.likes } == 1000)
    }

    /// A read that began before a save replaced an external binary still finds the old file; the
    /// file goes once that read ends.
    @Test func externalFilesOutliveTheReadsThatMayNameThem() throws {
        let (store, container) = try storeWithExternalFiles()
        let context = container.newContext()
        let author = makeAuthor(context)
        author.avatar = Data(repeating: 1, count: 4096)
        try context.save()
        func files() -> Set<String> { externalFiles(of: store) }
        let before = files()
        #expect(before.count == 1)

        try store.reading { _ in
            author.avatar = Data(repeating: 2, count: 4096)
            try context.save()
            #expect(files().isSuperset(of: before))   // the read in progress may still name the old file
            #expect(files().count == 2)
        }
        #expect(files().count == 1 && files().isDisjoint(with: before))
        let other = container.newContext()
        #expect((try other.existingObject(with: author.objectID) as? Author)?.avatar == Data(repeating: 2, count: 4096))
    }

    /// More concurrent reads than readers: the extra ones wait for a free reader, none fails.
    @Test func readsBeyondThePoolWaitForAFreeReader() throws {
        let url = try temporaryDirectory().appendingPathComponent("pool.sqlite")
        let container = try ManagedContainer(model: BlogModel.model,
                                             store: .sqliteConfigured(url, SQLiteConfiguration(maximumReaderCount: 2)))
        let seed = container.newContext()
        _ = makeAuthor(seed)
        try seed.save()
        let counts = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let count = (try? container.newContext().count(for: FetchRequest<Author>(entityName: "Author"))) ?? -1
            counts.withLock { $0.append(count) }
        }
        #expect(counts.withLock { $0 } == Array(repeating: 1, count: 8))
    }
}

/// The whole stress in a child process (it needs its own main actor and a second process of its own):
/// four importer actors and another process save into one file while the main context watches live
/// results; the child checks that nothing acknowledged is lost, the counter counts every save, live
/// results equal a fresh fetch, the observer saw every item and every context converged
/// (`modelgen-store-stress converge`; `make tsan` runs it under ThreadSanitizer).
@Suite struct ConcurrencyStressTests {
    @Test func importerActorsAndASecondProcessConvergeWithNothingLost() async throws {
        let path = try temporaryDirectory().appendingPathComponent("converge.sqlite").path
        let output = try await Task.detached { try runStress(["converge", path]) }.value
        #expect(output.hasPrefix("converge: 250 acknowledged saves") && !output.contains("FAIL"), "\(output)")
    }
}
