import Foundation

/// The functions `FUNCTION(receiver, 'selector:', arguments…)` calls in predicates. Core Data sends the
/// selector to the receiver as an Objective-C message (which its SQLite store refuses in fetches);
/// ModelgenRuntime has no messages to send, so code registers a Swift function for each selector a
/// model uses. Such predicates run on objects (the SQL stores report them through `onInMemoryFetch`).
///
/// ```swift
/// PredicateFunctions.register("daysSince:") { receiver, arguments in
///     guard let start = arguments.first as? Date else { return nil }
///     return Date().timeIntervalSince(start) / 86_400
/// }
/// // predicate: FUNCTION(SELF, 'daysSince:', createdAt) > 30
/// ```
public enum PredicateFunctions {
    /// A function: the receiver's value (an object, a number, a string, nil, …) and the arguments'
    /// values; the result is compared as a predicate value (numbers, strings, dates, Bool, nil).
    public typealias Function = @Sendable (_ receiver: Any?, _ arguments: [Any?]) throws -> Any?

    private static let functions = Locked<[String: Function]>([:])

    /// Registers (or replaces) the function for a selector, as written in the predicate (`daysSince:`).
    public static func register(_ selector: String, _ function: @escaping Function) {
        functions.withLock { $0[selector] = function }
    }

    /// Removes a selector's function.
    public static func unregister(_ selector: String) {
        functions.withLock { $0[selector] = nil }
    }

    static func call(_ selector: String, receiver: Any?, arguments: [Any?]) throws -> Any? {
        guard let function = functions.withLock({ $0[selector] }) else {
            throw RuntimeError.invalidPredicate("FUNCTION(…, '\(selector)', …): no function is registered for '\(selector)'; register one with PredicateFunctions.register(\"\(selector)\") { receiver, arguments in … }")
        }
        return try function(receiver, arguments)
    }
}
