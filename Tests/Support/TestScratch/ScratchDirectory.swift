import Foundation

/// This test process's scratch directory (in the temporary directory), removed with everything in it
/// when the process exits, so a direct `swift test` leaves no stores, `-wal`/`-shm` companions or
/// generated files behind (`make test` also runs the tests in a scratch `TMPDIR` it removes).
public let scratchDirectory: URL = {
    let url = scratchDirectoryURL()
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: scratchDirectoryURL()) }
    return url
}()

private func scratchDirectoryURL() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-tests-\(getpid())")
}

/// A fresh directory of its own in the scratch directory, for one test's stores and files.
public func temporaryDirectory() throws -> URL {
    let url = scratchDirectory.appendingPathComponent("case-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
