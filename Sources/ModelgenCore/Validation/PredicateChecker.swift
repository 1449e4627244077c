import ModelgenPredicate

/// Resolves every key path of a predicate against the entity graph, checks
/// operand types, and infers a type for every `$VARIABLE`. Errors point at the
/// column inside the predicate string.
struct PredicateChecker {
    /// Which `$VARIABLES` a predicate may use.
    enum VariablePolicy {
        /// A fetched property: only `$FETCH_SOURCE`, an object of the owning entity, and
        /// `$FETCHED_PROPERTY.userInfo.<key>` (a string of the property's userInfo).
        case fetchSource(owner: String, userInfo: [String] = [])
        /// A fetch request template: any variable but `$FETCH_SOURCE`; types are inferred.
        case inferred
    }

    private let validator: ModelValidator
    /// The entity bare key paths start from: the fetched entity, or a SUBQUERY's element entity inside it.
    private var entity: String
    /// SUBQUERY variables in scope, by name: the element entity each names.
    private var scopes: [String: String] = [:]
    private let source: EmbeddedSource
    private let policy: VariablePolicy
    private(set) var variables: [(name: String, type: PredicateValueType)] = []
    private var variableIndex: [String: Int] = [:]
    /// An aggregate template's having predicate: the names its key paths may use (group key paths and
    /// columns) with their types; nil for a predicate over the entity's objects.
    var rowNames: [String: PredicateValueType]?

    init(validator: ModelValidator, entity: String, source: EmbeddedSource, policy: VariablePolicy) {
        self.validator = validator
        self.entity = entity
        self.source = source
        self.policy = policy
    }

    private var graph: EntityGraph { validator.graph }

    /// Starts from the variables another predicate of the same template inferred, so a variable both
    /// use has one type.
    mutating func assume(_ known: [(name: String, type: PredicateValueType)]) {
        for variable in known {
            variableIndex[variable.name] = variables.count
            variables.append(variable)
        }
    }

    private func error(_ id: DiagnosticID, _ message: String, at range: SourceRange, notes: [Diagnostic.Note] = []) {
        validator.error(id, message, at: source.location(atOffset: range.start), notes: notes)
    }

    // MARK: Operands

    /// An operand: a known type, or a variable whose type is not known yet.
    private enum Operand {
        case typed(PredicateValueType)
        case unknownVariable(String)
        /// Already reported.
        case invalid
    }

