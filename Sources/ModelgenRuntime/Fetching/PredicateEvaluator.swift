import Foundation
import ModelgenPredicate

/// Evaluates predicates and expressions of the shared predicate language on managed objects,
/// following key paths through relationships (to-many ones as collections), with `$VARIABLES`
/// substituted from a dictionary.
struct PredicateEvaluator {
    var variables: [String: EvaluatedValue]

    func evaluate(_ predicate: ModelgenPredicate.Predicate, on object: ManagedObject) throws -> Bool {
        switch predicate {
        case .constant(let value, _): return value
        case .not(let inner, _): return try !evaluate(inner, on: object)
        case .and(let items, _):
            for item in items where try !evaluate(item, on: object) { return false }
            return true
        case .or(let items, _):
            for item in items where try evaluate(item, on: object) { return true }
            return false
        case .comparison(let c): return try evaluate(c, on: object)
        }
    }

    func value(_ expression: ModelgenPredicate.Expression, on object: ManagedObject) throws -> EvaluatedValue {
        switch expression.kind {
        case .keyPath(let components): return try keyPath(components, on: object)
        case .evaluatedObject: return .object(object)
        case .variable(let name):
            guard let value = variables[name] else { throw RuntimeError.missingVariable(name) }
            return value
        case .string(let s): return .string(s)
        case .number(let text):
            if expression.isIntegerLiteral, let v = Int64(text) { return .int(v) }
            return .double(Double(text) ?? .nan)
        case .bool(let b): return .bool(b)
        case .null: return .null
        case .aggregate(let items): return .collection(try items.map { try value($0, on: object) })
        case .variableKeyPath(let name, let components):
            guard let base = variables[name] else { throw RuntimeError.missingVariable(name) }
            guard case .object(let root) = base else { return .null }
            return try keyPath(components, on: root)
        case .subquery(let collection, let variable, let predicate, let suffix):
            // Each element is the evaluated object of the predicate and the value of its variable.
            var inner = self
            var matching: [EvaluatedValue] = []
            let elements: [EvaluatedValue]
            switch try value(collection, on: object) {
            case .collection(let items): elements = items
            case .null: elements = []
            case let single: elements = [single]
            }
            for element in elements {
                guard case .object(let candidate) = element else { continue }
                inner.variables[variable] = element
                if try inner.evaluate(predicate, on: candidate) { matching.append(element) }
            }
            switch suffix.map(\.kind) {
            case []: return .collection(matching)
            case [.collectionOperator("count")]: return .int(Int64(matching.count))
            default: throw RuntimeError.invalidPredicate("after SUBQUERY(…) only .@count can follow")
            }
        case .function(let name, let arguments):
            switch expression.castValue {
            case .date(let seconds)?: return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .number(let text)?: return try value(Expression(.number(text), range: expression.range), on: object)
            case .unsupported(let reason)?: throw RuntimeError.invalidPredicate(reason)
            case nil: break
            }
            switch expression.functionCall {
            case .call(let receiver, let selector, let callArguments)?:
                let values = try callArguments.map { try value($0, on: object).anyValue }
                return EvaluatedValue(any: try PredicateFunctions.call(selector, receiver: try value(receiver, on: object).anyValue, arguments: values))
            case .malformed(let reason)?: throw RuntimeError.invalidPredicate(reason)
            case nil: break
            }
            switch name {
            case "now": return .date(Date())
            case "lowercase", "uppercase", "canonical":
                guard let argument = arguments.first, case .string(let s) = try value(argument, on: object) else { return .null }
                switch name {
                case "lowercase": return .string(s.lowercased())
                case "uppercase": return .string(s.uppercased())
                default: return .string(s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
                }
            default:
                throw RuntimeError.invalidPredicate("unknown function '\(name)'")
            }
        }
    }

    private func keyPath(_ components: [KeyPathComponent], on object: ManagedObject) throws -> EvaluatedValue {
        var current: [EvaluatedValue] = [.object(object)]
        var isCollection = false
        var index = 0
        while index < components.count {
            switch components[index].kind {
            case .key(var key):
                var next: [EvaluatedValue] = []
                var end = index + 1, joined = false
                for element in current {
                    guard case .object(let o) = element else { next.append(.null); continue }
                    // A composite's field (`address.city`) is one attribute named by several keys: looked
                    // up once per step, on the first object (the step's objects share their entity's names).
                    if !joined {
                        joined = true
                        if let field = o.entity.compositeKey(components, at: index) { (key, end) = field }
                    }
                    let slot = try o.slot(forKey: key)
                    try o.loadIfFault()
                    if o._pendingToMany != 0 { o.loadPendingToMany(slot) }
                    let value = EvaluatedValue(o._slots[slot])
                    if case .collection(let items) = value {
                        isCollection = true
                        next += items
                    } else {
                        next.append(value)
                    }
                }
                current = next
                index = end - 1
            case .index(let position):
                // An ordered relationship's elements in order: pick one (the key path goes on from it), or count them.
                switch position {
                case .size: return .int(Int64(current.count))
                case .first: current = [current.first ?? .null]
                case .last: current = [current.last ?? .null]
                case .position(let n): current = [n < current.count ? current[n] : .null]
                }
                isCollection = false
            case .collectionOperator(let op):
                if op == "count" { return .int(Int64(current.count)) }
                var values = current
                if index + 1 < components.count, case .key(let key) = components[index + 1].kind {
                    values = try current.map { element -> EvaluatedValue in
                        guard case .object(let o) = element else { return .null }
                        return try value(ModelgenPredicate.Expression(.keyPath([KeyPathComponent(.key(key), range: components[index + 1].range)]), range: components[index + 1].range), on: o)
                    }
                }
                return aggregate(op, values.filter { !$0.isNull })
            }
            index += 1
        }
        return isCollection ? .collection(current) : (current.first ?? .null)
    }

    private func aggregate(_ op: String, _ values: [EvaluatedValue]) -> EvaluatedValue {
        switch op {
        case "sum":
            if values.allSatisfy({ if case .int = $0 { return true } else { return false } }) {
                return .int(values.reduce(0) { if case .int(let v) = $1 { return $0 &+ v } else { return $0 } })
            }
            return .double(values.compactMap(\.number).reduce(0, +))
        case "avg":
            let numbers = values.compactMap(\.number)
            return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        case "min": return values.min { Self.order($0, $1) == .orderedAscending } ?? .null
        case "max": return values.max { Self.order($0, $1) == .orderedAscending } ?? .null
        default: return .null
        }
    }

    // MARK: Comparisons

    private func evaluate(_ c: Comparison, on object: ManagedObject) throws -> Bool {
        let left = try value(c.left, on: object)
        let right = try value(c.right, on: object)
        switch c.modifier {
        case .direct:
            return compare(left, c.operator, right, c.options)
        case .any, .all, .none:
            let elements: [EvaluatedValue]
            if case .collection(let items) = left { elements = items } else { elements = [left] }
            switch c.modifier {
            case .any: return elements.contains { compare($0, c.operator, right, c.options) }
            case .all: return elements.allSatisfy { compare($0, c.operator, right, c.options) }
            default: return !elements.contains { compare($0, c.operator, right, c.options) }
            }
        }
    }

    private func compare(_ l: EvaluatedValue, _ op: ComparisonOperator, _ r: EvaluatedValue, _ options: ComparisonOptions) -> Bool {
        // nil is neither less nor greater than anything (as in SQL and Core Data); it only sorts first.
        if op.isOrdering && (l.isNull || r.isNull) { return false }
        switch op {
        case .equal: return Self.equal(l, r, options)
        case .notEqual: return !Self.equal(l, r, options)
        case .lessThan: return Self.order(l, r, options) == .orderedAscending
        case .lessThanOrEqual: return [.orderedAscending, .orderedSame].contains(Self.order(l, r, options))
        case .greaterThan: return Self.order(l, r, options) == .orderedDescending
        case .greaterThanOrEqual: return [.orderedDescending, .orderedSame].contains(Self.order(l, r, options))
        case .between:
            guard case .collection(let bounds) = r, bounds.count == 2 else { return false }
            return compare(l, .greaterThanOrEqual, bounds[0], options) && compare(l, .lessThanOrEqual, bounds[1], options)
        case .in:
            switch r {
            case .collection(let items): return items.contains { Self.equal(l, $0, options) }
            case .string, .url:
                guard let haystack = Self.text(r), let needle = Self.text(l) else { return false }
                return Self.fold(haystack, options).contains(Self.fold(needle, options))
            default: return false
            }
        case .contains:
            switch l {
            case .collection(let items): return items.contains { Self.equal($0, r, options) }
            case .string, .url:
                guard let haystack = Self.text(l), let needle = Self.text(r) else { return false }
                return Self.matchString(haystack, .contains, needle, options)
            default: return false
            }
        case .beginsWith, .endsWith, .like, .matches:
            guard let s = Self.text(l), let pattern = Self.text(r) else { return false }
            return Self.matchString(s, op, pattern, options)
        }
    }

    /// The text string operators see: a string, or a URL's absolute string (as the SQL stores keep it).
    static func text(_ value: EvaluatedValue) -> String? {
        switch value {
        case .string(let s): return s
        case .url(let u): return u.absoluteString
        default: return nil
        }
    }

    /// A string operator (CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES) on two strings, with [c]/[d].
    /// The SQLite store calls this too, so both stores give the same answers.
    static func matchString(_ s: String, _ op: ComparisonOperator, _ pattern: String, _ options: ComparisonOptions) -> Bool {
        let text = fold(s, options), p = fold(pattern, options)
        switch op {
        case .contains: return text.contains(p)
        case .beginsWith: return text.hasPrefix(p)
        case .endsWith: return text.hasSuffix(p)
        case .like: return like(text, p)
        case .matches: return matches(text, pattern: pattern, caseInsensitive: options.contains(.caseInsensitive))
        default: return false
        }
    }

    static func fold(_ s: String, _ options: ComparisonOptions) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? s : s.folding(options: folding, locale: nil)
    }

