import Foundation
import Testing

/// docs/templates.md documents the template context (the names custom templates may use); this test
/// ties it to the view models in Sources/ModelgenCore/Emitting/TemplateViews.swift both ways (issue 21):
/// every name a view answers is documented in its section, and every name in a section's table is
/// answered by its view. Adding, renaming or removing a context key without the docs fails here.
@Suite struct TemplateContextDocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Each view model and the docs sections that document its names.
    static let sections: [String: [String]] = [
        "ModelView": ["Model"], "EntityView": ["Entity"], "CompositeView": ["Composite"], "CompositeFieldView": ["Composite"],
        "PropertyView": ["Property", "Entity"], "ParameterView": ["Parameter and fetch helper"], "FetchHelperView": ["Parameter and fetch helper"], "RowFieldView": ["Parameter and fetch helper"],
        "ListItemView": ["Model"], "FetchTemplateView": ["Model"], "ConfigurationView": ["Model"], "ValueTypeView": ["Model"], "DocLineView": ["Documentation"],
    ]

    /// Plumbing views that only carry others (`FileView`: the model and an entity; `DescriptionLines`: `lines`).
    static let plumbing: Set<String> = ["FileView", "DescriptionLines"]

    /// The names each view answers in `child(named:)`, read from the source.
    static func viewKeys() throws -> [String: Set<String>] {
        let source = try String(contentsOf: root.appendingPathComponent("Sources/ModelgenCore/Emitting/TemplateViews.swift"), encoding: .utf8)
        var keys: [String: Set<String>] = [:]
        var current: String?
        for line in source.split(separator: "\n") {
            if let match = line.firstMatch(of: /^(?:public )?struct (\w+): MustacheParent/) {
                current = plumbing.contains(String(match.1)) ? nil : String(match.1)
            } else if line.hasPrefix("struct ") || line.hasPrefix("public struct ") {
                current = nil
            }
            guard let view = current, line.contains("case \"") else { continue }
            for match in line.matches(of: /"(\w+)"/) { keys[view, default: []].insert(String(match.1)) }
        }
        return keys
    }

    /// Each `## Section` of docs/templates.md: its text, and the names in the first column of its table.
    static func docSections() throws -> [String: (text: String, tableNames: Set<String>)] {
        let docs = try String(contentsOf: root.appendingPathComponent("docs/templates.md"), encoding: .utf8)
        var result: [String: (text: String, tableNames: Set<String>)] = [:]
        for chunk in docs.components(separatedBy: "\n## ").dropFirst() {
            let title = String(chunk.prefix { $0 != "\n" })
            var names: Set<String> = []
            for line in chunk.split(separator: "\n") where line.hasPrefix("| `") {
                let first = line.dropFirst(2).prefix { $0 != "|" }
                for match in first.matches(of: /`(\w+)`/) { names.insert(String(match.1)) }
            }
            result[title] = (chunk, names)
        }
        return result
    }

    @Test func everyContextNameIsDocumentedAndEveryDocumentedNameExists() throws {
        let keys = try Self.viewKeys()
        let docs = try Self.docSections()
        #expect(Set(keys.keys) == Set(Self.sections.keys), "views: \(keys.keys.sorted())")
        for (view, titles) in Self.sections {
            let answered = keys[view] ?? []
            #expect(!answered.isEmpty, "\(view) answers no names")
            let text = titles.compactMap { docs[$0]?.text }.joined(separator: "\n")
            #expect(!text.isEmpty, "docs/templates.md has no section \(titles)")
            for key in answered.sorted() {
                #expect(text.contains("`\(key)`"), "\(view) answers '\(key)', which docs/templates.md (\(titles.joined(separator: ", "))) does not document")
            }
        }
        // Each table lists names its view (or, for Entity, the property views it lists) answers.
        for (title, views) in [("Model", ["ModelView"]), ("Entity", ["EntityView"]), ("Composite", ["CompositeView"]), ("Property", ["PropertyView"])] {
            let answered = views.reduce(into: Set<String>()) { $0.formUnion(keys[$1] ?? []) }
            for name in (docs[title]?.tableNames ?? []).sorted() {
                #expect(answered.contains(name), "docs/templates.md (\(title)) documents '\(name)', which no \(views.joined()) answers")
            }
        }
    }
}
