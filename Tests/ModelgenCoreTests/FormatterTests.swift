import Foundation
import Testing
@testable import ModelgenCore

@Suite struct FormatterTests {
    static let messy = """
        # The model's header comment.
        entities:
          Post:   # posts
            relationships:
              author: {inverse: posts, destination: Author}
            attributes:
              title: {type: string}
              # a leading comment
              rating: {max: 5, type: int16, min: 0, default: 0}  # stars
              note: {type: string, optional: true}
              body:
                type: string
                doc: |
                  Markdown; a # here is text.
                  Second line.
              slug: {regex: "^[a-z-]+$ #x", type: string}
          Author:
            attributes: {name: 'string'}
            relationships:
              posts: {toMany: true, destination: Post, inverse: author}
        model: Blog
        # the end
        """

    static let expected = """
        # The model's header comment.
        model: Blog

        entities:
          Post:  # posts
            attributes:
              title: string
              # a leading comment
              rating: { type: int16, default: 0, min: 0, max: 5 }  # stars
              note: string?
              body:
                type: string
                doc: |
                  Markdown; a # here is text.
                  Second line.
              slug: { type: string, regex: '^[a-z-]+$ #x' }
            relationships:
              author: { destination: Author, inverse: posts }

          Author:
            attributes:
              name: string
            relationships:
              posts: { destination: Post, toMany: true, inverse: author }
        # the end

        """

    func format(_ text: String) throws -> String {
        try ModelFormatter.format(data: Data(text.utf8), path: "m.model.yaml").get()
    }

    /// The canonical order names every key the parser accepts, and docs/interop.md lists it as it is.
    @Test func theCanonicalOrderHasEveryKeyAndIsTheDocumentedOne() throws {
        typealias Order = ModelDocumentCanonicalizer
        let kinds: [(String, [String], KeySet)] = [
            ("top level", Order.topLevel, ModelParser.Keys.topLevel), ("options", Order.options, ModelParser.Keys.options),
            ("composite", Order.composite, ModelParser.Keys.composite), ("entity", Order.entity, ModelParser.Keys.entity),
            ("attribute (and composite field)", Order.attribute, ModelParser.Keys.attribute),
            ("relationship", Order.relationship, ModelParser.Keys.relationship),
            ("fetched property", Order.fetchedProperty, ModelParser.Keys.fetchedProperty),
            ("fetch request", Order.fetchRequest, ModelParser.Keys.fetchRequest),
        ]
        let interop = try String(contentsOf: packageRoot.appendingPathComponent("docs/interop.md"), encoding: .utf8)
        for (kind, order, keys) in kinds {
            #expect(Set(order) == keys.set, "\(kind): the formatter's order misses \(keys.set.subtracting(order).sorted())")
            let line = "  - \(kind): " + order.map { "`\($0)`" }.joined(separator: ", ")
            #expect(interop.contains(line + "\n"), "docs/interop.md does not list the \(kind)'s order as:\n\(line)")
        }
    }

    @Test func canonicalLayoutKeepsEveryComment() throws {
        let formatted = try format(Self.messy)
        #expect(formatted == Self.expected, "\(UnifiedDiff.diff(old: Self.expected, new: formatted, oldName: "expected", newName: "formatted"))")
        #expect(try format(formatted) == formatted, "formatting twice changes nothing")
    }

    @Test(arguments: ["Examples/Blog/Blog.model.yaml", "Examples/Graphics/Graphics.model.yaml"])
    func formattingKeepsTheModel(_ path: String) throws {
        let original = try Data(contentsOf: packageRoot.appendingPathComponent(path))
        let formatted = try ModelFormatter.format(data: original, path: path).get()
        #expect(try format(formatted) == formatted)
        // The same model: the Core Data export (every field of the model) is byte for byte the same.
        let before = try #require(ModelCheck.run(data: original, path: path).model)
        let after = try #require(ModelCheck.run(text: formatted, path: path).model)
        #expect(XcodeModelExporter.export(before).xml == XcodeModelExporter.export(after).xml)
        let comments = { (text: String) -> [String] in
            text.split(separator: "\n").compactMap { line in line.range(of: "# ").map { String(line[$0.lowerBound...]) } }
        }
        #expect(comments(String(decoding: original, as: UTF8.self)).sorted() == comments(formatted).sorted())
    }

    /// An entity or composite written with nothing under it (`Tag:`) stays so: it was written `Tag: ''`,
    /// which the parser refuses (found by fuzz-model: format(format(x)) failed).
    @Test func emptyEntitiesAndCompositesStayEmpty() throws {
        let text = "model: M\n\ncomposites:\n  Nothing:\n\nentities:\n  Tag:\n\n  Post:\n    attributes:\n      title: string\n      extra: Nothing?\n"
        let formatted = try ModelFormatter.format(data: Data(text.utf8), path: "M.model.yaml").get()
        #expect(formatted == text, "\(formatted)")
        #expect(try ModelFormatter.format(data: Data(formatted.utf8), path: "M.model.yaml").get() == formatted)
        #expect(!ModelCheck.run(text: formatted, path: "M.model.yaml").hasErrors)
    }

