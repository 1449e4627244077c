import Foundation
import ModelgenPredicate

/// A `#Predicate` or `SortDescriptor` the runtime cannot run: names the expression (or key path) it
/// cannot translate. Thrown by the fetch, never answered by evaluating objects in memory instead.
public struct UnsupportedPredicateError: Error, CustomStringConvertible, Sendable {
    /// What cannot be translated, and what can.
    public var message: String
    public var description: String { message }
}

/// Translates Foundation's `Predicate` (`#Predicate<Item> { $0.quantity > 10 }`) and `SortDescriptor`
/// into the runtime's predicate form, so typed queries run exactly like string predicates: in SQL on
/// the SQL stores, with the same semantics in memory.
///
/// Key paths become property names through the model: an entity description's `keyPathNames`
/// (generated for every entity with generated code), a composite's `managedKeyPaths`, and `count` of a
/// to-many relationship as `@count`. Each value in the predicate becomes a bound variable, so dates,
/// UUIDs, objects, enums and arrays need no literal syntax.
struct FoundationPredicateTranslator {
    let model: ManagedObjectModel
    /// The values of the predicate, by the variable names standing for them.
    private(set) var variables: [String: Any?] = [:]
    private var boundValues = 0
    /// The predicate's own argument (`$0`): the evaluated object.
    fileprivate var argument: PredicateExpressions.VariableID?
    /// Variables of closures (`contains { … }`) and of optional chaining: the key path each stands for,
    /// or the SUBQUERY variable naming each element.
    fileprivate var bound: [PredicateExpressions.VariableID: ModelgenPredicate.Expression] = [:]
    private var subqueries = 0

    static let range = SourceRange(0, 0)

    init(model: ManagedObjectModel) { self.model = model }

    /// A predicate and its bound values.
    mutating func translate<Input>(_ predicate: Foundation.Predicate<Input>) throws -> ModelgenPredicate.Predicate {
        argument = predicate.variable.key
        return try condition(predicate.expression)
    }

    /// A sort descriptor: its key path's name, and the direction.
    func translate<Compared>(_ descriptor: Foundation.SortDescriptor<Compared>) throws -> SortDescriptor {
        guard let keyPath = descriptor.keyPath else {
            throw UnsupportedPredicateError(message: "SortDescriptor: a sort by a comparator without a key path cannot be translated; sort by a key path of a modeled property (SortDescriptor(\\.title))")
        }
        return SortDescriptor(try name(of: keyPath), ascending: descriptor.order == .forward)
    }

    // MARK: Terms

    /// What a node translates to: a condition, or a value (a key path, a bound value, NIL).
    enum Term {
        case condition(ModelgenPredicate.Predicate)
        case value(ModelgenPredicate.Expression)
    }

    mutating func term(_ node: Any) throws -> Term {
        guard let translatable = node as? any TranslatablePredicateExpression else { throw unsupported(node) }
        return try translatable.translate(&self)
    }

    /// A node as a condition: a Bool key path means `== YES`; a bound Bool is a constant.
    mutating func condition(_ node: Any) throws -> ModelgenPredicate.Predicate {
        switch try term(node) {
        case .condition(let predicate): return predicate
        case .value(let expression):
            if case .variable(let name) = expression.kind, let flag = variables[name] as? Bool {
                variables[name] = nil
                return .constant(flag, Self.range)
            }
            switch expression.kind {
            case .keyPath, .variableKeyPath: return comparison(expression, .equal, Expression(.bool(true), range: Self.range))
            default: throw unsupported(node, "a value used as a condition")
            }
        }
    }

    /// A node as a value.
    mutating func value(_ node: Any) throws -> ModelgenPredicate.Expression {
        guard case .value(let expression) = try term(node) else { throw unsupported(node, "a condition used as a value") }
        return expression
    }

