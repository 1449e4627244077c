import Foundation
@testable import ModelgenCore
import ModelgenPredicate
import Testing

@Suite struct ParserTests {
    static let full = """
        model: Shop
        formatVersion: 1
        options:
          codegen: extension
          access: public
          imports: [Foundation, MyKit.Sub]
        entities:
          Item:
            class: ShopItem
            doc: An item for sale.
            attributes:
              name: string
              note: string?
              answer: { type: string, default: no }
              code: { type: string, default: 1e3 }
              count: { type: int16, default: -7, min: -10, max: 10 }
              price: { type: decimal, default: '19.99' }
              weight: { type: double, default: 1e3 }
              added: { type: date, default: '2024-05-01T09:30:00Z' }
              day: { type: date, default: '2024-05-01' }
              key: { type: uuid, default: E621E1F8-C36C-495A-93FC-0C247A3E6E5F }
              site: { type: uri, default: 'https://example.com/a' }
              on: { type: bool, default: false, renamingIdentifier: enabled, userInfo: { a: 1 } }
              blob: { type: binary, optional: true, externalStorage: true }
            relationships:
              shop: { destination: Shop, inverse: items, deleteRule: deny, optional: false }
            unique: [[name], code]
            indexes: [[added, name]]
          Shop:
            relationships:
              items: { destination: Item, toMany: true, ordered: true, inverse: shop, min: 1, max: 5 }
        fetchRequests:
          cheap:
            entity: Item
            predicate: 'price < $MAX'
            sort: [added desc, name]
            limit: 10
            offset: 2
        configurations:
          Local: [Item, Shop]
        """

    @Test func readsEveryKeyIntoTypedValues() throws {
        let result = check(Self.full)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let model = try #require(result.model)
        #expect(model.name.value == "Shop")
        #expect(model.options.codegen?.value == .extension)
        #expect(model.options.access?.value == .public)
        #expect(model.options.imports.map(\.value) == ["Foundation", "MyKit.Sub"])
        let item = try #require(model.entity(named: "Item"))
        #expect(item.swiftClassName == "ShopItem")
        #expect(item.doc == "An item for sale.")
        #expect(item.attributes.map(\.name.value) == ["name", "note", "answer", "code", "count", "price", "weight", "added", "day", "key", "site", "on", "blob"])
        let byName = Dictionary(uniqueKeysWithValues: item.attributes.map { ($0.name.value, $0) })
        #expect(byName["note"]?.isOptional == true)
        #expect(byName["name"]?.isOptional == false)
        // Scalars are read by what the field expects, not by YAML 1.1 guessing.
        #expect(byName["answer"]?.defaultValue?.value == .string("no"))
        #expect(byName["code"]?.defaultValue?.value == .string("1e3"))
        #expect(byName["on"]?.type.value == .bool)
        #expect(byName["weight"]?.defaultValue?.value == .floatingPoint(1000, text: "1e3"))
        #expect(byName["count"]?.defaultValue?.value == .integer(-7))
        #expect(byName["count"]?.minimum?.value == .integer(-10))
        #expect(byName["price"]?.defaultValue?.value == .decimal(Decimal(string: "19.99")!, text: "19.99"))
        #expect(byName["added"]?.defaultValue?.value == .date(Date(timeIntervalSince1970: 1_714_555_800)))
        #expect(byName["day"]?.defaultValue?.value == .date(Date(timeIntervalSince1970: 1_714_521_600)))
        #expect(byName["key"]?.defaultValue?.value == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(byName["site"]?.defaultValue?.value == .uri(URL(string: "https://example.com/a")!))
        #expect(byName["on"]?.renamingIdentifier?.value == "enabled")
        #expect(byName["on"]?.userInfo.map(\.value.value) == ["1"])
        #expect(byName["blob"]?.allowsExternalStorage?.value == true)
        #expect(item.uniquenessConstraints.map { $0.names.map(\.value) } == [["name"], ["code"]])
        #expect(item.indexes.map { $0.names.map(\.value) } == [["added", "name"]])
        let shop = try #require(item.relationships.first)
        #expect(shop.effectiveDeleteRule == .deny)
        #expect(shop.isOptional == false)
        let items = try #require(model.entity(named: "Shop")?.relationships.first)
        #expect(items.isToMany && items.isOrdered)
        #expect(items.minCount?.value == 1 && items.maxCount?.value == 5)
        let cheap = try #require(model.fetchRequests.first)
        #expect(cheap.limit?.value == 10 && cheap.offset?.value == 2)
        #expect(cheap.sortDescriptors.map { "\($0.descriptor.keyPathText) \($0.descriptor.ascending)" } == ["added false", "name true"])
        #expect(result.templateVariables["cheap"] == [TemplateVariable(name: "MAX", parameterName: "max", type: .attribute(.decimal, swiftType: nil))])
        #expect(model.configurations.map(\.name.value) == ["Local"])
    }

