import Mustache
import Testing
@testable import ModelgenCore

/// Partial cycles are found as mustache reads the tags, so no template recursion reaches the renderer.
@Suite struct TemplatePartialsTests {
    /// Found by fuzz-template (a stack overflow): an opening delimiter at the end of a line opens no tag
    /// for mustache, which reads the next line afresh; the scanner took `{{` to the next `}}` and missed
    /// the `{{>entity}}` on the next line.
    @Test func aDelimiterEndingALineDoesNotHideTheNextLinesPartial() {
        for text in ["{{\n{{>entity}}", "{{\r\n{{> entity}}\n", "x {{\n  {{>model-file}}"] {
            let cycle = TemplatePartials.cycle(in: ["entity": text, "model-file": "{{> entity}}"])
            #expect(cycle != nil, "\(text.debugDescription)")
            #expect(throws: EmitError.self) { try ModelEmitter(templates: ["entity": text]) }
        }
        #expect(TemplatePartials.references(in: "{{\n{{>entity}}").map(\.name) == ["entity"])
        #expect(TemplatePartials.references(in: "{{\n{{>entity}}").first.map { ($0.line, $0.column) } ?? (0, 0) == (2, 1))
    }

    /// Found by fuzz-template in CI (a stack overflow): mustache skips every whitespace character around
    /// a partial's name, line breaks and tabs included; the scanner trimmed spaces only, so
    /// `{{>` + newline + ` entity}}` named "\n entity" and hid the self-inclusion.
    @Test func whitespaceOfAnyKindAroundAPartialsNameDoesNotHideIt() throws {
        for text in ["{UnsafeMu}\n{{>\n entity}}\n", "{{>\tentity\t}}", "{{>\r\nentity\n}}", "{{<\n entity\n}}{{/entity}}",
                     "{{=\t<%\t%>\t=}}<%>\nentity%>", "{{= [[\n]] =}}[[> entity\n]]"] {
            #expect(TemplatePartials.cycle(in: ["entity": text]) != nil, "\(text.debugDescription)")
            #expect(throws: EmitError.self, "\(text.debugDescription)") { try ModelEmitter(templates: ["entity": text]) }
        }
        #expect(TemplatePartials.references(in: "a\n{{>\n entity}}").map(\.name) == ["entity"])
        // Not a cycle: other names, and a partial not among the templates.
        #expect(TemplatePartials.cycle(in: ["entity": "{{>\n header\n}}", "header": "// x"]) == nil)
        _ = try ModelEmitter(templates: ["entity": "{{>\nunknown-partial\n}}{{name}}"])
    }

    /// A partial named by the context (`{{>*name}}`) could name the template that includes it with a
    /// value of the model: no scan can follow it, so it is refused, with its position.
    @Test func aPartialNamedByTheContextIsRefused() {
        for text in ["x\n  {{>*kind}}", "{{> *kind}}", "{{>\n*\tkind}}"] {
            #expect(TemplatePartials.dynamicPartial(in: ["entity": TemplatePartials.references(in: text)]) != nil, "\(text.debugDescription)")
            do {
                _ = try ModelEmitter(templates: ["entity": text])
                Issue.record("accepted \(text.debugDescription)")
            } catch let error as EmitError {
                #expect(error.diagnostics.first?.message.contains("partial named by the context") == true, "\(error)")
            } catch { Issue.record("\(error)") }
        }
        let located = TemplatePartials.dynamicPartial(in: ["entity": TemplatePartials.references(in: "x\n  {{>*kind}}")])
        #expect(located.map { ($0.template, $0.line, $0.column) } ?? ("", 0, 0) == ("entity", 2, 3))
    }

