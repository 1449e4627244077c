#if PostgreSQL
import NIOCore

/// Runs a task's jobs on one NIO event loop. PostgresNIO's `COPY … FROM STDIN` is async only; the
/// store runs it in a task on its connection's event loop and waits on the calling thread, as it waits
/// for every other statement, so a save needs no thread of Swift's concurrency pool (which the
/// context's caller may be blocking) and never runs on the caller's actor.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `eventLoop` is Sendable and immutable; the class holds nothing else.
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
#endif