    @Test func keepsPositionsOfNamesAndValues() throws {
        let model = try #require(check(Self.full).model)
        let item = try #require(model.entity(named: "Item"))
        #expect(item.name.location == ModelgenCore.SourceLocation(file: "test.model.yaml", line: 8, column: 3))
        let count = try #require(item.attributes.first { $0.name.value == "count" })
        #expect(count.name.location.line == 16 && count.name.location.column == 7)
        #expect(count.defaultValue?.location.column == 38)
        let note = try #require(item.attributes.first { $0.name.value == "note" })
        #expect(note.optionalLocation?.column == 19) // the '?' of 'string?'
    }

    @Test(arguments: [
        // (predicate line as written in the file, marker of the bad key, message)
        ("    predicate: 'titel == $T'", "titel", "unknown key 'titel'"),
        ("    predicate: \"title == $T AND rating == 'x'\"", "'x'", "type mismatch"),
        ("    predicate: 'title == ''it\\''s'' AND ratng == 1'", "ratng", "unknown key 'ratng'"),
        ("    predicate: \"title == \\\"a\\\\b\\\" AND ratng == 1\"", "ratng", "unknown key 'ratng'"),
        ("    predicate: title == $T AND ratng == 1", "ratng", "unknown key 'ratng'"),
    ])
    func reportsPredicateErrorsAtTheirColumnInTheFile(predicateLine: String, marker: String, message: String) {
        let yaml = """
            model: P
            entities:
              Post:
                attributes: { title: string, rating: { type: int16, default: 0 } }
            fetchRequests:
              byTitle:
                entity: Post
            \(predicateLine)
            """
        let result = check(yaml)
        let expectedColumn = predicateLine.distance(from: predicateLine.startIndex, to: predicateLine.range(of: marker)!.lowerBound) + 1
        #expect(result.diagnostics.contains { $0.location.line == 8 && $0.location.column == expectedColumn && $0.message.contains(message) },
                "expected '\(message)' at 8:\(expectedColumn); got \(result.diagnostics.map(\.description))")
    }

    @Test func reportsErrorsInsideBlockScalarPredicates() {
        let yaml = """
            model: P
            entities:
              Post:
                attributes: { title: string }
            fetchRequests:
              byTitle:
                entity: Post
                predicate: |
                  title == $T AND
                  titel == 'x'
            """
        let result = check(yaml)
        #expect(result.diagnostics.contains { $0.location.line == 10 && $0.location.column == 7 && $0.message.contains("titel") },
                "\(result.diagnostics.map(\.description))")
    }

    @Test func reportsAllErrorsOfAFileNotJustTheFirst() {
        let yaml = """
            model: Bad
            entities:
              Item:
                attributes:
                  a: { type: int16, default: 70000 }
                  b: sting
                  c: { type: string, optinal: true }
                relationships:
                  d: { destination: Nowhere }
            """
        let lines = check(yaml).diagnostics.filter { $0.severity == .error }.map(\.location.line)
        #expect(lines == [5, 6, 7, 9])
    }

    @Test func refusesAnAliasBombQuickly() {
        // 1,000 entities each aliasing 1,000 attributes: a small file that expands to a million attributes.
        var yaml = "model: Bomb\nentities:\n  E0:\n    attributes: &attrs\n"
        for i in 0..<1000 { yaml += "      a\(i): string\n" }
        for i in 1..<1000 { yaml += "  E\(i): { attributes: *attrs }\n" }
        let result = check(yaml)
        #expect(result.diagnostics.contains { $0.severity == .error && $0.message.contains("aliases expand to too many nodes") })
        #expect(result.diagnostics.count < 10)
    }

    /// Keys that are themselves mappings or lists (YAML complex keys) are refused before the document is
    /// composed: composing nested ones took Yams minutes (its duplicate check compares them recursively;
    /// an 850-byte file found by fuzz-config, kept in Tests/Fixtures/Fuzz/).
    @Test func complexKeysAreRefusedAtTheirPosition() throws {
        let explicit = ModelParser.parse(text: "model: M\nentities:\n  ? [A]\n  : { attributes: { a: string } }\n", path: "m.yaml")
        #expect(explicit.diagnostics.map(\.description) == ["m.yaml:3:5: error: a mapping key here is itself a mapping or a list (a YAML complex key); keys are plain names"])
        let flow = ModelParser.parse(text: "model: M\nentities: { {A: 1}: x }\n", path: "m.yaml")
        #expect(flow.diagnostics.first?.location.column == 13 && flow.diagnostics.first?.message.contains("complex key") == true, "\(flow.diagnostics)")
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/config-nested-complex-keys.yml"))
        #expect(throws: EmitError.self) { try GeneratorConfig.parse(data: data, path: "modelgen-config.yaml") }
        #expect(ModelParser.parse(data: data, path: "m.yaml").diagnostics.first?.message.contains("complex key") == true)
        // A `?` that is no key indicator (an optional type) and flow collections as values stay fine.
        #expect(ModelParser.parse(text: "model: M\nentities:\n  A: { attributes: { a: string?, b: { type: int16, default: 0 } }, unique: [[a]] }\n", path: "m.yaml").diagnostics.isEmpty)
    }

    @Test func aliasesWithinTheBudgetWork() {
        expectClean("""
            model: Shared
            entities:
              A:
                attributes: &common { name: string, createdAt: date }
              B:
                attributes: *common
            """)
    }

    @Test func refusesDeepNestingWithAnError() {
        let result = check("model: X\nentities: " + String(repeating: "[", count: 50_000))
        #expect(result.diagnostics.contains { $0.severity == .error && $0.message.contains("nests deeper") })
    }

    @Test(arguments: [
        ("", "empty"),
        ("\n  \n", "empty"),
        ("# only a comment\n", "empty"),
        ("model: A\nentities:\n", "'entities' is empty"),
        ("entities: { A: { attributes: { a: string } } }", "missing required key 'model'"),
        ("model: A", "missing required key 'entities'"),
        ("- a\n- b", "expected a mapping for the model file"),
        ("model: A\nformatVersion: 2\nentities: { A: }", "unsupported formatVersion '2'"),
        ("model: A\nentities: { A: }\n---\nmodel: B", "expected a single document"),
    ])
    func refusesFilesThatAreNotModels(yaml: String, message: String) {
        let result = check(yaml)
        #expect(result.hasErrors)
        #expect(result.diagnostics.contains { $0.message.contains(message) }, "\(result.diagnostics.map(\.description))")
    }

    /// `entities:` with no value is one error, not the error and the rules' "declares no entities" warning.
    @Test func anEntitiesKeyWithoutValueIsOneDiagnostic() {
        let result = check("model: A\nentities:\n")
        #expect(result.diagnostics.map(\.message) == ["'entities' is empty; declare at least one entity under it"])
        #expect(result.diagnostics.map(\.id) == [.noEntities])
    }

    @Test func refusesBinaryAndInvalidUTF8AtTheirPosition() {
        let binary = ModelCheck.run(data: Data([0x6D, 0x3A, 0x20, 0x00, 0x01]), path: "b.model.yaml")
        #expect(binary.diagnostics.map(\.description) == ["b.model.yaml:1:4: error: binary data: control byte 0x00; a model file is UTF-8 text"])
        let invalid = ModelCheck.run(data: Data("model: A\nentities: { Ä: }\n".utf8) + Data([0xC3, 0x28]), path: "u.model.yaml")
        #expect(invalid.diagnostics.first?.location.line == 3)
        #expect(invalid.diagnostics.first?.message.contains("invalid UTF-8") == true)
    }

    @Test func reportsTabIndentationOnEveryLine() {
        let result = check("model: T\nentities:\n\tA:\n\t\tattributes: {}\n")
        #expect(result.diagnostics.map(\.location.line) == [3, 4])
        #expect(result.diagnostics.allSatisfy { $0.message.contains("tab") })
    }

    @Test func tabsOutsideIndentationAreFine() {
        expectClean("model: T\nentities:\n  A:\n    attributes: {\ta: string }\n")
    }

    @Test func reportsDuplicateKeysAtTheRepetition() {
        let result = check("model: D\nentities:\n  A:\n    attributes:\n      x: string\n      y: string\n      x: bool\n")
        #expect(result.diagnostics.first?.description == "test.model.yaml:7:7: error: duplicate key 'x' in one mapping; each key may appear once")
        #expect(result.diagnostics.first?.notes.first?.location?.line == 5)
    }

    @Test func readsBooleansStrictly() {
        expectDiagnostic("model: B\nentities:\n  A:\n    abstract: yes\n", .error, onLineWith: "abstract", "expected 'true' or 'false'")
        let result = check("model: B\nentities:\n  A:\n    abstract: yes\n")
        #expect(result.diagnostics.first?.notes.first?.message == "did you mean 'true'?")
        expectClean("model: B\nentities:\n  A:\n    abstract: true\n  C:\n    parent: A\n    attributes: { a: string }\n")
    }

    @Test(arguments: [
        ("{ type: int16, default: 0o17 }", "decimal whole number"),
        ("{ type: int32, default: 0x10 }", "decimal whole number"),
        ("{ type: int64, default: 99999999999999999999 }", "does not fit in int64"),
        ("{ type: float, default: 1e39 }", "does not fit in float"),
        ("{ type: double, default: .inf }", "decimal number"),
        ("{ type: decimal, default: 1_000 }", "decimal number"),
        ("{ type: decimal, default: '123456789012345678901234567890123456789' }", "38 significant digits"),
        ("{ type: date, default: yesterday }", "ISO 8601"),
        ("{ type: date, default: '2024-05-01T09:30:00' }", "ISO 8601"),
        ("{ type: uuid, default: 1234 }", "UUID"),
        ("{ type: uri, default: 'not a uri' }", "absolute URI"),
        ("{ type: bool, default: yes }", "'true' or 'false'"),
        ("{ type: binary, default: abc }", "cannot have a default"),
        ("{ type: string, max: -1 }", "non-negative whole number"),
        ("{ type: bool, min: 0 }", "have no min or max"),
        ("sting", "unknown attribute type 'sting'"),
        ("{ optional: true }", "missing required key 'type'"),
    ])
    func refusesValuesThatDoNotFitTheType(attribute: String, message: String) {
        expectDiagnostic("model: V\nentities:\n  A:\n    attributes:\n      amount: \(attribute)\n",
                         .error, onLineWith: "amount:", message)
    }

    @Test func suggestsTheClosestKnownKey() {
        let result = check("model: S\nentities:\n  A:\n    atributes: { a: string }\n")
        #expect(result.diagnostics.first?.message.contains("unknown key 'atributes' in entity 'A'") == true)
        #expect(result.diagnostics.first?.notes.first?.message == "did you mean 'attributes'?")
    }
}
