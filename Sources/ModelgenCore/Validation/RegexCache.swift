import Foundation

/// Compiled `regex` bounds by pattern, shared by the validators of one model's chunks (nil: the pattern
/// does not compile). Models repeat patterns across entities, and compiling one with
/// `NSRegularExpression` (the engine the runtime matches with, as Core Data does) costs far more than
/// a lookup: once per model, not once per chunk.
final class RegexCache: @unchecked Sendable {
    private let lock = NSLock()
    private var compiled: [String: NSRegularExpression?] = [:]

    /// The compiled pattern, nil when it does not compile.
    func expression(for pattern: String) -> NSRegularExpression? {
        lock.lock()
        defer { lock.unlock() }
        if let found = compiled[pattern] { return found }
        let expression = try? NSRegularExpression(pattern: pattern)
        compiled[pattern] = .some(expression)
        return expression
    }
}
