import Foundation
@testable import ModelgenCore
import TestScratch
import Testing

/// The context's texts and numbers reach swift-mustache as `TemplateValue`s (rendered without the
/// engine's fallback casts); a custom template must not see a difference from plain strings and
/// integers: the same text, the same sections and inverted sections, the same transforms.
@Suite struct TemplateValueTests {
    static let model = """
        model: Shelf
        options: { access: public }
        entities:
          Book:
            doc: A book on the shelf.
            attributes:
              title: string
              pages: { type: int32, optional: true }
              repeat: string
        """

    static func render(_ entityTemplate: String) throws -> String {
        let check = ModelCheck.run(data: Data(model.utf8), path: "Shelf.model.yaml")
        let validated = try #require(check.validated, "\(check.diagnostics.map(\.message))")
        let emitter = try ModelEmitter(templates: ["entity-file": entityTemplate])
        let files = try emitter.generate(validated, options: GenerationOptions())
        return try #require(files.first { $0.name == "Book.swift" }).contents
    }

    @Test func valuesRenderAsTheirText() throws {
        #expect(try Self.render("{{className}}|{{access}}|{{#properties}}{{name}}:{{slot}},{{/properties}}")
            == "Book|public |title:0,pages:1,`repeat`:2,\n")
    }

    @Test func valuesTakeTheTransformsOfStringsAndIntegers() throws {
        let text = try Self.render("""
            {{uppercased(className)}} {{lowercased(entityName)}} {{capitalized(access)}} {{reversed(className)}}
            {{#properties}}{{plusone(slot)}}{{#even(slot)}}e{{/even(slot)}}{{^even(slot)}}o{{/even(slot)}} {{/properties}}
            {{#empty(superclassName)}}no superclass{{/empty(superclassName)}}{{^empty(superclassName)}}superclass {{superclassName}}{{/empty(superclassName)}}
            {{unknown(className)}}.
            """)
        #expect(text == """
            BOOK book Public  kooB
            1e 2o 3e
            superclass ModelgenRuntime.ManagedObject
            .

            """)
    }

    @Test func sectionsOfValuesScopeAsStringsDo() throws {
        // A text opens a section with itself as `{{.}}`; an empty one too (a string is never falsy in
        // swift-mustache), so an inverted section never renders for a value.
        let text = try Self.render("""
            {{#className}}[{{.}}]{{/className}}{{^className}}never{{/className}}
            {{#properties}}{{#key}}<{{.}}>{{/key}}{{/properties}}
            {{#properties}}{{#computeName}}({{.}}){{/computeName}}{{^computeName}}never{{/computeName}}{{/properties}}
            """)
        #expect(text == "[Book]\n<title><pages><repeat>\n()()()\n")
    }

    @Test func descriptionLinesAreTheTextWithoutItsIndentation() throws {
        let check = ModelCheck.run(data: Data(Self.model.utf8), path: "Shelf.model.yaml")
        let validated = try #require(check.validated)
        let lines = try ModelEmitter(templates: ["model-file": "{{#entityDescriptions}}{{#lines}}{{.}}\n{{/lines}}{{/entityDescriptions}}"])
            .generate(validated, options: GenerationOptions())[0].contents
        let text = try ModelEmitter(templates: ["model-file": "{{#entityDescriptions}}        {{text}}\n{{/entityDescriptions}}"])
            .generate(validated, options: GenerationOptions())[0].contents
        #expect(lines.split(separator: "\n").count == 12, "\(lines)")
        #expect(lines.hasPrefix("static let book: EntityDescription = EntityDescription(\"Book\", class: Book.self,\n    attributes: [\n        AttributeDescription(\"title\", .string),\n"), "\(lines)")
        #expect(text.split(separator: "\n").map { $0.dropFirst(8) } == lines.split(separator: "\n").map { $0[...] })
    }
}

/// Every generated file ends its lines without trailing spaces and ends with exactly one newline,
/// whatever the templates leave: the emitter's line-at-a-time pass gives what the rule says, on
/// texts of every shape (checked against the rule written out plainly).
@Suite struct WhitespaceNormalizationTests {
    static func plainly(_ text: String) -> String {
        let lines = text.components(separatedBy: "\n").map { line in
            var line = line
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
        var joined = lines.joined(separator: "\n")
        while joined.hasSuffix("\n") { joined.removeLast() }
        return joined + "\n"
    }

    @Test func linesLoseTrailingSpacesAndTheTextEndsWithOneNewline() {
        let fixed = ["", " ", "\n", "\n\n\n", "a", "a ", "a\n", "a \n b  \n", "  \n  x\t \n\n", "é  \nü\t\n \u{2028} \n", "x\n\n\ny   "]
        let seed = SeededGenerator.seed(or: 20_261_202)
        var generator = SeededGenerator(seed: seed)
        let alphabet: [String] = [" ", " ", "\n", "a", "\t", "é", "//", "}"]
        let random = (0..<300).map { _ in (0..<Int.random(in: 0..<60, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined() }
        for text in fixed + random {
            #expect(ModelEmitter.normalizeWhitespace(text) == Self.plainly(text), "\(Array(text.utf8)) (MODELGEN_TEST_SEED=\(seed))")
        }
    }
}
