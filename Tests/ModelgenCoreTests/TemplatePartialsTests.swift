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
            #expect(TemplatePartials.dynamicPartial(in: ["entity": text]) != nil, "\(text.debugDescription)")
            do {
                _ = try ModelEmitter(templates: ["entity": text])
                Issue.record("accepted \(text.debugDescription)")
            } catch let error as EmitError {
                #expect(error.diagnostics.first?.message.contains("partial named by the context") == true, "\(error)")
            } catch { Issue.record("\(error)") }
        }
        let located = TemplatePartials.dynamicPartial(in: ["entity": "x\n  {{>*kind}}"])
        #expect(located.map { ($0.template, $0.line, $0.column) } ?? ("", 0, 0) == ("entity", 2, 3))
    }
}