    /// `base` followed by `components`: a key path from the object, or from a SUBQUERY's element.
    func appending(_ components: [KeyPathComponent], to base: ModelgenPredicate.Expression, _ node: Any) throws -> ModelgenPredicate.Expression {
        switch base.kind {
        case .evaluatedObject: return Self.keyPathExpression(components)
        case .keyPath(let head): return Self.keyPathExpression(head + components)
        case .variable(let name): return Expression(.variableKeyPath(name, components), range: Self.range)
        case .variableKeyPath(let name, let head): return Expression(.variableKeyPath(name, head + components), range: Self.range)
        default: throw unsupported(node, "a key path on a value that is not a modeled property")
        }
    }

    /// A value as a bound variable (`$_0`), or NIL for nil.
    mutating func bind(_ value: Any) -> ModelgenPredicate.Expression {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return Expression(.null, range: Self.range) }
            return bind(wrapped)
        }
        let name = "_\(boundValues)"
        boundValues += 1
        variables[name] = .some(value)
        return Expression(.variable(name), range: Self.range)
    }

    func comparison(_ left: ModelgenPredicate.Expression, _ op: ComparisonOperator, _ right: ModelgenPredicate.Expression,
                    modifier: ComparisonModifier = .direct) -> ModelgenPredicate.Predicate {
        .comparison(Comparison(modifier: modifier, left: left, operator: op, options: [], right: right,
                               operatorRange: Self.range, range: Self.range))
    }

    static func keyPathExpression(_ components: [KeyPathComponent]) -> ModelgenPredicate.Expression {
        components.isEmpty ? Expression(.evaluatedObject, range: range) : Expression(.keyPath(components), range: range)
    }

    // MARK: Names

    /// The property name a key path stands for: `title`, `address.city` for a composite's field, `@count`.
    func name(of keyPath: AnyKeyPath) throws -> String {
        let root = type(of: keyPath).rootType
        if let objectClass = root as? ManagedObject.Type {
            guard let entity = model.entity(for: objectClass) else {
                throw UnsupportedPredicateError(message: "#Predicate: \(objectClass) is not the class of an entity of model '\(model.name)'")
            }
            if let name = entity.keyPathNames[keyPath] { return name }
            throw UnsupportedPredicateError(message: "#Predicate: a key path of \(objectClass) that names no modeled attribute or relationship of entity '\(entity.name)' (fetched and computed properties are not stored\(entity.keyPathNames.isEmpty ? "; the entity's description lists no key paths: its class is written by hand, pass keyPaths: to its EntityDescription" : ""))")
        }
        if let composite = root as? any ManagedComposite.Type {
            if let name = composite.anyKeyPathNames[keyPath] { return name }
            throw UnsupportedPredicateError(message: "#Predicate: a key path of \(root) that names none of its fields")
        }
        if let collection = root as? any ToManyKeyPaths.Type, keyPath == collection.countKeyPath { return "@count" }
        throw UnsupportedPredicateError(message: "#Predicate: a key path of \(root) cannot be translated: only modeled properties, composite fields and `count` of a to-many relationship can")
    }

    // MARK: Errors

    static let supported = "==, !=, <, <=, >, >=, &&, ||, !, comparisons with nil, optional chaining (?.) and !, contains and starts(with:) on strings, [values].contains(property), ranges (a...b).contains, count of a to-many relationship, contains(where:) and allSatisfy over a to-many relationship"

    func unsupported(_ node: Any, _ detail: String? = nil) -> UnsupportedPredicateError {
        let type = String(describing: Swift.type(of: node))
        let name = type.prefix { $0 != "<" }
        return UnsupportedPredicateError(message: "#Predicate: \(detail ?? "the expression PredicateExpressions.\(name)") cannot be translated to a fetch predicate; supported: \(Self.supported)")
    }
}

