/// Parses the NSPredicate-format subset of the model format (and derivation
/// expressions and sort descriptors) into an AST with positions.
///
/// ```swift
/// let predicate = try PredicateParser.parsePredicate("author.lastName ==[c] $NAME AND likes >= 10")
/// ```
public struct PredicateParser {
    /// The deepest nesting accepted: parentheses, `NOT`, `{…}` and function arguments each count one
    /// level. Real predicates nest a few levels; the bound keeps every pass over the tree (type
    /// checking, printing, evaluation, SQL) within a thread's stack, so hostile input is an error, not
    /// a crash.
    public static let maximumNesting = 100

    private var tokens: [Token]
    private var position = 0
    private var depth = 0

    private init(tokens: [Token]) {
        self.tokens = tokens
    }

    /// Parses a whole predicate string.
    public static func parsePredicate(_ text: String) throws(PredicateSyntaxError) -> Predicate {
        var parser = PredicateParser(tokens: try Lexer.tokenize(text))
        let predicate = try parser.orPredicate()
        try parser.expectEnd(after: "predicate")
        return predicate
    }

    /// Parses a whole expression string (a derivation such as `posts.@count` or `lowercase:(title)`).
    public static func parseExpression(_ text: String) throws(PredicateSyntaxError) -> Expression {
        var parser = PredicateParser(tokens: try Lexer.tokenize(text))
        let expression = try parser.expression()
        try parser.expectEnd(after: "expression")
        return expression
    }

    // MARK: Tokens

    private var current: Token { tokens[position] }

