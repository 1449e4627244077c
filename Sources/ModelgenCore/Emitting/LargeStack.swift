import Foundation

/// Work that recurses as deep as its input nests, run on a thread of its own with a large stack:
/// swift-mustache parses a section inside a section by recursion (a debug build overflowed the main
/// thread's 8 MB at about 1,000 nested sections), so a user's template is parsed, read and dropped
/// there, before its depth is known to be bounded: the scan of its text refuses deep templates first,
/// this is the bound should the engine read deeper nesting than the scan.
enum LargeStack {
    /// The stack of the thread: 256 MB of address space, of which only the pages touched are used (about
    /// 30,000 nested sections in a debug build).
    static let bytes = 256 << 20

    /// `body`'s result, computed on a new thread with a stack of `bytes`; the caller waits for it.
    static func run<T>(_ body: () throws -> T) throws -> T {
        try withoutActuallyEscaping(body) { body in
            let work = Work(body)
            let thread = Thread { work.run() }
            thread.stackSize = bytes
            thread.start()
            work.done.wait()
            return try work.result!.get()
        }
    }

    /// The closure and its result, handed between the two threads: written by the new thread before it
    /// signals `done`, read by the caller after. The closure is released before the signal: the thread
    /// may still hold this object when `run` returns, and `body` must not outlive it.
    private final class Work<T>: @unchecked Sendable {
        var body: (() throws -> T)?
        var result: Result<T, any Error>?
        let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping () throws -> T) { self.body = body }

        func run() {
            result = Result { try body!() }
            body = nil
            done.signal()
        }
    }
}
