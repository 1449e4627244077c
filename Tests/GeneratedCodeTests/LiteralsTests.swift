import Foundation
import ModelgenRuntime
import Testing

/// The code generated from Tests/Models/Literals.model.yaml (text Swift source must escape: quotes,
/// backslashes, `\(…)`, raw and multi-line delimiters, control, bidirectional and zero-width
/// characters, keyword names; doc comments that try to end themselves or to start a line of code)
/// compiles with warnings as errors, and every value reads back exactly as the model wrote it.
@Suite struct LiteralsTests {
    @Test func everyModelStringReadsBackAsWritten() throws {
        let container = try ManagedContainer(model: LiteralsModel.model, store: .inMemory)
        let context = container.newContext()
        let quoting = Quoting(context: context)
        #expect(quoting.plain == #"say "hi""#)
        #expect(quoting.backslash == #"C:\path\n\t\u{41}"#)
        #expect(quoting.interpolation == ##"\(1 + 1) and #"raw"# and """triple""""##)
        #expect(quoting.unicode == "é 🦊 \u{202E}right-to-left\u{202C} \u{200B}zero-width \u{0}nul \u{85}next-line \u{FFFF}noncharacter")
        #expect(quoting.newline == "line one\nline two\r\nline three\u{2028}four")
        #expect(quoting.default == 1 && quoting.protocol == "keyword names")
        #expect(quoting.func == 0 && quoting.func.sign == .minus)

        let entity = try #require(LiteralsModel.model.entity(named: "Quoting"))
        #expect(entity.userInfo == [#"key "with" \quotes"#: #""quoted" \ and */"#])
        #expect(entity.ownAttributes.first { $0.name == "pattern" }?.regex == #"^[\\"\\\\]+\(x\)$"#)
        #expect(LiteralsModel.model.fetchRequestTemplates["quoted"]?.predicate == #"plain == "say \"hi\"" OR backslash BEGINSWITH 'C:\\'"#)
        let paged = try #require(LiteralsModel.model.fetchRequestTemplates["paged"])
        #expect(paged.predicate == nil && paged.sortDescriptors == ["plain", "backslash DESC"] && paged.fetchLimit == 5 && paged.fetchOffset == 10)
        #expect(LiteralsModel.model.configurations[#"Cloud "sync""#] == ["Quoting"] && LiteralsModel.model.configurations["Local"] == ["Quoting"])

        quoting.pattern = #"\"\\(x)"#
        try context.save()
        #expect(try context.fetch(LiteralsModel.quoted()).count == 1, "the predicate's escapes survived: it matches 'say \"hi\"'")
    }
}