    /// U+FFFE and U+FFFF are not allowed in a YAML file at all: written raw (in single quotes), the
    /// formatted file did not read back (found by fuzz-model: `default: "\uFFFF"`). They are escaped,
    /// in values and in keys, and the value reads back unchanged.
    @Test(arguments: ["\\uFFFF", "\\uFFFE", "a\\uFFFFb\\uFFFDc"])
    func nonCharactersYAMLForbidsAreEscaped(_ escaped: String) throws {
        let text = "model: M\nentities:\n  Q:\n    attributes:\n      p: {type: string, default: \"\(escaped)\"}\n    userInfo: {\"k\(escaped)\": v}\n"
        let formatted = try ModelFormatter.format(data: Data(text.utf8), path: "M.model.yaml").get()
        #expect(try ModelFormatter.format(data: Data(formatted.utf8), path: "M.model.yaml").get() == formatted)
        let original = ModelCheck.run(text: text, path: "M.model.yaml"), again = ModelCheck.run(text: formatted, path: "M.model.yaml")
        #expect(!again.hasErrors, "\(again.diagnostics) in\n\(formatted)")
        let value = original.model?.entities.first?.attributes.first?.defaultValue?.value
        #expect(value != nil && again.model?.entities.first?.attributes.first?.defaultValue?.value == value)
    }

    /// A carriage return alone is a line break for YAML, and for the comment scanner, which splits lines
    /// as libyaml does (found by fuzz-model: the text after one inside a comment came back as a second
    /// key, when the scanner split at line feeds only; format refused such files until lines were split alike).
    @Test func bareCarriageReturnsAreLineBreaks() throws {
        let text = "model: M\nentities:\n  Post:\n    attributes:\n      title: string  # a note\r    indexes: [[title]]\n"
        let formatted = try format(text)
        #expect(formatted == "model: M\n\nentities:\n  Post:\n    attributes:\n      title: string  # a note\n    indexes: [[title]]\n")
        #expect(try format(formatted) == formatted)
    }

    /// A plain value that folds into several lines (an empty line inside it, or bare carriage returns)
    /// is written as a `|` block, and formatting again keeps it so (found by fuzz-model: it was written
    /// quoted, and the quoted value became a block the second time).
    @Test(arguments: ["aut\n\n\n   hor", "aut\r\r\rhor"])
    func foldedPlainValuesAreFormattedOnce(_ value: String) throws {
        let text = "model: M\nentities:\n  Post:\n    userInfo: { note: \(value), other: x }\n"
        let once = try format(text)
        #expect(once == "model: M\n\nentities:\n  Post:\n    userInfo:\n      note: |-\n        aut\n\n        hor\n      other: x\n", "\(once)")
        #expect(try format(once) == once)
        let found = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/model-folded-plain-value.yaml"))
        let formatted = try ModelFormatter.format(data: found, path: "m.model.yaml").get()
        #expect(try format(formatted) == formatted)
    }

    /// CR LF line endings, in the whole file or on one line: format reads the lines as libyaml numbers
    /// them, so every comment stays with its key, and writes LF. (Found by fuzz-model: a header comment
    /// ending in CR LF before `model:` made format write `model:` twice; splitting the text at `"\n"`
    /// saw CR LF as one character, so a CR LF file was one line and lost its comments.)
    @Test(arguments: [true, false])
    func windowsLineEndingsKeepEveryComment(everyLine: Bool) throws {
        let unix = Self.messy + "\n"
        let windows = everyLine ? unix.replacingOccurrences(of: "\n", with: "\r\n")
                                : unix.replacingOccurrences(of: "comment.\n", with: "comment.\r\n")
        #expect(windows != unix)
        let formatted = try format(windows)
        #expect(formatted == Self.expected, "\(UnifiedDiff.diff(old: Self.expected, new: formatted, oldName: "expected", newName: "formatted"))")
        // The fuzz input's shape: a header comment in CR LF, then LF lines.
        let finding = "# header\r\nmodel: Bad\nentities:\n  Item:\n"
        #expect(try format(finding) == "# header\nmodel: Bad\n\nentities:\n  Item:\n")
        let input = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/model-crlf-comment.yaml"))
        let once = try ModelFormatter.format(data: input, path: "m.model.yaml").get()
        #expect(once.components(separatedBy: "model: Bad").count == 2, "\(once)")
        #expect(try format(once) == once)
    }

    @Test func refusesWhatItCannotRewrite() throws {
        let aliased = "model: A\nentities:\n  P: &p\n    attributes: { a: string }\n  Q: *p\n"
        guard case .failure(let problems) = ModelFormatter.format(data: Data(aliased.utf8), path: "a.model.yaml") else {
            Issue.record("an aliased file was formatted")
            return
        }
        #expect(problems.all.first?.description.contains("a.model.yaml:3:6: error: format does not rewrite files that use YAML anchors") == true,
                "\(problems.all)")
        guard case .failure(let errors) = ModelFormatter.format(data: Data("model: A\nentities:\n  P: { atributes: {} }\n".utf8), path: "b.model.yaml") else {
            Issue.record("a file with an unknown key was formatted")
            return
        }
        #expect(errors.all.contains { $0.message.contains("unknown key 'atributes'") })
    }
}
