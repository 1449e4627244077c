import Foundation

/// Work spread over all cores with results in order: the files of a model render side by side, their
/// views are built side by side, large models' entities are checked side by side, and the CLI writes
/// the files side by side (one item per task, so a large one does not hold up the rest; each result in
/// its place, so the output stays deterministic).
package enum ParallelMap {
    /// `body(0) … body(count - 1)`, run on all cores (in order on one core, or for fewer than 8 items);
    /// the first error, in index order, is thrown.
    package static func map<T: Sendable, E: Error>(_ count: Int, _ body: @Sendable (Int) throws(E) -> T) throws(E) -> [T] {
        let results = Slots<T, E>(count: count)
        if count < 8 || ProcessInfo.processInfo.activeProcessorCount <= 1 {
            for index in 0..<count { results.store(Result { () throws(E) in try body(index) }, at: index) }
        } else {
            DispatchQueue.concurrentPerform(iterations: count) { index in results.store(Result { () throws(E) in try body(index) }, at: index) }
        }
        return try results.values()
    }

    /// The slots the workers fill: each index is written by exactly one worker (into its own element of
    /// a fixed buffer, so no two threads touch the same memory), and read only after `concurrentPerform`
    /// returns.
    private final class Slots<T: Sendable, E: Error>: @unchecked Sendable {
        private let slots: UnsafeMutablePointer<Result<T, E>?>
        private let count: Int

        init(count: Int) {
            self.count = count
            slots = .allocate(capacity: max(count, 1))
            slots.initialize(repeating: nil, count: count)
        }

        deinit {
            slots.deinitialize(count: count)
            slots.deallocate()
        }

        func store(_ result: Result<T, E>, at index: Int) { slots[index] = result }

        func values() throws(E) -> [T] {
            var values: [T] = []
            values.reserveCapacity(count)
            for index in 0..<count { values.append(try slots[index]!.get()) }
            return values
        }
    }
}