    /// Resolves a key path from `start`; nil after reporting an error.
    func resolveKeyPath(_ components: [KeyPathComponent], from start: String, purpose: KeyPathPurpose) -> PredicateValueType? {
        var entityName: String? = start
        var result = PredicateValueType.object(entity: start)
        var crossesToMany = false
        /// The ordered to-many relationship the previous key named, when it did (`[FIRST]` indexes it).
        var orderedBefore: Relationship?
        var index = 0
        while index < components.count {
            let component = components[index]
            let ordered = orderedBefore
            orderedBefore = nil
            switch component.kind {
            case .index(let position):
                guard crossesToMany, let current = entityName else {
                    error(.invalidKeyPath, "'\(component.text)' needs a to-many relationship before it", at: component.range)
                    return nil
                }
                if position == .size {
                    guard index == components.count - 1 else {
                        error(.invalidKeyPath, "'[SIZE]' ends a key path", at: components[index + 1].range)
                        return nil
                    }
                    return .attribute(.int64, swiftType: nil)
                }
                guard let relationship = ordered, relationship.destination.value == current else {
                    error(.invalidKeyPath, "'\(component.text)' picks an element by its position, which only an ordered relationship has, right before it", at: component.range)
                    return nil
                }
                // One element: the key path goes on from that object.
                crossesToMany = false
                result = .object(entity: current)
            case .key(let key):
                guard let current = entityName else {
                    error(.unknownKeyPath, "key path continues past attribute '\(components[index - 1].text)': attributes have no keys", at: component.range)
                    return nil
                }
                guard let property = graph.property(key, in: current) else {
                    let notes = Suggestions.note(for: key, in: graph.propertyNames(in: current)).map { [Diagnostic.Note($0)] } ?? []
                    error(.unknownKeyPath, "unknown key '\(key)' on entity '\(current)'", at: component.range, notes: notes)
                    return nil
                }
                switch property {
                case .attribute(var attribute, _):
                    if attribute.isTransient && purpose != .derivation {
                        error(.invalidKeyPath, "transient attribute '\(key)' is never stored, so \(purpose.usage) cannot use it", at: component.range)
                        return nil
                    }
                    // A composite's fields are keys of it: `address.city`, `address.geo.latitude`.
                    var path = key
                    while attribute.type.value == .composite, index + 1 < components.count, case .key(let field) = components[index + 1].kind {
                        guard let next = validator.model.compositeField([field], of: attribute) else {
                            let type = attribute.composite?.value ?? ""
                            let fields = validator.model.composite(named: type)?.attributes.map(\.name.value) ?? []
                            let notes = Suggestions.note(for: field, in: fields).map { [Diagnostic.Note($0)] } ?? []
                            error(.unknownKeyPath, "unknown field '\(field)' of composite '\(type)' (attribute '\(path)')", at: components[index + 1].range, notes: notes)
                            return nil
                        }
                        attribute = next
                        path += "." + field
                        index += 1
                    }
                    if attribute.type.value == .composite {
                        let example = validator.model.composite(named: attribute.composite?.value ?? "")?.attributes.first.map { "'\(path).\($0.name.value)'" } ?? "its fields"
                        guard attribute.isOptional, purpose == .predicate, index == components.count - 1 else {
                            error(.invalidKeyPath, "composite attribute '\(path)' is used by its fields, as in \(example)\(attribute.isOptional && purpose == .predicate ? ", or compared with NIL" : "")",
                                  at: component.range)
                            return nil
                        }
                    }
                    result = .attribute(attribute.type.value, swiftType: attribute.composite?.value ?? attribute.swiftType?.value)
                    entityName = nil
                case .relationship(let relationship, _):
                    if relationship.isToMany && relationship.isOrdered && !crossesToMany { orderedBefore = relationship }
                    if relationship.isToMany {
                        if let (what, fix) = purpose.toOneOnly {
                            error(.invalidKeyPath, "\(what) crosses to-many relationship '\(key)'; \(fix)", at: component.range)
                            return nil
                        }
                        crossesToMany = true
                    }
                    entityName = relationship.destination.value
                    guard graph.position(of: relationship.destination.value) != nil else { return nil } // reported elsewhere
                    result = .object(entity: relationship.destination.value)
                case .fetchedProperty:
                    error(.invalidKeyPath, "fetched property '\(key)' cannot be used in \(purpose.usage): it is not stored", at: component.range)
                    return nil
                }
            case .collectionOperator(let name):
                guard crossesToMany, let current = entityName else {
                    error(.invalidKeyPath, "'@\(name)' needs a to-many relationship before it", at: component.range)
                    return nil
                }
                if name == CollectionOperator.count.rawValue {
                    guard index == components.count - 1 else {
                        error(.invalidKeyPath, "'@count' ends a key path", at: components[index + 1].range)
                        return nil
                    }
                    return .attribute(.int64, swiftType: nil)
                }
                guard index + 2 == components.count, case .key(let key) = components[index + 1].kind else {
                    error(.invalidKeyPath, "'@\(name)' is followed by one attribute of '\(current)', as in '@\(name).likes'", at: component.range)
                    return nil
                }
                guard case .attribute(let attribute, _)? = graph.property(key, in: current) else {
                    error(.invalidKeyPath, "'@\(name)' needs an attribute of '\(current)'; '\(key)' is not one", at: components[index + 1].range)
                    return nil
                }
                let type = attribute.type.value
                let accepted = name == "min" || name == "max" ? (type.isNumeric || type == .date) : type.isNumeric
                guard accepted else {
                    error(.predicateTypeMismatch, "'@\(name)' cannot aggregate \(type.rawValue) attribute '\(key)'", at: components[index + 1].range)
                    return nil
                }
                return .attribute(name == "avg" ? .double : type, swiftType: nil)
            }
            index += 1
        }
        return crossesToMany ? .collection(result) : result
    }