    private mutating func advance() -> Token {
        let token = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    private mutating func take(keyword: String) -> Token? {
        if current.keyword == keyword { return advance() }
        return nil
    }

    private mutating func take(symbol: String) -> Token? {
        if current.isSymbol(symbol) { return advance() }
        return nil
    }

    private mutating func expect(symbol: String, _ what: String) throws(PredicateSyntaxError) -> Token {
        if let token = take(symbol: symbol) { return token }
        throw PredicateSyntaxError("expected \(what), found \(describe(current))", at: current.range)
    }

    private func expectEnd(after what: String) throws(PredicateSyntaxError) {
        if current.kind != .end {
            throw PredicateSyntaxError("unexpected \(describe(current)) after the end of the \(what)", at: current.range)
        }
    }

    private func describe(_ token: Token) -> String {
        switch token.kind {
        case .identifier(let name, _): return "'\(name)'"
        case .variable(let name): return "'$\(name)'"
        case .collectionOperator(let name): return "'@\(name)'"
        case .string: return "a string"
        case .number(let text): return "'\(text)'"
        case .symbol(let s): return "'\(s)'"
        case .end: return "the end of the text"
        }
    }

    // MARK: Predicates

    private mutating func orPredicate() throws(PredicateSyntaxError) -> Predicate {
        var items = [try andPredicate()]
        while take(keyword: "OR") != nil || take(symbol: "||") != nil {
            items.append(try andPredicate())
        }
        return items.count == 1 ? items[0] : .or(items, items[0].range.union(items.last!.range))
    }

    private mutating func andPredicate() throws(PredicateSyntaxError) -> Predicate {
        var items = [try notPredicate()]
        while take(keyword: "AND") != nil || take(symbol: "&&") != nil {
            items.append(try notPredicate())
        }
        return items.count == 1 ? items[0] : .and(items, items[0].range.union(items.last!.range))
    }

    /// One level deeper (see `maximumNesting`); `leave()` when done.
    private mutating func enter(_ token: Token) throws(PredicateSyntaxError) {
        depth += 1
        if depth > Self.maximumNesting {
            throw PredicateSyntaxError("nested more than \(Self.maximumNesting) levels deep (parentheses, NOT, braces and function arguments each count one)",
                                       at: token.range)
        }
    }

    private mutating func leave() { depth -= 1 }

    private mutating func notPredicate() throws(PredicateSyntaxError) -> Predicate {
        if let not = take(keyword: "NOT") ?? take(symbol: "!") {
            try enter(not)
            defer { leave() }
            let inner = try notPredicate()
            return .not(inner, not.range.union(inner.range))
        }
        return try primaryPredicate()
    }

    private mutating func primaryPredicate() throws(PredicateSyntaxError) -> Predicate {
        if let open = take(symbol: "(") {
            try enter(open)
            defer { leave() }
            let inner = try orPredicate()
            let close = try expect(symbol: ")", "')' to close the '(' at offset \(open.range.start)")
            _ = close
            return inner
        }
        if let t = take(keyword: "TRUEPREDICATE") { return .constant(true, t.range) }
        if let t = take(keyword: "FALSEPREDICATE") { return .constant(false, t.range) }
        return .comparison(try comparison())
    }

    private mutating func comparison() throws(PredicateSyntaxError) -> Comparison {
        var modifier = ComparisonModifier.direct
        let start = current.range
        if let keyword = current.keyword {
            switch keyword {
            case "ANY", "SOME": modifier = .any
            case "ALL": modifier = .all
            case "NONE": modifier = .none
            default: break
            }
            if modifier != .direct { _ = advance() }
        }
        if current.kind == .end {
            throw PredicateSyntaxError("expected a comparison, found the end of the text", at: current.range)
        }
        let left = try expression()
        let (op, opRange) = try comparisonOperator()
        var options = ComparisonOptions()
        var operatorRange = opRange
        if current.isSymbol("[") {
            let open = advance()
            guard case .identifier(let flags, _) = current.kind,
                  !flags.isEmpty, flags.lowercased().allSatisfy({ "cdn".contains($0) }) else {
                throw PredicateSyntaxError("expected comparison options 'c', 'd' or 'cd' inside '[ ]'", at: current.range.union(open.range))
            }
            _ = advance()
            for flag in flags.lowercased() {
                if flag == "c" { options.insert(.caseInsensitive) }
                if flag == "d" { options.insert(.diacriticInsensitive) }
            }
            let close = try expect(symbol: "]", "']' after comparison options")
            operatorRange = operatorRange.union(close.range)
        }
        let right = try expression()
        return Comparison(modifier: modifier, left: left, operator: op, options: options, right: right,
                          operatorRange: operatorRange, range: start.union(right.range))
    }

    private mutating func comparisonOperator() throws(PredicateSyntaxError) -> (ComparisonOperator, SourceRange) {
        let token = current
        if case .symbol(let s) = token.kind, let op = ComparisonOperator(rawValue: s) {
            _ = advance()
            return (op, token.range)
        }
        if let keyword = token.keyword, let op = ComparisonOperator(rawValue: keyword),
           !["==", "!="].contains(keyword) {
            _ = advance()
            return (op, token.range)
        }
        throw PredicateSyntaxError("expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES), found \(describe(token))", at: token.range)
    }

    // MARK: Expressions

    private mutating func expression() throws(PredicateSyntaxError) -> Expression {
        let token = current
        switch token.kind {
        case .string(let value):
            _ = advance()
            return Expression(.string(value), range: token.range)
        case .number(let text):
            _ = advance()
            return Expression(.number(text), range: token.range)
        case .variable(let name):
            _ = advance()
            if take(symbol: ".") != nil {
                guard case .keyPath(let components) = try keyPath(startingAt: token.range).kind else { fatalError("keyPath returns a key path") }
                return Expression(.variableKeyPath(name, components), range: token.range.union(components.last!.range))
            }
            return Expression(.variable(name), range: token.range)
        case .symbol("-"):
            _ = advance()
            guard case .number(let text) = current.kind else {
                throw PredicateSyntaxError("expected a number after '-'", at: current.range)
            }
            let number = advance()
            return Expression(.number("-" + text), range: token.range.union(number.range))
        case .symbol("{"):
            try enter(token)
            defer { leave() }
            _ = advance()
            var items: [Expression] = []
            if let close = take(symbol: "}") {
                return Expression(.aggregate([]), range: token.range.union(close.range))
            }
            repeat {
                items.append(try expression())
            } while take(symbol: ",") != nil
            let close = try expect(symbol: "}", "',' or '}' in the aggregate")
            return Expression(.aggregate(items), range: token.range.union(close.range))
        case .identifier, .collectionOperator:
            return try keyPathOrFunction()
        default:
            throw PredicateSyntaxError("expected a key path, a literal or a $VARIABLE, found \(describe(token))", at: token.range)
        }
    }

    private mutating func keyPathOrFunction() throws(PredicateSyntaxError) -> Expression {
        let first = current
        if let keyword = first.keyword {
            switch keyword {
            case "TRUE", "YES": _ = advance(); return Expression(.bool(true), range: first.range)
            case "FALSE", "NO": _ = advance(); return Expression(.bool(false), range: first.range)
            case "NIL", "NULL": _ = advance(); return Expression(.null, range: first.range)
            case "SELF":
                _ = advance()
                if take(symbol: ".") == nil { return Expression(.evaluatedObject, range: first.range) }
                return try keyPath(startingAt: first.range)
            case _ where ReservedWords.operators.contains(keyword):
                throw PredicateSyntaxError("'\(keyword)' is a reserved word; write '#\(keyword.lowercased())' to use it as a key", at: first.range)
            default:
                break
            }
        }
        if case .identifier(let name, false) = first.kind, name.uppercased() == "SUBQUERY",
           tokens[min(position + 1, tokens.count - 1)].isSymbol("(") {
            return try subquery()
        }
        // Functions: `name:(args)` (Core Data's derivation functions) or `name()`.
        if case .identifier(let name, false) = first.kind {
            let next = tokens[min(position + 1, tokens.count - 1)]
            let afterNext = tokens[min(position + 2, tokens.count - 1)]
            if next.isSymbol(":") && afterNext.isSymbol("(") || next.isSymbol("(") {
                try enter(first)
                defer { leave() }
                _ = advance()
                _ = take(symbol: ":")
                _ = advance() // "("
                var arguments: [Expression] = []
                if !current.isSymbol(")") {
                    repeat { arguments.append(try expression()) } while take(symbol: ",") != nil
                }
                let close = try expect(symbol: ")", "')' to close the arguments of '\(name)'")
                return Expression(.function(name, arguments), range: first.range.union(close.range))
            }
        }
        return try keyPath(startingAt: first.range)
    }

    /// `SUBQUERY(collection, $x, predicate)`, then an optional key path (`.@count`).
    private mutating func subquery() throws(PredicateSyntaxError) -> Expression {
        let first = advance()
        try enter(first)
        defer { leave() }
        _ = advance() // "("
        let collection = try expression()
        _ = try expect(symbol: ",", "',' after the collection of SUBQUERY")
        guard case .variable(let variable) = current.kind else {
            throw PredicateSyntaxError("expected the variable of SUBQUERY (as in '$x'), found \(describe(current))", at: current.range)
        }
        _ = advance()
        _ = try expect(symbol: ",", "',' after the variable of SUBQUERY")
        let predicate = try orPredicate()
        let close = try expect(symbol: ")", "')' to close SUBQUERY")
        var suffix: [KeyPathComponent] = []
        var end = close.range
        if take(symbol: ".") != nil {
            guard case .keyPath(let components) = try keyPath(startingAt: close.range).kind else { fatalError("keyPath returns a key path") }
            suffix = components
            end = components.last!.range
        }
        return Expression(.subquery(collection: collection, variable: variable, predicate: predicate, suffix: suffix),
                          range: first.range.union(end))
    }

    private mutating func keyPath(startingAt start: SourceRange) throws(PredicateSyntaxError) -> Expression {
        var components: [KeyPathComponent] = []
        repeat {
            let token = current
            switch token.kind {
            case .identifier(let name, _):
                components.append(KeyPathComponent(.key(name), range: token.range))
            case .collectionOperator(let name):
                guard CollectionOperator(rawValue: name) != nil else {
                    let known = CollectionOperator.allCases.map { "@" + $0.rawValue }.joined(separator: ", ")
                    throw PredicateSyntaxError("unknown collection operator '@\(name)' (known: \(known))", at: token.range)
                }
                components.append(KeyPathComponent(.collectionOperator(name), range: token.range))
            default:
                throw PredicateSyntaxError("expected a key after '.', found \(describe(token))", at: token.range)
            }
            _ = advance()
            // `posts[FIRST]`, `[LAST]`, `[SIZE]`, `[2]`: an index into the collection before it.
            while current.isSymbol("[") {
                let open = advance()
                let index: CollectionIndex
                switch current.kind {
                case .identifier(let word, false) where ["FIRST", "LAST", "SIZE"].contains(word.uppercased()):
                    index = word.uppercased() == "FIRST" ? .first : word.uppercased() == "LAST" ? .last : .size
                case .number(let text) where Int(text) != nil && Int(text)! >= 0:
                    index = .position(Int(text)!)
                default:
                    throw PredicateSyntaxError("expected FIRST, LAST, SIZE or a whole number inside '[ ]', found \(describe(current))", at: current.range)
                }
                _ = advance()
                let close = try expect(symbol: "]", "']' after the index")
                components.append(KeyPathComponent(.index(index), range: open.range.union(close.range)))
            }
        } while take(symbol: ".") != nil
        return Expression(.keyPath(components), range: start.union(components.last!.range))
    }
}
