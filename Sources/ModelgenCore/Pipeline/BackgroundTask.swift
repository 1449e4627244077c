import Foundation

/// Work started on another thread while the caller goes on, its result waited for where it is needed:
/// the pipeline loads its templates while the models are parsed and validated (which leave a core idle
/// part of the time) instead of after them.
package final class BackgroundTask<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchGroup()
    /// Written once, by the task, before `done` is left; read only after waiting for `done`.
    private var result: Value?

    /// Starts `body` on a global queue.
    package init(_ body: @escaping @Sendable () -> Value) {
        done.enter()
        DispatchQueue.global().async {
            self.result = body()
            self.done.leave()
        }
    }

    /// The result, once the task has finished (waiting for it when it has not).
    package var value: Value {
        done.wait()
        return result!
    }
}
