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
}
