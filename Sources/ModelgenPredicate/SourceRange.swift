/// A half-open range of positions inside a predicate or expression string,
/// counted in Unicode scalars from the start of the string (0-based).
///
/// Unicode scalars are what libyaml counts columns in, so a range maps onto a
/// column of the model file by plain addition.
public struct SourceRange: Hashable, Sendable, CustomStringConvertible {
    /// The offset of the first scalar.
    public var start: Int
    /// The offset one past the last scalar.
    public var end: Int

    /// Creates a range from `start` up to (not including) `end`.
    public init(_ start: Int, _ end: Int) {
        self.start = start
        self.end = max(start, end)
    }

    /// The smallest range covering both `self` and `other`.
    public func union(_ other: SourceRange) -> SourceRange {
        SourceRange(min(start, other.start), max(end, other.end))
    }

    public var description: String { "\(start)..<\(end)" }
}

/// A syntax error in a predicate, expression or sort descriptor string.
public struct PredicateSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in words fit for a compiler-style diagnostic.
    public var message: String
    /// Where in the string the problem is.
    public var range: SourceRange

    /// Creates an error with a message and its position in the string.
    public init(_ message: String, at range: SourceRange) {
        self.message = message
        self.range = range
    }

    public var description: String { "\(range.start): \(message)" }
}