/// A Foundation predicate expression the translator knows.
protocol TranslatablePredicateExpression {
    func translate(_ translator: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term
}

/// `Set<Tag>` and `[Post]`: their `count` is the relationship's `@count`.
protocol ToManyKeyPaths {
    static var countKeyPath: AnyKeyPath { get }
}

extension Set: ToManyKeyPaths {
    static var countKeyPath: AnyKeyPath { \Set<Element>.count }
}

extension Array: ToManyKeyPaths {
    static var countKeyPath: AnyKeyPath { \[Element].count }
}

// MARK: - The expressions

extension PredicateExpressions.Variable: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        if key == t.argument { return .value(Expression(.evaluatedObject, range: FoundationPredicateTranslator.range)) }
        guard let expression = t.bound[key] else { throw t.unsupported(self, "a variable of an enclosing closure") }
        return .value(expression)
    }
}

extension PredicateExpressions.KeyPath: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        let base = try t.value(root)
        return .value(try t.appending([KeyPathComponent](dotted: try t.name(of: keyPath)), to: base, self))
    }
}

extension PredicateExpressions.Value: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .value(t.bind(value))
    }
}

extension PredicateExpressions.NilLiteral: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .value(Expression(.null, range: FoundationPredicateTranslator.range))
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        try t.term(inner)
    }
}

/// `$0.author?.name`: the closure's variable stands for the wrapped key path; nil propagates as in a
/// key path through a nil to-one relationship.
extension PredicateExpressions.OptionalFlatMap: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        let base = try t.value(wrapped)
        switch base.kind {
        case .keyPath, .evaluatedObject, .variable, .variableKeyPath: t.bound[variable.key] = base
        default: throw t.unsupported(self, "optional chaining on a value that is not a modeled property")
        }
        return try t.term(transform)
    }
}

extension PredicateExpressions.Equal: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .condition(t.comparison(try t.value(lhs), .equal, try t.value(rhs)))
    }
}

extension PredicateExpressions.NotEqual: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .condition(t.comparison(try t.value(lhs), .notEqual, try t.value(rhs)))
    }
}

extension PredicateExpressions.Comparison: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        let op: ComparisonOperator
        switch self.op {
        case .lessThan: op = .lessThan
        case .lessThanOrEqual: op = .lessThanOrEqual
        case .greaterThan: op = .greaterThan
        case .greaterThanOrEqual: op = .greaterThanOrEqual
        @unknown default: throw t.unsupported(self, "the comparison \(self.op)")
        }
        return .condition(t.comparison(try t.value(lhs), op, try t.value(rhs)))
    }
}

extension PredicateExpressions.Conjunction: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .condition(.and(try t.flattened(lhs, rhs) { if case .and(let items, _) = $0 { items } else { nil } }, FoundationPredicateTranslator.range))
    }
}

extension PredicateExpressions.Disjunction: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .condition(.or(try t.flattened(lhs, rhs) { if case .or(let items, _) = $0 { items } else { nil } }, FoundationPredicateTranslator.range))
    }
}

extension FoundationPredicateTranslator {
    /// The conditions of both sides of `&&` (`||`), a side of the same operator spliced in: `a && b && c` is one AND of three.
    mutating func flattened(_ lhs: Any, _ rhs: Any, _ items: (ModelgenPredicate.Predicate) -> [ModelgenPredicate.Predicate]?) throws -> [ModelgenPredicate.Predicate] {
        try [condition(lhs), condition(rhs)].flatMap { items($0) ?? [$0] }
    }
}

extension PredicateExpressions.Negation: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .condition(.not(try t.condition(wrapped), FoundationPredicateTranslator.range))
    }
}

/// `$0.title.contains("swift")`: CONTAINS.
extension PredicateExpressions.CollectionContainsCollection: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .condition(t.comparison(try t.value(base), .contains, try t.value(other)))
    }
}

/// `$0.title.starts(with: "A")`: BEGINSWITH.
extension PredicateExpressions.SequenceStartsWith: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .condition(t.comparison(try t.value(base), .beginsWith, try t.value(prefix)))
    }
}

/// `["a", "b"].contains($0.name)`: IN; `$0.tags.contains(tag)`: ANY tags == tag.
extension PredicateExpressions.SequenceContains: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        let collection = try t.value(sequence), item = try t.value(element)
        if case .keyPath = collection.kind {
            return .condition(t.comparison(collection, .equal, item, modifier: .any))
        }
        return .condition(t.comparison(item, .in, collection))
    }
}

