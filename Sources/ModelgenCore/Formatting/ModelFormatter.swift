import Foundation
import Yams

/// `modelgen format`: a model file rewritten in the canonical layout (`ModelDocumentCanonicalizer`,
/// `YAMLDocumentWriter`), every comment kept with the entry it stands before or beside.
///
/// Comments are found in the text (libyaml does not report them): whole-line comments belong to the
/// next key or list item, a comment after code to the first key or item on its line.
public enum ModelFormatter {
    /// The formatted text, or the diagnostics that stop formatting (the file does not parse as a model).
    public static func format(data: Data, path: String) -> Result<String, DiagnosticList> {
        let parsed = ModelParser.parse(data: data, path: path)
        var problems = DiagnosticList()
        problems.append(contentsOf: parsed.diagnostics.filter { $0.severity == .error })
        if problems.hasErrors { return .failure(problems) }
        switch YAMLLoader.loadDocument(data, path: path) {
        case .failure(let diagnostics):
            return .failure(diagnostics)
        case .success(let (source, root)):
            var converter = Converter(source: source)
            guard case .mapping(let mapping) = converter.convert(root) else {
                problems.error(.wrongKind, "the model file is not a mapping", at: SourceLocation(file: path, line: 1, column: 1))
                return .failure(problems)
            }
            if let alias = converter.aliasLocation {
                problems.error(.cannotFormat, "format does not rewrite files that use YAML anchors or aliases (&name, *name): write the values out first",
                               at: alias)
                return .failure(problems)
            }
            let document = YAMLDocument(root: mapping, headerComments: converter.header, trailingComments: converter.remainingComments())
            return .success(YAMLDocumentWriter.write(ModelDocumentCanonicalizer.canonical(document)).text)
        }
    }

    /// A comment found in the text.
    struct Comment {
        var line: Int
        var column: Int
        /// The text after `#`.
        var text: String
        /// True when only whitespace precedes it on its line.
        var isWholeLine: Bool
    }

