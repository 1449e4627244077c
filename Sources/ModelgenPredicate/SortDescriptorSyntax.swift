/// A sort descriptor as written in a model file: `createdAt desc`, `title`, `author.lastName asc`.
public struct SortDescriptorSyntax: Hashable, Sendable {
    /// The key path to sort by.
    public var keyPath: [KeyPathComponent]
    /// Ascending unless `desc` was written.
    public var ascending: Bool
    /// The whole text.
    public var range: SourceRange

    /// The key path as dotted text.
    public var keyPathText: String { keyPath.keyPathText }

    /// Parses `KEYPATH [asc|desc]`.
    public static func parse(_ text: String) throws(PredicateSyntaxError) -> SortDescriptorSyntax {
        var tokens = try Lexer.tokenize(text)
        var ascending = true
        if tokens.count >= 3, let keyword = tokens[tokens.count - 2].keyword, keyword == "ASC" || keyword == "DESC" {
            ascending = keyword == "ASC"
            tokens.remove(at: tokens.count - 2)
        }
        var components: [KeyPathComponent] = []
        var index = 0
        while true {
            let token = tokens[index]
            guard case .identifier(let name, _) = token.kind else {
                let message = components.isEmpty
                    ? "expected a key path to sort by, optionally followed by 'asc' or 'desc'"
                    : "expected a key after '.', or 'asc' / 'desc' at the end"
                throw PredicateSyntaxError(message, at: token.range)
            }
            components.append(KeyPathComponent(.key(name), range: token.range))
            index += 1
            if tokens[index].isSymbol(".") { index += 1; continue }
            if tokens[index].kind == .end { break }
            throw PredicateSyntaxError("expected 'asc' or 'desc' after the key path", at: tokens[index].range)
        }
        let end = text.unicodeScalars.count
        return SortDescriptorSyntax(keyPath: components, ascending: ascending, range: SourceRange(0, end))
    }
}