    /// What a key path is for: `groupKey` (an aggregate's group key) may cross to-many relationships
    /// (a group per member), `aggregate` (a column's key path), `projection` (a projection template's
    /// property) and `sort` may not.
    enum KeyPathPurpose {
        case predicate, sort, derivation, aggregate, groupKey, projection
        var usage: String {
            switch self {
            case .predicate: return "a fetch predicate"
            case .sort: return "a sort descriptor"
            case .derivation: return "a derivation"
            case .aggregate: return "an aggregate's column"
            case .groupKey: return "an aggregate's group key"
            case .projection: return "a projected key path"
            }
        }

        /// For the purposes whose key paths stay on to-one relationships: how the error names the key
        /// path, and what to do instead; nil for the others.
        var toOneOnly: (what: String, fix: String)? {
            switch self {
            case .sort: return ("sort key path", "sort by attributes reached through to-one relationships")
            case .aggregate: return ("an aggregate's key path", "use attributes reached through to-one relationships")
            case .projection:
                return ("a projected key path", "project values reached through to-one relationships, or the first member of one to-many relationship (an item with 'first:' and 'by:')")
            case .predicate, .derivation, .groupKey: return nil
            }
        }
    }

    private mutating func operand(_ expression: Expression) -> Operand {
        switch expression.kind {
        case .keyPath(let components) where rowNames != nil:
            let name = components.keyPathText
            guard let type = rowNames?[name] else {
                let known = rowNames!.keys.sorted()
                let notes = Suggestions.note(for: name, in: known).map { [Diagnostic.Note($0)] } ?? []
                error(.unknownKeyPath, "a having predicate compares the groups' keys and columns\(known.isEmpty ? "" : " (\(known.joined(separator: ", ")))"); '\(name)' is neither",
                      at: expression.range, notes: notes)
                return .invalid
            }
            return .typed(type)
        case .keyPath(let components):
            return resolveKeyPath(components, from: entity, purpose: .predicate).map(Operand.typed) ?? .invalid
        case .evaluatedObject:
            return .typed(.object(entity: entity))
        case .variable(let name) where scopes[name] != nil:
            return .typed(.object(entity: scopes[name]!))
        case .variableKeyPath(let name, let components):
            let start: String
            if let scoped = scopes[name] {
                start = scoped
            } else if case .fetchSource(let owner, _) = policy, name == "FETCH_SOURCE" {
                start = owner
            } else if case .fetchSource(_, let keys) = policy, name == "FETCHED_PROPERTY" {
                // Core Data's fetched property description: its userInfo's values.
                guard components.count == 2, components[0].text == "userInfo", case .key(let key) = components[1].kind else {
                    error(.predicateVariable, "$FETCHED_PROPERTY is read as $FETCHED_PROPERTY.userInfo.<key> (the fetched property's userInfo)", at: expression.range)
                    return .invalid
                }
                if !keys.contains(key) {
                    validator.warning(.unknownUserInfoKey, "the fetched property has no userInfo entry '\(key)': $FETCHED_PROPERTY.userInfo.\(key) is NIL",
                                      at: source.location(atOffset: components[1].range.start))
                }
                // Strings in the model, numbers where they read as one (as SQLite compares them).
                return .typed(.functionResult)
            } else {
                error(.predicateVariable, "a key path on $\(name): key paths start at SUBQUERY variables and $FETCH_SOURCE; compare a key path with $\(name) instead", at: expression.range)
                return .invalid
            }
            return resolveKeyPath(components, from: start, purpose: .predicate).map(Operand.typed) ?? .invalid
        case .subquery(let collection, let variable, let predicate, let suffix):
            let type: PredicateValueType
            switch collection.kind {
            case .keyPath, .variableKeyPath:
                guard case .typed(let resolved) = operand(collection) else { return .invalid }
                type = resolved
            default:
                error(.invalidKeyPath, "SUBQUERY takes a to-many key path first, as in SUBQUERY(tags, $t, $t.name == 'x')", at: collection.range)
                return .invalid
            }
            guard case .collection(.object(let element)) = type else {
                error(.invalidKeyPath, "SUBQUERY needs a to-many relationship first; '\(collection)' is \(type)", at: collection.range)
                return .invalid
            }
            if scopes[variable] != nil || ["FETCH_SOURCE", "FETCHED_PROPERTY"].contains(variable) {
                error(.predicateVariable, "SUBQUERY variable $\(variable) is already in use here; choose another name", at: expression.range)
                return .invalid
            }
            let (outerEntity, outerScopes) = (entity, scopes)
            entity = element
            scopes[variable] = element
            check(predicate)
            (entity, scopes) = (outerEntity, outerScopes)
            switch suffix.map(\.kind) {
            case []: return .typed(.collection(.object(entity: element)))
            case [.collectionOperator("count")]: return .typed(.attribute(.int64, swiftType: nil))
            default:
                error(.invalidKeyPath, "after SUBQUERY(…) only .@count can follow", at: suffix.first?.range ?? expression.range)
                return .invalid
            }
        case .variable(let name):
            switch policy {
            case .fetchSource(let owner, _):
                if name == "FETCH_SOURCE" { return .typed(.object(entity: owner)) }
                error(.predicateVariable, "a fetched property's predicate can use only $FETCH_SOURCE, not $\(name); use a fetch request template for parameters", at: expression.range)
                return .invalid
            case .inferred:
                if name == "FETCH_SOURCE" {
                    error(.predicateVariable, "$FETCH_SOURCE exists only in fetched properties' predicates", at: expression.range)
                    return .invalid
                }
                if let index = variableIndex[name] { return .typed(variables[index].type) }
                return .unknownVariable(name)
            }
        case .string: return .typed(.stringLiteral)
        case .number: return .typed(expression.isIntegerLiteral ? .integerLiteral : .floatLiteral)
        case .bool: return .typed(.boolLiteral)
        case .null: return .typed(.null)
        case .aggregate(let items):
            var element: PredicateValueType?
            for item in items {
                switch operand(item) {
                case .typed(let type):
                    if let known = element, !compatible(known, type) {
                        error(.predicateTypeMismatch, "aggregate mixes \(known) and \(type)", at: item.range)
                        return .invalid
                    }
                    if element == nil || element == .null { element = type }
                case .unknownVariable(let name):
                    error(.predicateVariable, "cannot infer the type of $\(name) inside an aggregate; compare it with a key path instead", at: item.range)
                    return .invalid
                case .invalid:
                    return .invalid
                }
            }
            return .typed(.collection(element ?? .null))
        case .function(let name, _):
            switch expression.castValue {
            case .date?: return .typed(.attribute(.date, swiftType: nil))
            case .number(let text)?: return operand(Expression(.number(text), range: expression.range))
            case .unsupported(let reason)?:
                error(.unsupportedFunction, reason, at: expression.range)
                return .invalid
            case nil:
                switch expression.functionCall {
                case .call(let receiver, _, let arguments)?:
                    // A Swift function registered at run time (PredicateFunctions): its value's type is
                    // not known here, so it compares with anything.
                    for argument in [receiver] + arguments { _ = operand(argument) }
                    return .typed(.functionResult)
                case .malformed(let reason)?:
                    error(.unsupportedFunction, reason, at: expression.range)
                    return .invalid
                case nil: break
                }
                error(.unsupportedFunction, "functions such as '\(name)' are not part of fetch predicates (CAST(…, \"NSDate\") and FUNCTION(receiver, 'selector:', …) are)", at: expression.range)
                return .invalid
            }
        }
    }

