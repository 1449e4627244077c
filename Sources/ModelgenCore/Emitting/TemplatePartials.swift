/// The partials templates include (`{{> entity}}`), read as mustache reads tags, set-delimiter tags
/// (`{{=<% %>=}}`) included, so that a template including itself, directly or through others, is refused
/// before rendering: mustache would recurse until the stack overflows (the context modelgen renders
/// has no recursive data that could end such a recursion).
enum TemplatePartials {
    /// Each partial a template includes, with the 1-based line and column of its tag; `dynamic` for a
    /// partial named by a value of the context (`{{>*name}}`), which no scan can follow.
    static func references(in text: String) -> [(name: String, line: Int, column: Int, dynamic: Bool)] {
        var result: [(String, Int, Int, Bool)] = []
        var open = Array("{{"), close = Array("}}")
        let characters = Array(text)
        var index = 0, line = 1, lineStart = 0
        // Compared in place: copying the slice into an array at every position made loading the
        // built-in templates take 4 ms of each run.
        func matches(_ delimiter: [Character], at position: Int) -> Bool {
            position + delimiter.count <= characters.count && characters[position..<position + delimiter.count].elementsEqual(delimiter)
        }
        while index < characters.count {
            if characters[index] == "\n" { line += 1; lineStart = index + 1 }
            guard matches(open, at: index) else { index += 1; continue }
            // An opening delimiter at the end of a line opens no tag for mustache: it reads the next line
            // afresh (found by fuzz-template: `{{` + newline + `{{>entity}}` hid a self-inclusion).
            if index + open.count < characters.count, characters[index + open.count].isNewline {
                index += open.count
                continue
            }
            let tagStart = index
            var end = index + open.count
            while end < characters.count, !matches(close, at: end) { end += 1 }
            guard end < characters.count else { break }
            var tag = String(characters[(tagStart + open.count)..<end])
            // `{{{name}}}`: the third brace belongs to the tag.
            if tag.hasPrefix("{"), matches(Array("}"), at: end + close.count) { end += 1; tag.removeFirst() }
            // Mustache skips any whitespace around a tag's name, line breaks included (`Character.isWhitespace`;
            // found by fuzz-template: `{{>` + newline + ` entity}}` hid a self-inclusion behind the break).
            let trimmed = Self.trimmingWhitespace(Substring(tag))
            if trimmed.hasPrefix("="), trimmed.hasSuffix("="), trimmed.count > 2 {
                let parts = trimmed.dropFirst().dropLast().split(whereSeparator: \.isWhitespace)
                if parts.count == 2 { open = Array(parts[0]); close = Array(parts[1]) }
            } else if trimmed.hasPrefix(">") || trimmed.hasPrefix("<") {
                var name = Self.trimmingWhitespace(trimmed.dropFirst())
                let dynamic = name.hasPrefix("*")
                if dynamic { name = Self.trimmingWhitespace(name.dropFirst()) }
                result.append((String(name), line, tagStart - lineStart + 1, dynamic))
            }
            for position in tagStart..<min(end + close.count, characters.count) where characters[position] == "\n" {
                line += 1
                lineStart = position + 1
            }
            index = end + close.count
        }
        return result
    }

    /// `text` without the whitespace (as `Character.isWhitespace` has it, line breaks included) at either end.
    private static func trimmingWhitespace(_ text: Substring) -> Substring {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
              let last = text.lastIndex(where: { !$0.isWhitespace }) else { return text[text.endIndex...] }
        return text[first...last]
    }

    /// The first partial among `sources` (template name → text) named by the context (`{{>*name}}`), as the
    /// template and the position of its tag; nil without one. Its name is a value of the model, so no
    /// scan can tell whether it includes a template from itself: modelgen refuses it.
    static func dynamicPartial(in sources: [String: String]) -> (template: String, line: Int, column: Int)? {
        for name in sources.keys.sorted() {
            if let reference = references(in: sources[name]!).first(where: \.dynamic) {
                return (name, reference.line, reference.column)
            }
        }
        return nil
    }

    /// The first cycle of partials among `sources` (template name → text), as the names along it and
    /// the position, in the template that closes it, of the tag that does; nil without one.
    static func cycle(in sources: [String: String]) -> (path: [String], template: String, line: Int, column: Int)? {
        let edges = sources.mapValues(references)
        var finished: Set<String> = []
        var stack: [String] = []
        func visit(_ name: String) -> (path: [String], template: String, line: Int, column: Int)? {
            if finished.contains(name) { return nil }
            stack.append(name)
            defer { stack.removeLast(); finished.insert(name) }
            for reference in edges[name] ?? [] where sources[reference.name] != nil {
                if let start = stack.firstIndex(of: reference.name) {
                    return (Array(stack[start...]) + [reference.name], name, reference.line, reference.column)
                }
                if let found = visit(reference.name) { return found }
            }
            return nil
        }
        for name in sources.keys.sorted() {
            if let found = visit(name) { return found }
        }
        return nil
    }
}
