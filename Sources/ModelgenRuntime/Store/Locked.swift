import Foundation

/// A value guarded by a lock, for state shared across threads (stores, caches).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Locked {
    /// The value cached under `key`, made by `make` (under the lock) the first time.
    package func value<Key: Hashable, Cached>(for key: Key, _ make: () throws -> Cached) rethrows -> Cached where Value == [Key: Cached] {
        try withLock { cache in
            if let cached = cache[key] { return cached }
            let made = try make()
            cache[key] = made
            return made
        }
    }
}