    /// `$VARIABLE`s inside the aggregate on the right of IN or BETWEEN take the type of the left side
    /// (its element type after ANY/ALL/NONE): `pages BETWEEN {$MIN, $MAX}` makes both `Int16` when
    /// `pages` is an int16 attribute, as `pages IN {$A, $B}` does.
    private mutating func bindVariablesInAggregate(of c: Comparison, comparedWith left: Operand) {
        guard c.operator == .in || c.operator == .between, case .aggregate(let items) = c.right.kind,
              case .typed(var type) = left, case .inferred = policy else { return }
        if c.modifier != .direct {
            guard case .collection(let element) = type else { return }   // reported by check
            type = element
        }
        if case .collection = type { return }   // a to-many key path without ANY: reported by check
        for item in items {
            if case .variable(let name) = item.kind, name != "FETCH_SOURCE", variableIndex[name] == nil {
                bind(name, to: type, at: item.range)
            }
        }
    }

    private mutating func bind(_ name: String, to type: PredicateValueType, at range: SourceRange) {
        let concrete = type.concrete
        if concrete == .null {
            error(.predicateVariable, "cannot infer the type of $\(name) from NIL; compare it with a key path", at: range)
            return
        }
        if let index = variableIndex[name] {
            if variables[index].type != concrete {
                error(.predicateVariable, "$\(name) is used as \(variables[index].type) and as \(concrete); a variable has one type", at: range)
            }
            return
        }
        variableIndex[name] = variables.count
        variables.append((name, concrete))
    }

