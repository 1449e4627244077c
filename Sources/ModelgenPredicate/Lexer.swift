/// Splits predicate text into tokens, keeping each token's scalar range.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// All tokens of the text, ending with `.end`.
    static func tokenize(_ text: String) throws(PredicateSyntaxError) -> [Token] {
        var lexer = Lexer(text)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let i = index + offset
        return i < scalars.count ? scalars[i] : nil
    }

    // ASCII answered without Unicode property lookups (predicates are nearly all ASCII, and a model
    // may hold thousands of them).
    private static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        if c.value < 0x80 { return c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        return c.properties.isAlphabetic
    }

    private static func isWhitespace(_ c: Unicode.Scalar) -> Bool {
        if c.value < 0x80 { return c == " " || (0x09...0x0D).contains(c.value) }
        return c.properties.isWhitespace
    }

    /// The operators of two characters, and the spelling each stands for.
    private static let twoCharacter: [String: String] = [
        "==": "==", "!=": "!=", "<>": "!=", "<=": "<=", ">=": ">=", "=<": "<=", "=>": ">=", "&&": "&&", "||": "||",
    ]
    /// The characters a two-character operator starts with (no pair is looked up for others).
    private static let twoCharacterStarts = Set(twoCharacter.keys.compactMap(\.unicodeScalars.first))

    private static func isIdentifierContinue(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || ("0"..."9").contains(c)
    }

    private static func isDigit(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return ("0"..."9").contains(c)
    }

    private mutating func identifierText() -> String {
        var text = String.UnicodeScalarView()
        while let c = peek(), Lexer.isIdentifierContinue(c) {
            text.append(c)
            index += 1
        }
        return String(text)
    }

    mutating func next() throws(PredicateSyntaxError) -> Token {
        while let c = peek(), Lexer.isWhitespace(c) { index += 1 }
        let start = index
        guard let c = peek() else { return Token(kind: .end, range: SourceRange(start, start)) }

        if Lexer.isIdentifierStart(c) {
            let name = identifierText()
            return Token(kind: .identifier(name, escaped: false), range: SourceRange(start, index))
        }
        switch c {
        case "#", "$", "@":
            index += 1
            guard let first = peek(), Lexer.isIdentifierStart(first) else {
                let what = c == "$" ? "variable name" : c == "@" ? "collection operator name" : "key name"
                throw PredicateSyntaxError("expected a \(what) after '\(c)'", at: SourceRange(start, index))
            }
            let name = identifierText()
            let range = SourceRange(start, index)
            switch c {
            case "#": return Token(kind: .identifier(name, escaped: true), range: range)
            case "$": return Token(kind: .variable(name), range: range)
            default: return Token(kind: .collectionOperator(name), range: range)
            }
        case "'", "\"":
            return try stringLiteral(quote: c)
        default:
            break
        }
        if Lexer.isDigit(c) || (c == "." && Lexer.isDigit(peek(1))) {
            return numberLiteral()
        }
        if Lexer.twoCharacterStarts.contains(c), let d = peek(1),
           let normalized = Lexer.twoCharacter[String(String.UnicodeScalarView([c, d]))] {
            index += 2
            return Token(kind: .symbol(normalized), range: SourceRange(start, index))
        }
        if "(){}[],.:<>!=-".unicodeScalars.contains(c) {
            index += 1
            let symbol = c == "=" ? "==" : String(c)
            return Token(kind: .symbol(symbol), range: SourceRange(start, index))
        }
        throw PredicateSyntaxError("unexpected character '\(c)'", at: SourceRange(start, start + 1))
    }

    private mutating func numberLiteral() -> Token {
        let start = index
        var text = String.UnicodeScalarView()
        func take() { text.append(peek()!); index += 1 }
        while Lexer.isDigit(peek()) { take() }
        if peek() == ".", Lexer.isDigit(peek(1)) {
            take()
            while Lexer.isDigit(peek()) { take() }
        }
        if let e = peek(), e == "e" || e == "E" {
            let signed = peek(1) == "+" || peek(1) == "-"
            if Lexer.isDigit(peek(signed ? 2 : 1)) {
                take()
                if signed { take() }
                while Lexer.isDigit(peek()) { take() }
            }
        }
        return Token(kind: .number(String(text)), range: SourceRange(start, index))
    }

    private mutating func stringLiteral(quote: Unicode.Scalar) throws(PredicateSyntaxError) -> Token {
        let start = index
        index += 1
        var text = String.UnicodeScalarView()
        while let c = peek() {
            index += 1
            if c == quote {
                return Token(kind: .string(String(text)), range: SourceRange(start, index))
            }
            if c == "\\" {
                guard let escaped = peek() else { break }
                index += 1
                switch escaped {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "0": text.append("\0")
                default: text.append(escaped)
                }
            } else {
                text.append(c)
            }
        }
        throw PredicateSyntaxError("unterminated string literal", at: SourceRange(start, index))
    }
}
