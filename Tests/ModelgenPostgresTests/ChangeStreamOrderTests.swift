import Foundation
import ModelgenRuntime
import Testing

/// Saves of one process running at once reach `container.changes` once each and in the order they
/// committed (the store's history order). Found by the history checker (`make history`): two
/// background contexts' saves could be heard in the other order, each context publishing after its
/// commit returned.
@Suite struct ChangeStreamOrderTests {
    final class Heard: @unchecked Sendable {
        // @unchecked: `changes` is used under `lock` only.
        private let lock = NSLock()
        private var changes: [ChangeSet] = []
        func append(_ change: ChangeSet) { lock.withLock { changes.append(change) } }
        var all: [ChangeSet] { lock.withLock { changes } }
    }

    /// The contract behind it: a store calls `StoreChanges.published` before it commits anything
    /// else. A second commit that starts while the first one's publication runs waits for it.
    @Test(arguments: availableKinds)
    func aStorePublishesASaveBeforeItCommitsTheNext(_ kind: StoreKind) throws {
        let (store, _) = try kind.makeStore()
        @Sendable func changes(_ summary: String, published: @escaping @Sendable (ChangeSet) -> Void) -> StoreChanges {
            var changes = StoreChanges()
            changes.inserted = [StoreRow(id: ObjectID(entityName: "Task", key: -1), version: 0, values: [.string(summary), .reference(nil)])]
            changes.published = published
            return changes
        }
        let order = Heard()
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        // Threads, not tasks: the commits block, and the test must not take the concurrency pool's threads.
        Thread {
            _ = try? store.commit(changes("first") { change in
                entered.signal()
                release.wait()
                order.append(change)
            })
            done.signal()
        }.start()
        entered.wait()
        Thread {
            _ = try? store.commit(changes("second") { order.append($0) })
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(order.all.isEmpty, "\(kind): the second save committed while the first one's publication ran")
        release.signal()
        done.wait()
        done.wait()
        let published = order.all.map(\.inserted)
        #expect(published.count == 2 && published[0][0].key < published[1][0].key, "\(kind): \(published)")
    }

    @Test(arguments: availableKinds.filter { $0 != .inMemory })
    func concurrentSavesAreHeardInCommitOrder(_ kind: StoreKind) async throws {
        let (store, _) = try kind.makeStore()
        let container = ManagedContainer(model: semanticsModel, store: store)
        let heard = Heard()
        let changes = container.changes
        let listening = Task.detached { for await change in changes { heard.append(change) } }
        let writers = 6, savesEach = 40
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for save in 0..<savesEach {
                        _ = try? await container.performBackgroundTask { context in
                            _ = try context.make("Task", ["summary": "\(writer)-\(save)"])
                            try context.save()
                        }
                    }
                }
            }
        }
        let history = try container.history().map(\.changes)
        #expect(history.count == writers * savesEach, "\(kind)")
        for _ in 0..<500 where heard.all.count < history.count { try await Task.sleep(for: .milliseconds(10)) }
        listening.cancel()
        #expect(heard.all.count == history.count, "\(kind): every save heard once")
        #expect(heard.all.map(\.inserted) == history.map(\.inserted), "\(kind): in commit order")
    }
}
