/// One lexical token of the predicate language.
struct Token: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// A name: a key, a keyword or a function name. `#name` escapes a keyword.
        case identifier(String, escaped: Bool)
        /// `$NAME`.
        case variable(String)
        /// `@count`, `@sum`, … (the name without `@`).
        case collectionOperator(String)
        /// A quoted string literal, unescaped.
        case string(String)
        /// A decimal number literal, as written.
        case number(String)
        /// Punctuation and operators: `( ) { } [ ] , . : == != < <= > >= && || ! - =`.
        case symbol(String)
        case end
    }

    var kind: Kind
    var range: SourceRange

    /// The upper-cased identifier text if this is an unescaped identifier, used for keywords.
    var keyword: String? {
        if case .identifier(let name, let escaped) = kind, !escaped { return name.uppercased() }
        return nil
    }

    func isSymbol(_ text: String) -> Bool {
        if case .symbol(let s) = kind { return s == text }
        return false
    }
}
