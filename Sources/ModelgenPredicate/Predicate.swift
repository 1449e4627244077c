/// The comparison operators of the predicate language.
public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    /// `==` (also written `=`).
    case equal = "=="
    /// `!=` (also `<>`).
    case notEqual = "!="
    /// `<`.
    case lessThan = "<"
    /// `<=` (also `=<`).
    case lessThanOrEqual = "<="
    /// `>`.
    case greaterThan = ">"
    /// `>=` (also `=>`).
    case greaterThanOrEqual = ">="
    /// `BETWEEN {low, high}`, both bounds included.
    case between = "BETWEEN"
    /// `IN`: the left value is in the collection on the right.
    case `in` = "IN"
    /// `CONTAINS`: a string contains another, or a collection an element.
    case contains = "CONTAINS"
    /// `BEGINSWITH`.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`.
    case endsWith = "ENDSWITH"
    /// `LIKE`: a pattern with `*` and `?` wildcards.
    case like = "LIKE"
    /// `MATCHES`: a regular expression (ICU) matching the whole string.
    case matches = "MATCHES"

    /// True for the operators that work on strings (`BEGINSWITH`, `LIKE`, …).
    public var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .like, .matches: return true
        case .contains: return true
        default: return false
        }
    }

    /// True for `< <= > >=`.
    public var isOrdering: Bool {
        switch self {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: return true
        default: return false
        }
    }
}

/// `[c]`, `[d]`, `[cd]` after a string comparison.
public struct ComparisonOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `[c]`: case-insensitive.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)

    /// The options as written, `[cd]`, or the empty string.
    public var text: String {
        if isEmpty { return "" }
        return "[" + (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "") + "]"
    }
}

/// `ANY`, `ALL`, `NONE` before a comparison whose left side crosses a to-many relationship.
public enum ComparisonModifier: String, Hashable, Sendable {
    /// No modifier: the left side is one value.
    case direct = ""
    /// `ANY`: some element satisfies the comparison.
    case any = "ANY"
    /// `ALL`: every element does.
    case all = "ALL"
    /// `NONE`: no element does.
    case none = "NONE"
}

/// One comparison: `[modifier] left operator[options] right`.
public struct Comparison: Hashable, Sendable {
    /// `ANY`, `ALL`, `NONE` or none.
    public var modifier: ComparisonModifier
    /// The left operand.
    public var left: Expression
    /// The operator.
    public var `operator`: ComparisonOperator
    /// `[c]`, `[d]`, `[cd]`: case- and diacritic-insensitive string comparison.
    public var options: ComparisonOptions
    /// The right operand.
    public var right: Expression
    /// Where the operator (with its options) is written.
    public var operatorRange: SourceRange
    /// The whole comparison, modifier included.
    public var range: SourceRange

    /// Creates a comparison.
    public init(modifier: ComparisonModifier, left: Expression, operator: ComparisonOperator,
                options: ComparisonOptions, right: Expression, operatorRange: SourceRange, range: SourceRange) {
        self.modifier = modifier
        self.left = left
        self.operator = `operator`
        self.options = options
        self.right = right
        self.operatorRange = operatorRange
        self.range = range
    }
}

/// A parsed predicate: the abstract syntax tree of an NSPredicate-format string.
public indirect enum Predicate: Hashable, Sendable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool, SourceRange)
    /// A comparison.
    case comparison(Comparison)
    /// `NOT` and the predicate it negates.
    case not(Predicate, SourceRange)
    /// `AND` of two or more predicates.
    case and([Predicate], SourceRange)
    /// `OR` of two or more predicates.
    case or([Predicate], SourceRange)

    /// Where the predicate is written.
    public var range: SourceRange {
        switch self {
        case .constant(_, let r), .not(_, let r), .and(_, let r), .or(_, let r): return r
        case .comparison(let c): return c.range
        }
    }

    /// Every comparison in the predicate, in source order.
    public var comparisons: [Comparison] {
        switch self {
        case .constant: return []
        case .comparison(let c): return [c]
        case .not(let p, _): return p.comparisons
        case .and(let ps, _), .or(let ps, _): return ps.flatMap(\.comparisons)
        }
    }

    /// The names of the `$VARIABLES` the predicate uses, in order of first use.
    public var variableNames: [String] {
        var seen: Set<String> = []
        var names: [String] = []
        func visit(_ e: Expression) {
            switch e.kind {
            case .variable(let name), .variableKeyPath(let name, _):
                if seen.insert(name).inserted { names.append(name) }
            case .aggregate(let items), .function(_, let items):
                items.forEach(visit)
            case .subquery(let collection, let variable, let predicate, _):
                visit(collection)
                // The subquery's own variable names each element: no value is given for it.
                for name in predicate.variableNames where name != variable && seen.insert(name).inserted { names.append(name) }
            default:
                break
            }
        }
        for c in comparisons {
            visit(c.left)
            visit(c.right)
        }
        return names
    }
}

extension Predicate {
    /// The predicate with every expression replaced by `transform`'s result, innermost first (inside
    /// aggregates, function arguments and SUBQUERY predicates too).
    public func mapExpressions(_ transform: (Expression) -> Expression) -> Predicate {
        switch self {
        case .constant: return self
        case .not(let inner, let range): return .not(inner.mapExpressions(transform), range)
        case .and(let items, let range): return .and(items.map { $0.mapExpressions(transform) }, range)
        case .or(let items, let range): return .or(items.map { $0.mapExpressions(transform) }, range)
        case .comparison(var c):
            c.left = c.left.mapExpressions(transform)
            c.right = c.right.mapExpressions(transform)
            return .comparison(c)
        }
    }
}

extension Expression {
    /// The expression with it and every expression inside it replaced by `transform`'s result, innermost first.
    public func mapExpressions(_ transform: (Expression) -> Expression) -> Expression {
        var copy = self
        switch kind {
        case .aggregate(let items): copy.kind = .aggregate(items.map { $0.mapExpressions(transform) })
        case .function(let name, let arguments): copy.kind = .function(name, arguments.map { $0.mapExpressions(transform) })
        case .subquery(let collection, let variable, let predicate, let suffix):
            copy.kind = .subquery(collection: collection.mapExpressions(transform), variable: variable,
                                  predicate: predicate.mapExpressions(transform), suffix: suffix)
        default: break
        }
        return transform(copy)
    }
}