/// `(1...5).contains($0.rating)`: BETWEEN {1, 5}.
extension PredicateExpressions.RangeExpressionContains: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        let item = try t.value(element)
        if let closed = range as? any ClosedRangeBounds {
            let (lower, upper) = try closed.bounds(&t)
            return .condition(t.comparison(item, .between, Expression(.aggregate([lower, upper]), range: FoundationPredicateTranslator.range)))
        }
        if let halfOpen = range as? any HalfOpenRangeBounds {
            let (lower, upper) = try halfOpen.bounds(&t)
            return .condition(.and([t.comparison(item, .greaterThanOrEqual, lower), t.comparison(item, .lessThan, upper)],
                                   FoundationPredicateTranslator.range))
        }
        throw t.unsupported(range, "a range that is neither a...b nor a..<b")
    }
}

protocol ClosedRangeBounds {
    func bounds(_ t: inout FoundationPredicateTranslator) throws -> (ModelgenPredicate.Expression, ModelgenPredicate.Expression)
}

protocol HalfOpenRangeBounds {
    func bounds(_ t: inout FoundationPredicateTranslator) throws -> (ModelgenPredicate.Expression, ModelgenPredicate.Expression)
}

extension PredicateExpressions.ClosedRange: ClosedRangeBounds {
    func bounds(_ t: inout FoundationPredicateTranslator) throws -> (ModelgenPredicate.Expression, ModelgenPredicate.Expression) {
        (try t.value(lower), try t.value(upper))
    }
}

extension PredicateExpressions.Range: HalfOpenRangeBounds {
    func bounds(_ t: inout FoundationPredicateTranslator) throws -> (ModelgenPredicate.Expression, ModelgenPredicate.Expression) {
        (try t.value(lower), try t.value(upper))
    }
}

/// `$0.tags.contains { $0.name == "swift" }`: ANY tags.name == "swift" (one comparison on the element).
extension PredicateExpressions.SequenceContainsWhere: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .condition(try t.elementComparison(sequence, variable.key, test, modifier: .any, self))
    }
}

/// `$0.tags.allSatisfy { $0.name != "draft" }`: ALL tags.name != "draft".
extension PredicateExpressions.SequenceAllSatisfy: TranslatablePredicateExpression {
    func translate(_ t: inout FoundationPredicateTranslator) throws -> FoundationPredicateTranslator.Term {
        .condition(try t.elementComparison(sequence, variable.key, test, modifier: .all, self))
    }
}

extension FoundationPredicateTranslator {
    /// The test of `contains(where:)` / `allSatisfy` over a to-many key path: ANY or ALL of one comparison
    /// of the element's property, else a SUBQUERY counting the elements that pass (or fail) the test.
    mutating func elementComparison(_ sequence: Any, _ variable: PredicateExpressions.VariableID, _ test: Any,
                                    modifier: ComparisonModifier, _ node: Any) throws -> ModelgenPredicate.Predicate {
        let collection = try value(sequence)
        bound[variable] = collection
        if case .comparison(var comparison) = try condition(test), comparison.modifier == .direct, case .keyPath = comparison.left.kind {
            comparison.modifier = modifier
            return .comparison(comparison)
        }
        switch collection.kind {
        case .keyPath, .variableKeyPath: break
        default: throw unsupported(node, "\(modifier == .any ? "contains(where:)" : "allSatisfy") over other than a to-many relationship")
        }
        let name = "_e\(subqueries)"
        subqueries += 1
        bound[variable] = Expression(.variable(name), range: Self.range)
        var inner = try condition(test)
        if modifier == .all { inner = .not(inner, Self.range) }
        let count = Expression(.subquery(collection: collection, variable: name, predicate: inner,
                                         suffix: [KeyPathComponent(.collectionOperator("count"), range: Self.range)]), range: Self.range)
        return comparison(count, modifier == .all ? .equal : .greaterThan, Expression(.number("0"), range: Self.range))
    }
}