    /// Node → `YAMLDocument`, claiming the comments of each key and item.
    fileprivate struct Converter {
        let source: SourceText
        let lines: [Substring]
        /// Comments by the position of the key or item they belong to.
        var leading: [Position: [String]] = [:]
        var trailing: [Position: String] = [:]
        var unattached: [String] = []
        /// Whole-line comments before the first key: the file's header.
        var header: [String] = []
        var aliasLocation: SourceLocation?

        struct Position: Hashable, Comparable {
            var line: Int
            var column: Int
            static func < (a: Position, b: Position) -> Bool { (a.line, a.column) < (b.line, b.column) }
        }

        init(source: SourceText) {
            self.source = source
            lines = source.lines
        }

        mutating func convert(_ root: Node) -> YAMLValue {
            var anchors: [Position] = []
            var quoted: [Position: Node.Scalar.Style] = [:]
            collect(root, anchors: &anchors, quoted: &quoted)
            assign(CommentScanner.comments(in: lines, quoted: quoted), to: anchors.sorted())
            return value(root)
        }

        func remainingComments() -> [String] { unattached }

        private func position(_ node: Node) -> Position {
            Position(line: node.mark?.line ?? 0, column: node.mark?.column ?? 0)
        }

        /// Every key and item position (where comments attach) and every quoted or block scalar (where `#` is not a comment).
        private mutating func collect(_ node: Node, anchors: inout [Position], quoted: inout [Position: Node.Scalar.Style]) {
            if aliasLocation == nil, let mark = node.mark, mark.line >= 1, mark.line <= lines.count {
                let line = lines[mark.line - 1].unicodeScalars
                if let scalar = line.dropFirst(mark.column - 1).first, scalar == "&" || scalar == "*" {
                    aliasLocation = SourceLocation(file: source.path, line: mark.line, column: mark.column)
                }
            }
            switch node {
            case .scalar(let scalar):
                if scalar.style != .plain && scalar.style != .any { quoted[position(node)] = scalar.style }
            case .mapping(let mapping):
                for (key, value) in mapping {
                    anchors.append(position(key))
                    collect(key, anchors: &anchors, quoted: &quoted)
                    collect(value, anchors: &anchors, quoted: &quoted)
                }
            case .sequence(let sequence):
                for item in sequence {
                    anchors.append(position(item))
                    collect(item, anchors: &anchors, quoted: &quoted)
                }
            default: // an alias (Yams 6; Yams 5 resolves aliases before this tree exists)
                aliasLocation = SourceLocation(file: source.path, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
            }
        }

        private mutating func assign(_ comments: [Comment], to anchors: [Position]) {
            for comment in comments {
                if comment.isWholeLine, let first = anchors.first, comment.line < first.line {
                    header.append(comment.text)
                } else if !comment.isWholeLine, let first = anchors.first(where: { $0.line == comment.line }), trailing[first] == nil {
                    trailing[first] = comment.text
                } else if let next = anchors.first(where: { $0.line > comment.line }) {
                    leading[next, default: []].append(comment.text)
                } else {
                    unattached.append(comment.text)
                }
            }
        }

        private mutating func claim(_ node: Node) -> YAMLComments {
            let key = position(node)
            defer { leading[key] = nil; trailing[key] = nil }
            return YAMLComments(leading: leading[key] ?? [], trailing: trailing[key])
        }

        private mutating func value(_ node: Node) -> YAMLValue {
            switch node {
            case .scalar(let scalar):
                // A plain scalar that folded into several lines is text: written as a `|` block, as it
                // then reads back (a token of several lines was quoted, and the quoted text became a
                // block the next time: found by fuzz-model).
                let isToken = scalar.style == .plain && !scalar.string.unicodeScalars.contains("\n")
                return .scalar(YAMLScalar(scalar.string, kind: isToken ? .token : .text))
            case .mapping(let mapping):
                var result = YAMLMapping()
                for (key, value) in mapping {
                    let comments = claim(key)
                    result.entries.append(.init(key.string ?? "", self.value(value), comments: comments))
                }
                return .mapping(result)
            case .sequence(let sequence):
                var result = YAMLSequence()
                for item in sequence {
                    let comments = claim(item)
                    result.items.append(.init(self.value(item), comments: comments))
                }
                return .sequence(result)
            default: // an alias (Yams 6); refused before formatting
                return .scalar(.text(""))
            }
        }
    }
}

/// Finds `#` comments in YAML text, skipping quoted scalars and block scalars (whose `#` is text).
fileprivate enum CommentScanner {
    static func comments(in lines: [Substring], quoted: [ModelFormatter.Converter.Position: Node.Scalar.Style]) -> [ModelFormatter.Comment] {
        var comments: [ModelFormatter.Comment] = []
        var quote: Unicode.Scalar?          // inside '…' or "…", across lines
        var blockIndent: Int?                // inside a block scalar's content: the parent's indentation
        var pendingBlock: Int?               // a block scalar header was on this line: its key's indentation
        for (index, line) in lines.enumerated() {
            let number = index + 1
            let scalars = Array(line.unicodeScalars)
            let indent = scalars.prefix { $0 == " " }.count
            let isBlank = scalars.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
            if let parent = blockIndent {
                if isBlank || indent > parent { continue }
                blockIndent = nil
            }
            var column = 0
            var escaped = false
            while column < scalars.count {
                let scalar = scalars[column]
                let position = ModelFormatter.Converter.Position(line: number, column: column + 1)
                if let open = quote {
                    if open == "\"" {
                        if escaped { escaped = false } else if scalar == "\\" { escaped = true } else if scalar == "\"" { quote = nil }
                    } else if scalar == "'" {
                        if column + 1 < scalars.count, scalars[column + 1] == "'" { column += 1 } else { quote = nil }
                    }
                    column += 1
                    continue
                }
                if let style = quoted[position] {
                    switch style {
                    case .singleQuoted: quote = "'"
                    case .doubleQuoted: quote = "\""
                    case .literal, .folded: pendingBlock = indent
                    default: break
                    }
                    column += 1
                    continue
                }
                if scalar == "#", column == 0 || scalars[column - 1] == " " || scalars[column - 1] == "\t" {
                    let text = String(String.UnicodeScalarView(scalars[(column + 1)...])).trimmingTrailingCarriageReturn()
                    let wholeLine = scalars[..<column].allSatisfy { $0 == " " || $0 == "\t" }
                    comments.append(ModelFormatter.Comment(line: number, column: column + 1, text: text, isWholeLine: wholeLine))
                    break
                }
                column += 1
            }
            if let parent = pendingBlock {
                blockIndent = parent
                pendingBlock = nil
            }
        }
        return comments
    }
}

private extension String {
    func trimmingTrailingCarriageReturn() -> String {
        hasSuffix("\r") ? String(dropLast()) : self
    }
}