    /// A user's template is judged by the engine's own parse (its tokens, by reflection): this build's
    /// swift-mustache can be read so, and on the built-in templates the scan and the parse agree, name
    /// for name and in order (the scan alone judges those).
    @Test func theEnginesParseAndTheScanAgreeOnTheBuiltInTemplates() throws {
        #expect(TemplatePartials.reflectionReadsTokens)
        var deepest = 0
        for (name, text) in BuiltinTemplates.all.sorted(by: { $0.key < $1.key }) {
            let template = try MustacheTemplate(string: text)
            let parsed = TemplatePartials.references(in: TemplatePartials.parsed(template), placedBy: TemplatePartials.tags(in: text))
            let scanned = TemplatePartials.references(in: text)
            #expect(parsed.map(\.name) == scanned.map(\.name), "\(name)")
            #expect(parsed.map(\.line) == scanned.map(\.line), "\(name)")
            deepest = max(deepest, TemplatePartials.parsed(template).depth)
        }
        #expect(deepest == 5, "the built-in templates nest \(deepest) deep (ModelEmitter.maximumSectionDepth's comment says 5)")
        #expect(BuiltinTemplates.all.values.contains { !TemplatePartials.references(in: $0).isEmpty })
        // The engine's reading stands on its own: a partial the scan did not place is placed at 1:1.
        let template = try MustacheTemplate(string: "{{#a}}{{>entity}}{{/a}}")
        #expect(TemplatePartials.references(in: TemplatePartials.parsed(template), placedBy: []).map { "\($0.name) \($0.line):\($0.column)" } == ["entity 1:1"])
    }

    /// Whatever the scan makes of a tag, a partial the engine reads is followed: each spelling here
    /// includes `entity` from itself, some inside sections, blocks and inherited partials.
    @Test func everyPartialTheEngineReadsIsFollowed() {
        for text in ["{{#a}}{{^b}}{{>entity}}{{/b}}{{/a}}", "{{<model-file}}{{$x}}{{>entity}}{{/x}}{{/model-file}}",
                     "{{=| |=}}|#a||> entity||/a|", "{{!}}{{>entity}}", "{{>\u{2028}entity\u{2028}}}"] {
            do {
                _ = try ModelEmitter(templates: ["entity": text])
                Issue.record("accepted \(text.debugDescription)")
            } catch let error as EmitError {
                #expect(error.message.contains("cycle") || error.message.contains("does not parse"), "\(text.debugDescription): \(error)")
            } catch { Issue.record("\(error)") }
        }
    }

    /// Sections nested deeper than `maximumSectionDepth` are refused at the tag that goes too deep, before
    /// the parse (a debug build's parser overflowed the stack at about 1,000); 32 deep in every template
    /// along the longest chain of partials renders.
    @Test func sectionsNestedTooDeepAreRefusedAndTheDeepestAllowedRender() throws {
        let limit = ModelEmitter.maximumSectionDepth
        func nested(_ depth: Int, _ inner: String) -> String {
            String(repeating: "{{#.}}", count: depth) + inner + String(repeating: "{{/.}}", count: depth)
        }
        for depth in [limit + 1, 100_000] {
            do {
                _ = try ModelEmitter(templates: ["entity": "// x\n" + nested(depth, "{{className}}")])
                Issue.record("accepted \(depth) deep")
            } catch let error as EmitError {
                let location = error.diagnostics.first?.location
                #expect(location.map { "\($0.line):\($0.column)" } == "2:\(6 * limit + 1)", "\(error)")
                #expect(error.message.contains("sections nest more than \(limit) deep"), "\(error)")
            }
        }
        let emitter = try ModelEmitter(templates: [
            "model-file": nested(limit - 1, "{{> header}}{{#entities}}{{> entity}}{{/entities}}"),
            "header": nested(limit, "// DO NOT EDIT\n"),
            "entity": nested(limit, "final class {{className}} {}\n"),
        ])
        let text = "model: Deep\nentities:\n  A: { attributes: { n: string } }\n  B: { attributes: { n: string } }\n"
        let validated = try #require(ModelCheck.run(text: text, path: "Deep.model.yaml").validated)
        var options = GenerationOptions()
        options.singleFile = true
        let files = try emitter.generate(validated, options: options)
        #expect(files.first?.contents.contains("final class A {}") == true, "\(files)")
    }

    /// The bound behind the scan: the engine's parse of a template nested thousands deep, read and
    /// dropped on the large stack (on the main thread's 8 MB a debug build overflowed at about 1,000).
    @Test func theLargeStackParsesReadsAndDropsDeepTemplates() throws {
        let depth = try LargeStack.run { () throws -> Int in
            let template = try MustacheTemplate(string: String(repeating: "{{#a}}", count: 5_000) + String(repeating: "{{/a}}", count: 5_000))
            return TemplatePartials.parsed(template).depth
        }
        #expect(depth == 5_000)
        #expect(throws: MustacheTemplate.ParserError.self) { try LargeStack.run { try MustacheTemplate(string: "{{#a}}") } }
    }
}
