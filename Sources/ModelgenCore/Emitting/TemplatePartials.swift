import Mustache

/// The partials templates include (`{{> entity}}`), so that a template including itself, directly or
/// through others, is refused before rendering: mustache would recurse until the stack overflows (the
/// context modelgen renders has no recursive data that could end such a recursion).
///
/// A user's template is judged by swift-mustache's own parse of it (its tokens, read by reflection), so
/// no spelling the engine reads as a partial can slip past; the scan of the text, which reads tags as
/// mustache does (set-delimiter tags included), places each one at its line and column, and judges the
/// built-in templates (`TemplatePartialsTests` checks that both readings agree on them).
enum TemplatePartials {
    /// A partial a template includes: its name, the 1-based line and column of its tag (1:1 when the
    /// scan did not place it), and whether the context names it (`{{>*name}}`), which no check can follow.
    typealias Reference = (name: String, line: Int, column: Int, dynamic: Bool)

    /// A tag of a template as the scan reads it: the text between its delimiters (a triple mustache's
    /// third brace dropped) and the position of its opening.
    typealias Tag = (text: Substring, line: Int, column: Int)

    /// Each partial a template includes, read from its text, with the position of its tag.
    static func references(in text: String) -> [Reference] {
        references(in: tags(in: text))
    }

    /// Each partial among a template's scanned tags, with the position of its tag.
    private static func references(in tags: [Tag]) -> [Reference] {
        tags.compactMap { tag in
            // Mustache skips any whitespace around a tag's name, line breaks included (`Character.isWhitespace`;
            // found by fuzz-template: `{{>` + newline + ` entity}}` hid a self-inclusion behind the break).
            guard tag.text.hasPrefix(">") || tag.text.hasPrefix("<") else { return nil }
            var name = trimmingWhitespace(tag.text.dropFirst())
            let dynamic = name.hasPrefix("*")
            if dynamic { name = trimmingWhitespace(name.dropFirst()) }
            return (String(name), tag.line, tag.column, dynamic)
        }
    }

    /// The position of the first tag that opens a section (`{{#…}}`, `{{^…}}`, a block `{{$…}}` or an
    /// inherited partial `{{<…}}`) nested `depth` deep among a template's scanned tags; nil without one.
    static func sectionOpening(atDepth depth: Int, in tags: [Tag]) -> (line: Int, column: Int)? {
        var open = 0
        for tag in tags {
            switch tag.text.first {
            case "#", "^", "$", "<":
                open += 1
                if open == depth { return (tag.line, tag.column) }
            case "/": open -= 1
            default: break
            }
        }
        return nil
    }