    static func equal(_ l: EvaluatedValue, _ r: EvaluatedValue, _ options: ComparisonOptions = []) -> Bool {
        switch (l, r) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let a), .string(let b)): return fold(a, options) == fold(b, options)
        case (.object(let a), .object(let b)): return a === b
        case (.object(let a), .objectID(let id)), (.objectID(let id), .object(let a)): return a.objectID == id
        case (.objectID(let a), .objectID(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.url(let a), .url(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        default:
            if let a = l.exactDecimal, let b = r.exactDecimal { return a == b }
            if let a = l.number, let b = r.number { return a == b }
            return false
        }
    }

    /// Ordering for `<` and sorting; nil when the values have no common order. NIL sorts first.
    static func order(_ l: EvaluatedValue, _ r: EvaluatedValue, _ options: ComparisonOptions = []) -> ComparisonResult? {
        func result<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult { a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame }
        switch (l, r) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let a), .string(let b)): return result(fold(a, options), fold(b, options))
        case (.date(let a), .date(let b)): return result(a, b)
        case (.uuid(let a), .uuid(let b)): return result(a.uuidString, b.uuidString)
        default:
            if let a = l.exactDecimal, let b = r.exactDecimal { return result(a, b) }
            if let a = l.number, let b = r.number { return result(a, b) }
            return nil
        }
    }

    /// `LIKE`: `*` any run of characters, `?` one character.
    static func like(_ text: String, _ pattern: String) -> Bool {
        let t = Array(text), p = Array(pattern)
        var ti = 0, pi = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == t[ti]) {
                ti += 1; pi += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi; mark = ti; pi += 1
            } else if star >= 0 {
                pi = star + 1; mark += 1; ti = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    static func matches(_ text: String, pattern: String, caseInsensitive: Bool) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : []) else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return regex.firstMatch(in: text, options: [.anchored], range: range)?.range == range
    }
}
