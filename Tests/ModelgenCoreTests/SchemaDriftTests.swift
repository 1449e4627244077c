import Foundation
@testable import ModelgenCore
import Testing

/// The JSON Schemas of `Schemas/` (what editors check model files and configurations with) are held
/// to the parser both ways: every key the parser accepts is in the schema, and every key of the schema
/// is one the parser accepts; the choices (codegen modes, access levels, delete rules, property styles,
/// attribute types) are the parser's; every property has a description; and the binary embeds the
/// files as they are. `scripts/check-schemas.py` (in `make test`) validates the repository's models
/// against them with a JSON Schema validator.
@Suite struct SchemaDriftTests {
    typealias Object = [String: Any]

    static func schema(_ name: String) throws -> Object {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("Schemas/\(name)"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? Object)
    }

    /// The keys of an object schema: its `properties`, or those of the object branch of an `anyOf`.
    static func keys(_ schema: Object?) -> Set<String> {
        if let properties = schema?["properties"] as? Object { return Set(properties.keys) }
        for branch in schema?["anyOf"] as? [Object] ?? [] where branch["properties"] != nil { return keys(branch) }
        return []
    }

    static func property(_ schema: Object?, _ path: String...) -> Object? {
        var current = schema
        for key in path {
            current = ((current?["properties"] as? Object) ?? (current?["anyOf"] as? [Object])?.first { $0["properties"] != nil }?["properties"] as? Object)?[key] as? Object
        }
        return current
    }

    @Test func theModelSchemaHasTheParsersKeys() throws {
        let schema = try Self.schema("model.schema.json")
        let definitions = try #require(schema["$defs"] as? Object)
        func definition(_ name: String) -> Object? { definitions[name] as? Object }
        let pairs: [(String, Set<String>, KeySet)] = [
            ("top level", Self.keys(schema), ModelParser.Keys.topLevel),
            ("options", Self.keys(Self.property(schema, "options")), ModelParser.Keys.options),
            ("entity", Self.keys(definition("entity")), ModelParser.Keys.entity),
            ("attribute", Self.keys(definition("attribute")), ModelParser.Keys.attribute),
            ("relationship", Self.keys(definition("relationship")), ModelParser.Keys.relationship),
            ("fetched property", Self.keys(definition("fetchedProperty")), ModelParser.Keys.fetchedProperty),
            ("computed property", Self.keys(definition("computedProperty")), ModelParser.Keys.computed),
            ("fetch request", Self.keys(definition("fetchRequest")), ModelParser.Keys.fetchRequest),
            ("projection template's first member", Self.keys(definition("firstMember")), ModelParser.Keys.firstMember),
            ("composite", Self.keys(definition("composite")), ModelParser.Keys.composite),
            ("composite field", Self.keys(definition("compositeField")), ModelParser.Keys.compositeField),
        ]
        for (what, inSchema, parsed) in pairs {
            #expect(inSchema == parsed.set, "\(what): only the parser has \(parsed.set.subtracting(inSchema).sorted()), only the schema \(inSchema.subtracting(parsed.set).sorted())")
        }
    }

    @Test func theConfigurationSchemasHaveTheParsersKeys() throws {
        let project = try Self.schema("modelgen.schema.json")
        #expect(Self.keys(project) == ProjectConfig.topKeys.set)
        #expect(Self.keys(Self.property(project, "defaults")) == ProjectConfig.defaultKeys.set)
        let entry = try #require((Self.property(project, "models")?["items"]) as? Object)
        #expect(Self.keys(entry) == ProjectConfig.entryKeys.set)
        #expect(Set(entry["required"] as? [String] ?? []) == ["path", "output"])
        #expect(Self.keys(try Self.schema("modelgen-config.schema.json")) == GeneratorConfig.keys.set)
    }

    @Test func theChoicesAreTheParsers() throws {
        let model = try Self.schema("model.schema.json"), project = try Self.schema("modelgen.schema.json")
        let definitions = try #require(model["$defs"] as? Object)
        func choices(_ schema: Object?) -> Set<String> { Set((schema?["enum"] as? [Any] ?? []).compactMap { $0 as? String }) }
        #expect(choices(Self.property(model, "options", "codegen")) == Set(CodegenMode.allCases.map(\.rawValue)))
        #expect(choices(Self.property(definitions["entity"] as? Object, "codegen")) == Set(CodegenMode.allCases.map(\.rawValue)))
        #expect(choices(Self.property(model, "options", "access")) == Set(AccessLevel.allCases.map(\.rawValue)))
        #expect(choices(Self.property(definitions["relationship"] as? Object, "deleteRule")) == Set(DeleteRule.allCases.map(\.rawValue)))
        #expect(choices(Self.property(project, "defaults", "propertyStyle")) == Set(PropertyStyle.allCases.map(\.rawValue)))
        let typeSchema = try #require(Self.property(definitions["attribute"] as? Object, "type"))
        let typeNames = try #require((typeSchema["anyOf"] as? [Object])?.first)
        let types = AttributeType.keywordCases.map(\.rawValue)
        #expect(choices(typeNames) == Set(types + types.map { $0 + "?" }))
    }

    /// Editors show a key's description while typing: every property of every schema has one.
    @Test func everyPropertyIsDescribed() throws {
        func undescribed(_ value: Any, at path: String) -> [String] {
            var missing: [String] = []
            if let object = value as? Object {
                // A `properties` map names properties (one may be called `properties`): each value is a schema.
                if let properties = object["properties"] as? Object {
                    for (key, property) in properties {
                        if (property as? Object)?["description"] == nil { missing.append("\(path)/\(key)") }
                        missing += undescribed(property, at: "\(path)/properties/\(key)")
                    }
                }
                for (key, child) in object where key != "properties" { missing += undescribed(child, at: "\(path)/\(key)") }
            } else if let array = value as? [Any] {
                for (index, child) in array.enumerated() { missing += undescribed(child, at: "\(path)/\(index)") }
            }
            return missing
        }
        for name in ["model.schema.json", "modelgen.schema.json", "modelgen-config.schema.json"] {
            let schema = try Self.schema(name)
            #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
            #expect(undescribed(schema, at: name).isEmpty, "\(undescribed(schema, at: name))")
        }
    }

    @Test func theBinaryEmbedsTheSchemasAndTheStarterAsTheyAre() throws {
        for (folder, embedded) in [("Schemas", EmbeddedScaffoldFiles.schemas), ("Templates/Starter", EmbeddedScaffoldFiles.starter)] {
            let names = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent(folder).path)
            #expect(Set(names) == Set(embedded.keys), "\(folder); run `make templates`")
            for name in names {
                let text = try String(contentsOf: packageRoot.appendingPathComponent("\(folder)/\(name)"), encoding: .utf8)
                #expect(embedded[name].map { $0 + "\n" } == text, "\(folder)/\(name) is not embedded as it is; run `make templates`")
            }
        }
    }
}
