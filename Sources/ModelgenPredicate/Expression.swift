/// One step of a key path: a key (`author`, `name`) or a collection operator (`@count`).
public struct KeyPathComponent: Hashable, Sendable {
    /// What a component names.
    public enum Kind: Hashable, Sendable {
        /// A property name.
        case key(String)
        /// A collection operator, without the `@`: `count`, `sum`, `avg`, `min`, `max`.
        case collectionOperator(String)
        /// An index into the collection before it: `[FIRST]`, `[LAST]`, `[SIZE]` (its count), `[2]`.
        case index(CollectionIndex)
    }

    /// The key or operator.
    public var kind: Kind
    /// Where the component is written.
    public var range: SourceRange

    /// Creates a component.
    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }

    /// The text as written in a key path (`name`, `@count`, `[FIRST]`).
    public var text: String {
        switch kind {
        case .key(let name): return name
        case .collectionOperator(let name): return "@" + name
        case .index(let index): return "[" + index.text + "]"
        }
    }
}

/// The index of NSPredicate's `array[index]`: a position, or FIRST, LAST or SIZE.
public enum CollectionIndex: Hashable, Sendable {
    /// `FIRST`: the first element.
    case first
    /// `LAST`: the last element.
    case last
    /// `SIZE`: the number of elements.
    case size
    /// A 0-based position.
    case position(Int)

    /// As written between the brackets.
    public var text: String {
        switch self {
        case .first: return "FIRST"
        case .last: return "LAST"
        case .size: return "SIZE"
        case .position(let n): return String(n)
        }
    }
}

extension Array where Element == KeyPathComponent {
    /// The components of a dotted key path as sort descriptors and key-path tables write it
    /// (`author.name`, `tags.@count`), without positions.
    public init(dotted text: String) {
        self = text.split(separator: ".").map { part in
            part.hasPrefix("@") ? KeyPathComponent(.collectionOperator(String(part.dropFirst())), range: SourceRange(0, 0))
                : KeyPathComponent(.key(String(part)), range: SourceRange(0, 0))
        }
    }

    /// The key path as written: components joined by dots, an index right after its collection
    /// (`posts[FIRST].title`).
    public var keyPathText: String {
        var text = ""
        for component in self {
            if !text.isEmpty, case .index = component.kind {} else if !text.isEmpty { text += "." }
            text += component.text
        }
        return text
    }
}

/// The collection operators the predicate language knows.
public enum CollectionOperator: String, CaseIterable, Sendable {
    /// `@count`: the number of elements.
    case count
    /// `@sum`: the sum of an attribute's values.
    case sum
    /// `@avg`: their mean.
    case avg
    /// `@min`: the smallest.
    case min
    /// `@max`: the largest.
    case max
}

/// A value-producing expression: the operands of a comparison, and derivation expressions.
public struct Expression: Hashable, Sendable {
    /// The kinds of expression.
    public indirect enum Kind: Hashable, Sendable {
        /// A key path evaluated on the object (`author.lastName`, `tags.@count`).
        case keyPath([KeyPathComponent])
        /// `SELF`: the object itself.
        case evaluatedObject
        /// `$NAME`: substituted before evaluation.
        case variable(String)
        /// A string literal.
        case string(String)
        /// A decimal number literal as written (`-3`, `2.5`, `1e3`); `isInteger` tells which.
        case number(String)
        /// `TRUE`/`YES` or `FALSE`/`NO`.
        case bool(Bool)
        /// `NIL` or `NULL`.
        case null
        /// `{a, b, c}`: a literal collection (right side of `IN`, `BETWEEN`).
        case aggregate([Expression])
        /// A function: `now()`, `lowercase:(title)`, `uppercase:(x)`, `canonical:(x)`.
        case function(String, [Expression])
        /// `$x.name`: a key path on a variable (a SUBQUERY's variable, `$FETCH_SOURCE`).
        case variableKeyPath(String, [KeyPathComponent])
        /// `SUBQUERY(collection, $x, predicate)` and the key path after it (`.@count`): the elements of
        /// a to-many collection for which the predicate holds, `$x` (and bare key paths) naming each.
        case subquery(collection: Expression, variable: String, predicate: Predicate, suffix: [KeyPathComponent])
    }

    /// What the expression is.
    public var kind: Kind
    /// Where it is written.
    public var range: SourceRange

    /// Creates an expression.
    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }

    /// True for a number literal without fraction or exponent.
    public var isIntegerLiteral: Bool {
        if case .number(let text) = kind { return !text.contains(where: { ".eE".contains($0) }) }
        return false
    }
}