    // MARK: Compatibility

    func compatible(_ a: PredicateValueType, _ b: PredicateValueType) -> Bool {
        if a == .null || b == .null || a == .functionResult || b == .functionResult { return true }
        switch (a, b) {
        case (.object(let x), .object(let y)): return graph.areRelated(x, y)
        case (.collection(let x), .collection(let y)): return compatible(x, y)
        default: return a.family == b.family
        }
    }

    // MARK: Predicates

    mutating func check(_ predicate: Predicate) {
        switch predicate {
        case .constant: break
        case .not(let inner, _): check(inner)
        case .and(let items, _), .or(let items, _): items.forEach { check($0) }
        case .comparison(let comparison): check(comparison)
        }
    }

    private mutating func check(_ c: Comparison) {
        var left = operand(c.left)
        bindVariablesInAggregate(of: c, comparedWith: left)
        var right = operand(c.right)
        if case .invalid = left { return }
        if case .invalid = right { return }

        // ANY / ALL / NONE take a to-many key path and compare its elements.
        if c.modifier != .direct {
            guard case .typed(.collection(let element)) = left else {
                error(.toManyNeedsQuantifier, "\(c.modifier.rawValue) needs a key path through a to-many relationship on its left", at: c.range)
                return
            }
            left = .typed(element)
        } else if case .typed(.collection) = left, c.operator != .contains {
            error(.toManyNeedsQuantifier, "'\(c.left)' crosses a to-many relationship: write ANY, ALL or NONE before it, or use @count", at: c.left.range)
            return
        }
        if case .typed(.collection) = right, c.operator != .in, c.operator != .between {
            error(.predicateTypeMismatch, "'\(c.right)' is a collection; only IN and BETWEEN take a collection on the right", at: c.right.range)
            return
        }

        switch c.operator {
        case .in:
            // Right: a collection of values like the left one (aggregate, $VARIABLE or to-many key path).
            switch (left, right) {
            case (.typed(let l), .unknownVariable(let name)): bind(name, to: .collection(l), at: c.right.range)
            case (.unknownVariable(let name), .typed(.collection(let element))): bind(name, to: element, at: c.left.range)
            case (.typed(let l), .typed(.collection(let element))):
                if !compatible(l, element) { mismatch(c, l, .collection(element)) }
            case (.typed, .typed(let r)):
                error(.predicateTypeMismatch, "IN needs a collection on its right, found \(r)", at: c.right.range)
            default:
                error(.predicateVariable, "cannot infer the types of both sides of IN; compare a key path with a $VARIABLE", at: c.range)
            }
            return
        case .between:
            switch (left, right) {
            case (.typed(let l), .unknownVariable(let name)):
                guard l.isOrderable else { error(.predicateTypeMismatch, "BETWEEN needs an orderable value, not \(l)", at: c.left.range); return }
                bind(name, to: .collection(l), at: c.right.range)
            case (.typed(let l), .typed(.collection(let element))):
                if case .aggregate(let items) = c.right.kind, items.count != 2 {
                    error(.predicateTypeMismatch, "BETWEEN takes two bounds, as in {1, 10}; found \(items.count)", at: c.right.range)
                } else if !l.isOrderable {
                    error(.predicateTypeMismatch, "BETWEEN needs an orderable value, not \(l)", at: c.left.range)
                } else if !compatible(l, element) {
                    mismatch(c, l, .collection(element))
                }
            default:
                error(.predicateTypeMismatch, "BETWEEN takes a key path on its left and {LOW, HIGH} or a $VARIABLE on its right", at: c.range)
            }
            return
        case .contains:
            if case .typed(.collection(let element)) = left {
                switch right {
                case .unknownVariable(let name): bind(name, to: element, at: c.right.range)
                case .typed(let r): if !compatible(element, r) { mismatch(c, .collection(element), r) }
                case .invalid: break
                }
                return
            }
        default:
            break
        }

        // Plain comparisons: bind unknown variables to the other side's type, then compare.
        switch (left, right) {
        case (.unknownVariable(let a), .unknownVariable(let b)):
            error(.predicateVariable, "cannot infer the types of $\(a) and $\(b) compared with each other; compare each with a key path", at: c.range)
            return
        case (.typed(let l), .unknownVariable(let name)):
            bind(name, to: l, at: c.right.range)
            right = .typed(l)
        case (.unknownVariable(let name), .typed(let r)):
            bind(name, to: r, at: c.left.range)
            left = .typed(r)
        default:
            break
        }
        guard case .typed(let l) = left, case .typed(let r) = right else { return }

        if c.operator.isStringOperator {
            if !(l.isString || l == .null) || !(r.isString || r == .null) {
                let culprit = l.isString ? c.right : c.left
                error(.predicateTypeMismatch, "\(c.operator.rawValue) compares strings; \(quoted(culprit)) is \(l.isString ? r : l)", at: culprit.range)
            }
            return
        }
        if !compatible(l, r) {
            mismatch(c, l, r)
            return
        }
        if c.operator.isOrdering && (!l.isOrderable || !r.isOrderable) && l != .null && r != .null {
            error(.predicateTypeMismatch, "\(c.operator.rawValue) needs values that have an order; \(l.isOrderable ? r : l) has none", at: c.operatorRange)
            return
        }
        if !c.options.isEmpty && !(l.isString || r.isString) {
            error(.predicateTypeMismatch, "comparison options \(c.options.text) apply to strings only", at: c.operatorRange)
        }
    }

    private func mismatch(_ c: Comparison, _ l: PredicateValueType, _ r: PredicateValueType) {
        error(.predicateTypeMismatch, "type mismatch: \(quoted(c.left)) is \(l) but \(quoted(c.right)) is \(r)", at: c.right.range)
    }

    /// An operand as text for a message: string literals keep their own quotes, the rest get single quotes.
    private func quoted(_ e: Expression) -> String {
        if case .string = e.kind { return e.description }
        return "'\(e)'"
    }
}