    /// The tags of a template as mustache reads them (set-delimiter tags followed), in order.
    static func tags(in text: String) -> [Tag] {
        var result: [Tag] = []
        var open = Array("{{"), close = Array("}}")
        let characters = Array(text)
        var index = 0, line = 1, lineStart = 0
        // Compared in place, without copying the slice at every position.
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
            var tag = Substring(String(characters[(tagStart + open.count)..<end]))
            // `{{{name}}}`: the third brace belongs to the tag.
            if tag.hasPrefix("{"), matches(Array("}"), at: end + close.count) { end += 1; tag.removeFirst() }
            let trimmed = trimmingWhitespace(tag)
            if trimmed.hasPrefix("="), trimmed.hasSuffix("="), trimmed.count > 2 {
                let parts = trimmed.dropFirst().dropLast().split(whereSeparator: \.isWhitespace)
                if parts.count == 2 { open = Array(parts[0]); close = Array(parts[1]) }
            }
            result.append((tag, line, tagStart - lineStart + 1))
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

    /// What swift-mustache's parse of a template holds, read by reflection: its partials (in sections,
    /// blocks and inherited partials too) and how deep its sections nest (0 without any).
    struct Parsed {
        /// The engine's `Token.partial(name, …)` and `.dynamicNamePartial(name, …)`, in order.
        var partials: [(name: String, dynamic: Bool)] = []
        /// The most templates nested inside one another below the template itself.
        var depth = 0
    }

    /// The partials and depth of a parsed template. It recurses as deep as the template nests: a user's
    /// template is read on a `LargeStack`.
    static func parsed(_ template: MustacheTemplate) -> Parsed {
        var parsed = Parsed()
        func walk(_ value: Any, depth: Int) {
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .enum, let payload = mirror.children.first,
               payload.label == "partial" || payload.label == "dynamicNamePartial",
               let name = Mirror(reflecting: payload.value).children.first?.value as? String {
                parsed.partials.append((name, payload.label == "dynamicNamePartial"))
            }
            for child in mirror.children where !(child.value is String) {
                let nested = child.value is MustacheTemplate ? depth + 1 : depth
                parsed.depth = max(parsed.depth, nested)
                walk(child.value, depth: nested)
            }
        }
        walk(template, depth: 0)
        return parsed
    }

    /// The engine's partials of a parsed template, each placed where the scan (its `tags`) found a tag
    /// of the same name (in order), 1:1 where it found none; the scan's reading alone if this build's
    /// swift-mustache cannot be read by reflection.
    static func references(in parsed: Parsed, placedBy tags: [Tag]) -> [Reference] {
        let scanned = references(in: tags)
        guard reflectionReadsTokens else { return scanned }
        var unplaced = scanned[...]
        return parsed.partials.map { partial in
            if let index = unplaced.firstIndex(where: { $0.name == partial.name && $0.dynamic == partial.dynamic }) {
                let placed = unplaced[index]
                unplaced.remove(at: index)
                return placed
            }
            return (partial.name, 1, 1, partial.dynamic)
        }
    }

    /// Whether reflection finds the partials and the depth of a template holding each kind of partial,
    /// nested: true for the swift-mustache this package pins (a test fails if an update changes that).
    static let reflectionReadsTokens: Bool = {
        guard let probe = try? MustacheTemplate(string: "{{>a}}{{#s}}{{>*b}}{{/s}}{{<c}}{{$d}}{{^t}}{{>e}}{{/t}}{{/d}}{{/c}}") else { return false }
        let found = parsed(probe)
        return found.partials.map(\.name) == ["a", "b", "c", "e"] && found.partials.map(\.dynamic) == [false, true, false, false]
            && found.depth == 2
    }()

    /// The first partial named by the context (`{{>*name}}`) among the templates' references (template
    /// name → its partials), as the template and the position of its tag; nil without one. Its name is a
    /// value of the model, so nothing can tell whether it includes a template from itself: modelgen refuses it.
    static func dynamicPartial(in edges: [String: [Reference]]) -> (template: String, line: Int, column: Int)? {
        for name in edges.keys.sorted() {
            if let reference = edges[name]!.first(where: \.dynamic) {
                return (name, reference.line, reference.column)
            }
        }
        return nil
    }

    /// The first cycle of partials among `sources` (template name → text), read by the scan alone.
    static func cycle(in sources: [String: String]) -> (path: [String], template: String, line: Int, column: Int)? {
        cycle(in: sources.mapValues { references(in: $0) })
    }

    /// The first cycle among the templates' references (template name → its partials), as the names
    /// along it and the position, in the template that closes it, of the tag that does; nil without one.
    static func cycle(in edges: [String: [Reference]]) -> (path: [String], template: String, line: Int, column: Int)? {
        var finished: Set<String> = []
        var stack: [String] = []
        func visit(_ name: String) -> (path: [String], template: String, line: Int, column: Int)? {
            if finished.contains(name) { return nil }
            stack.append(name)
            defer { stack.removeLast(); finished.insert(name) }
            for reference in edges[name] ?? [] where edges[reference.name] != nil {
                if let start = stack.firstIndex(of: reference.name) {
                    return (Array(stack[start...]) + [reference.name], name, reference.line, reference.column)
                }
                if let found = visit(reference.name) { return found }
            }
            return nil
        }
        for name in edges.keys.sorted() {
            if let found = visit(name) { return found }
        }
        return nil
    }
}
