import Foundation
import Testing
@testable import ModelgenCore

@Suite struct XcodeInteropTests {
    /// Every field the format has, in canonical layout (what `modelgen format` writes), with nothing Core Data lacks a place for.
    static let everything = """
        model: Shop

        entities:
          Item:
            doc: Anything that is sold.
            abstract: true
            attributes:
              name: { type: string, default: unnamed, min: 1, max: 80, regex: '^[A-Za-z ]+$', renamingIdentifier: title }
              price: { type: decimal, default: 9.99 }
              createdAt: { type: date, default: '2024-05-01T09:30:00Z' }
              status: { type: int16, default: 0, swiftType: ItemStatus, doc: Where the item is in its life. }
              photo: { type: binary, optional: true, externalStorage: true }
              lowerName: { type: string, optional: true, derived: 'lowercase:(name)' }
              cached: { type: string, optional: true, transient: true }
              tags: { type: transformable, swiftType: '[String]', userInfo: { source: legacy } }
              box: { type: transformable, swiftType: Box, transformer: BoxTransformer }
              id: uuid
              link: uri?
              weight: { type: double, default: 0.5 }
              count: { type: int64, default: 0 }
              flag: { type: bool, default: true }
            relationships:
              shelf: { destination: Shelf, inverse: items, optional: false, doc: Where it is stored. }
              related: { destination: Item, toMany: true, inverse: none, max: 5 }
            fetchedProperties:
              cheaper: { destination: Item, predicate: 'ANY related == $FETCH_SOURCE AND price > 0', sort: [price desc, name] }
            unique: [[id]]
            indexes: [[name], [createdAt, name]]
            userInfo: { owner: shop }

          Book:
            parent: Item
            class: ShopBook
            codegen: none
            attributes:
              pages: { type: int32, default: 1 }

          Shelf:
            codegen: extension
            attributes:
              label: string
            relationships:
              items: { destination: Item, toMany: true, ordered: true, inverse: shelf, deleteRule: deny, min: 1 }

        fetchRequests:
          cheapItems:
            entity: Item
            predicate: 'price < $LIMIT'
            limit: 10
            offset: 2

        configurations:
          Local: [Item, Book, Shelf]

        """

    func roundTrip(_ text: String, name: String) throws -> (xml: String, imported: XcodeModelImport.Outcome, export: XcodeModelExporter.Result) {
        let model = try #require(ModelCheck.run(text: text, path: "\(name).model.yaml").model)
        let export = XcodeModelExporter.export(model)
        let imported = XcodeModelImport.convert(data: Data(export.xml.utf8), contentsPath: "\(name).xcdatamodel/contents",
                                                modelName: name, source: "\(name).xcdatamodel")
        return (export.xml, imported, export)
    }

    /// The import's text without its header comment.
    func body(_ text: String?) -> String {
        (text ?? "").split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("#") }.joined(separator: "\n")
    }

    /// Imports `xml`, validates the model file and imports its export: the first import's text, its model,
    /// the export, and the second import's text.
    func importExportImport(_ xml: String) throws -> (text: String, model: ObjectModel, exported: String, again: String?) {
        let first = XcodeModelImport.convert(data: Data(xml.utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        let text = try #require(first.text, "\(first.diagnostics)")
        let model = try #require(ModelCheck.run(text: text, path: "M.model.yaml").model)
        let exported = XcodeModelExporter.export(model).xml
        let again = XcodeModelImport.convert(data: Data(exported.utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        return (text, model, exported, again.text)
    }

    @Test func importOfAnExportGivesBackTheSameModel() throws {
        #expect(try ModelFormatter.format(data: Data(Self.everything.utf8), path: "Shop.model.yaml").get() == Self.everything,
                "the fixture is in canonical layout")
        let (xml, imported, export) = try roundTrip(Self.everything, name: "Shop")
        #expect(export.diagnostics.isEmpty, "\(export.diagnostics)")
        #expect(!imported.hasErrors, "\(imported.diagnostics)")
        let text = body(imported.text)
        #expect(text == Self.everything, "\(UnifiedDiff.diff(old: Self.everything, new: text, oldName: "original", newName: "imported"))")
        #expect(xml.contains("<attribute name=\"name\" attributeType=\"String\" minValueString=\"1\" maxValueString=\"80\""))
        #expect(xml.contains("elementID=\"title\""))
        #expect(xml.contains("<entity name=\"Shelf\" representedClassName=\"Shelf\" syncable=\"YES\" codeGenerationType=\"category\">"))
    }

    /// Composites in canonical layout: nested, optional, empty, with docs and bounds.
    static let composites = """
        model: Venues

        composites:
          Coordinate:
            doc: A point on the globe.
            attributes:
              latitude: { type: double, default: 0, min: -90, max: 90 }
              longitude: { type: double, default: 0 }

          PostalAddress:
            attributes:
              street: string?
              city: { type: string, default: Unknown, doc: The town or city. }
              position: Coordinate?

          Nothing: {}

        entities:
          Venue:
            attributes:
              name: string
              address: PostalAddress
              entrance: Coordinate?
              extras: { type: Nothing, optional: true, doc: Reserved. }
            unique: [[name, address.city]]
            indexes: [[address.city]]

        fetchRequests:
          inCity:
            entity: Venue
            predicate: 'address.city ==[c] $CITY AND entrance != nil'

        """

    /// Composite attributes travel both ways: `<composite>` elements after the entities (nested ones
    /// named by `composite=`), attributes of type Composite, field key paths in indexes and predicates.
    @Test func compositesSurviveARoundTrip() throws {
        #expect(try ModelFormatter.format(data: Data(Self.composites.utf8), path: "Venues.model.yaml").get() == Self.composites,
                "the fixture is in canonical layout")
        let (xml, imported, export) = try roundTrip(Self.composites, name: "Venues")
        #expect(export.diagnostics.isEmpty, "\(export.diagnostics)")
        #expect(!imported.hasErrors, "\(imported.diagnostics)")
        let text = body(imported.text)
        #expect(text == Self.composites, "\(UnifiedDiff.diff(old: Self.composites, new: text, oldName: "original", newName: "imported"))")
        #expect(xml.contains("<attribute name=\"address\" attributeType=\"Composite\" composite=\"PostalAddress\"/>"), "\(xml)")
        #expect(xml.contains("<attribute name=\"position\" optional=\"YES\" attributeType=\"Composite\" composite=\"Coordinate\"/>"), "\(xml)")
        #expect(xml.contains("    <composite name=\"Nothing\"/>\n"), "\(xml)")
        #expect(xml.contains("<fetchIndex name=\"byAddressCityIndex\">"), "\(xml)")
        // The project's own Xcode-written model of composites imports to the same constructs.
        let fixture = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/CoreDataModels/Composites.xml"))
        let result = XcodeModelImport.convert(data: fixture, contentsPath: "Composites.xml", modelName: "Composites", source: "Composites.xml")
        let fromXcode = try #require(result.text, "\(result.diagnostics)")
        for line in ["      address: PostalAddress\n", "      entrance: Coordinate?\n", "      position: Coordinate?\n",
                     "      zip: { type: int32, optional: true, default: 0 }\n", "  Nothing: {}\n", "    indexes: [[address.city]]\n",
                     "    predicate: 'venue.address.city ==[c] $CITY AND ticketPrice.cents < $MAX_CENTS'\n"] {
            #expect(fromXcode.contains(line), "\(line) in \(fromXcode)")
        }
    }

    @Test(arguments: ["Examples/Blog/Blog.model.yaml", "Examples/Graphics/Graphics.model.yaml"])
    func examplesSurviveARoundTrip(_ path: String) throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
        let name = URL(fileURLWithPath: path).deletingPathExtension().deletingPathExtension().lastPathComponent
        let (xml, imported, export) = try roundTrip(text, name: name)
        #expect(!imported.hasErrors, "\(imported.diagnostics)")
        // Only what Core Data has no place for is reported: template sorts and docs, model options.
        for diagnostic in export.diagnostics {
            #expect(diagnostic.message.contains("sort") || diagnostic.message.contains("'doc'") || diagnostic.message.contains("options."),
                    "\(diagnostic)")
        }
        // Export of the import is the same XML: nothing else was lost on the way.
        let again = try #require(ModelCheck.run(text: imported.text ?? "", path: "again.model.yaml").model)
        #expect(XcodeModelExporter.export(again).xml == xml)
    }

    @Test func aCurrentVersionIsFoundAndVersionsCanBeChosen() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("xcmodel-\(UUID().uuidString)/Shop.xcdatamodeld")
        defer { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }
        for version in ["Shop", "Shop 2"] {
            let bundle = root.appendingPathComponent("\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            let xml = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel">
                    <entity name="\(version == "Shop" ? "Old" : "New")" representedClassName="Shop.Thing" codeGenerationType="class">
                        <attribute name="title" attributeType="String"/>
                    </entity>
                </model>
                """
            try xml.write(to: bundle.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Shop 2.xcdatamodel</string></dict></plist>
            """
        try plist.write(to: root.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)

        let current = XcodeModelImport.run(path: root.path)
        #expect(current.text?.contains("  New:\n    class: Thing\n") == true, "\(current.text ?? "")\(current.diagnostics)")
        #expect(current.text?.contains("model: Shop\n") == true)
        let old = XcodeModelImport.run(path: root.path, version: "Shop")
        #expect(old.text?.contains("  Old:\n") == true)
        let missing = XcodeModelImport.run(path: root.path, version: "Shop 3")
        #expect(missing.diagnostics.first?.message == "no version 'Shop 3' in this model; it has 'Shop 2.xcdatamodel', 'Shop.xcdatamodel'")
    }

    @Test func badXMLAndUnsupportedTypesAreErrorsAtTheirPosition() {
        let broken = XcodeModelImport.convert(data: Data("<model>\n  <entity name=\"A\">\n</model>\n".utf8), contentsPath: "m/contents",
                                              modelName: "M", source: "m")
        #expect(broken.text == nil)
        #expect(broken.diagnostics.first?.severity == .error && broken.diagnostics.first?.message.hasPrefix("not well-formed XML") == true,
                "\(broken.diagnostics)")

        let xml = """
            <model>
                <entity name="A" representedClassName="A" codeGenerationType="class">
                    <attribute name="value" attributeType="String"/>
                    <attribute name="blob" optional="YES" attributeType="Undefined"/>
                </entity>
            </model>
            """
        let result = XcodeModelImport.convert(data: Data(xml.utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(result.text == nil)
        #expect(result.diagnostics.map(\.description) == [
            "m/contents:3:20: warning: 'A.value' collides with ManagedObject's member 'value'; imported as 'storedValue' (renaming identifier 'value'): rename it in the model file if you prefer another name",
            "m/contents:4:9: error: attribute 'A.blob' has no type (Core Data's Undefined), which only a transient attribute may have: choose a type in Xcode, or in the imported file",
        ])
    }

    /// A byte that is not UTF-8 inside an attribute name made FoundationXML's parser trap (found by
    /// fuzz-xml, minimized in Tests/Fixtures/Fuzz/): it is refused at its position before parsing.
    @Test func invalidUTF8IsRefusedAtItsPosition() throws {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/xml-invalid-utf8-attribute-name.xml"))
        let result = XcodeModelImport.convert(data: data, contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(result.text == nil)
        #expect(result.diagnostics.map(\.description) == ["m/contents:2:28: error: not well-formed XML: the bytes here are not UTF-8 (Xcode writes model files in UTF-8)"])
    }

    /// A processing instruction without data (`<?xml?>`, `<?page ?>`) made FoundationXML's parser crash
    /// (a null pointer to `strlen`; found by fuzz-xml): it is refused at its position before parsing,
    /// where `<?` in a comment or CDATA section is text and the XML declaration is read as ever.
    @Test func processingInstructionsAreRefusedAtTheirPosition() throws {
        // The inputs fuzz-xml found (FoundationXML crashed in strlen on both): a declaration without data,
        // and a `<?xm` whose instruction libxml2 reads otherwise than up to the next `?>`.
        let found = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/xml-empty-processing-instruction.xml"))
        let result = XcodeModelImport.convert(data: found, contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(result.text == nil)
        #expect(result.diagnostics.map(\.description) == [
            "m/contents:1:1: error: a processing instruction ('<?xml?>') is not read (a Core Data model has none but the XML declaration, '<?xml version=\"1.0\" …?>', first in the file)",
        ])
        let unterminated = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/xml-unterminated-processing-instruction.xml"))
        let second = XcodeModelImport.convert(data: unterminated, contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(second.text == nil && second.diagnostics.first?.message.hasPrefix("a processing instruction ('<?xm ") == true, "\(second.diagnostics)")
        #expect(second.diagnostics.first?.location.line == 34)
        // A declaration whose `?>` is another instruction's, markup between: refused at the declaration.
        let unclosed = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/xml-unclosed-declaration.xml"))
        let third = XcodeModelImport.convert(data: unclosed, contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(third.text == nil && third.diagnostics.first?.location.line == 1 && third.diagnostics.first?.message.hasPrefix("a processing instruction ('<?xml version=") == true, "\(third.diagnostics)")

        let model = "<?xml version=\"1.0\"?>\n<model>\n  <!-- <?note?> --><![CDATA[<?x?>]]>\n  <entity name=\"A\" representedClassName=\"A\" codeGenerationType=\"class\"/>%@\n</model>\n"
        let fine = XcodeModelImport.convert(data: Data(model.replacingOccurrences(of: "%@", with: "").utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(fine.text != nil, "\(fine.diagnostics)")
        let withMark = XcodeModelImport.convert(data: Data([0xEF, 0xBB, 0xBF]) + Data(model.replacingOccurrences(of: "%@", with: "").utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(withMark.text != nil, "\(withMark.diagnostics)")
        for instruction in ["<?page \t?>", "<?page data?>", "<?xml version=\"1.0\"?>"] {
            let refused = XcodeModelImport.convert(data: Data(model.replacingOccurrences(of: "%@", with: instruction).utf8), contentsPath: "m/contents", modelName: "M", source: "m")
            #expect(refused.text == nil && refused.diagnostics.first?.location.line == 4 && refused.diagnostics.first?.location.column == 73, "\(refused.diagnostics)")
        }
    }

    /// Entity expansion ("billion laughs": ten levels of ten references) and external entities are refused
    /// at their position with a reason, without expanding or reading anything.
    @Test func entityExpansionAndExternalEntitiesAreRefused() {
        var laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE model [\n<!ENTITY lol0 \"lol\">\n"
        for level in 1...9 { laughs += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n" }
        laughs += "]>\n<model><entity name=\"A\" representedClassName=\"&lol9;\"/></model>\n"
        let expanded = XcodeModelImport.convert(data: Data(laughs.utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(expanded.text == nil)
        #expect(expanded.diagnostics.first?.description.contains("error: not well-formed XML: entities expand too far") == true, "\(expanded.diagnostics)")
        let external = "<?xml version=\"1.0\"?>\n<!DOCTYPE model [\n<!ENTITY secret SYSTEM \"file:///etc/passwd\">\n]>\n<model><entity name=\"A\" representedClassName=\"&secret;\"/></model>\n"
        let read = XcodeModelImport.convert(data: Data(external.utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(read.text == nil)
        #expect(read.diagnostics.first?.severity == .error && read.diagnostics.first?.message.contains("never reads external entities") == true,
                "\(read.diagnostics)")
    }

    /// Whole numbers are imported in their plain form (`060` → `60`), as export writes them, so importing
    /// an export gives back the same file (found by fuzz-xml: the round trip changed the layout).
    @Test func wholeNumbersImportInThePlainFormExportWrites() throws {
        let xml = """
            <model>
                <entity name="Shelf" representedClassName="Shelf" codeGenerationType="class">
                    <attribute name="label" attributeType="String" minValueString="01" maxValueString="060"/>
                    <attribute name="slots" attributeType="Integer 16" defaultValueString="007" usesScalarValueType="YES"/>
                </entity>
            </model>
            """
        let (text, _, _, again) = try importExportImport(xml)
        #expect(text.contains("label: { type: string, min: 1, max: 60 }") && text.contains("slots: { type: int16, default: 7 }"), "\(text)")
        #expect(body(again) == body(text))
    }

    /// Fetch limits and offsets import in their plain form (`03` → `3`, `00` → none), and date bounds
    /// and defaults as ISO text with milliseconds at most, as export writes them back (found by fuzz-xml:
    /// `fetchLimit="03"`); a date interval past the years ISO 8601 writes (10^80 seconds before 2001 came
    /// out as year 5,838,270, found by fuzz-xml) is refused at its position instead of imported wrong.
    @Test func countsAndDatesImportAsExportWritesThem() throws {
        let xml = """
            <model>
                <entity name="Log" representedClassName="Log" codeGenerationType="class">
                    <attribute name="at" attributeType="Date" defaultDateTimeInterval="0.0001" minDateTimeInterval="-1.2345" maxDateTimeInterval="252423993599"/>
                </entity>
                <entity name="Tag" representedClassName="Tag" codeGenerationType="class">
                    <relationship name="logs" toMany="YES" minCount="01" maxCount="005" deletionRule="Nullify" destinationEntity="Log"/>
                </entity>
                <fetchRequest name="recent" entity="Log" fetchLimit="03" fetchOffset="00"/>
            </model>
            """
        let (text, _, _, again) = try importExportImport(xml)
        #expect(text.contains("at: { type: date, default: '2001-01-01T00:00:00Z', min: '2000-12-31T23:59:58.765Z', max: '9999-12-31T23:59:59Z' }"), "\(text)")
        #expect(text.contains("limit: 3") && !text.contains("offset:"), "\(text)")
        #expect(text.contains("min: 1, max: 5"), "\(text)")
        #expect(body(again) == body(text))

        // The inputs fuzz-xml found (Tests/Fixtures/Fuzz/): the first now round-trips, the second is refused.
        let found = try String(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/xml-fetch-limit-leading-zero.xml"), encoding: .utf8)
        let foundAgain = try importExportImport(found)
        #expect(foundAgain.text.contains("limit: 3") && body(foundAgain.again) == body(foundAgain.text))
        let counts = try String(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/xml-relationship-count-leading-zeros.xml"), encoding: .utf8)
        let countsAgain = try importExportImport(counts)
        #expect(countsAgain.text.contains("min: 1, max: 5 }") && body(countsAgain.again) == body(countsAgain.text))
        let farFound = try Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/Fuzz/xml-far-date-bound.xml"))
        let farImport = XcodeModelImport.convert(data: farFound, contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(farImport.text == nil && farImport.diagnostics.contains { $0.message.contains("outside the years 1 to 9999") })

        let far = xml.replacingOccurrences(of: "minDateTimeInterval=\"-1.2345\"", with: "minDateTimeInterval=\"-9.78e80\"")
            .replacingOccurrences(of: "defaultDateTimeInterval=\"0.0001\"", with: "defaultDateTimeInterval=\"252423993600\"")
        let refused = XcodeModelImport.convert(data: Data(far.utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        #expect(refused.text == nil)
        #expect(refused.diagnostics.filter { $0.severity == .error }.map(\.description) == [
            "m/contents:3:51: error: attribute 'Log.at': defaultDateTimeInterval '252423993600' is outside the years 1 to 9999 a model file can write",
            "m/contents:3:90: error: attribute 'Log.at': minDateTimeInterval '-9.78e80' is outside the years 1 to 9999 a model file can write",
        ])
    }

    /// A userInfo entry whose own key begins with `coreData.` stays an entry through import, export and
    /// import (found by fuzz-xml: `coreData.mogenerator.readonly` came back as the XML attribute
    /// `mogenerator.readonly`, and after the attribute-derived `coreData.defaultValueStrinG`); one
    /// named like an attribute the import reads (`coreData.optional`) never becomes that attribute.
    @Test func userInfoKeysInTheImportsOwnNamespaceStayEntries() throws {
        let xml = """
            <model>
                <entity name="Human" representedClassName="Human" codeGenerationType="class">
                    <attribute name="age" attributeType="Integer 16" defaultValueStrinG="0">
                        <userInfo>
                            <entry key="coreData.mogenerator.readonly" value="true"/>
                            <entry key="coreData.optional" value="YES"/>
                            <entry key="userInfo.note" value="kept"/>
                        </userInfo>
                    </attribute>
                </entity>
            </model>
            """
        let (text, model, exported, again) = try importExportImport(xml)
        #expect(text.contains("userInfo.coreData.mogenerator.readonly: 'true'") && text.contains("coreData.defaultValueStrinG: '0'"), "\(text)")
        let age = try #require(model.entities.first?.attributes.first)
        #expect(!age.isOptional)
        #expect(exported.contains("<entry key=\"coreData.optional\" value=\"YES\"/>") && !exported.contains(" optional=\"YES\""), "\(exported)")
        #expect(body(again) == body(text))
    }

    /// What Xcode accepts and Core Data reads leniently imports with a warning at its XML position:
    /// booleans as numeric defaults (1/0), a fetched property without a predicate (every object of its
    /// destination: TRUEPREDICATE), and templates whose names cannot name a generated function (a
    /// swiftName; the template keeps its name). The import then validates, and its export gives back
    /// Core Data's names.
    @Test func leniencyOfXcodeIsImportedWithWarnings() throws {
        let xml = """
            <model>
                <entity name="Shelf" representedClassName="Shelf" codeGenerationType="class">
                    <attribute name="capacity" attributeType="Integer 64" defaultValueString="NO" usesScalarValueType="YES"/>
                    <attribute name="ratio" attributeType="Double" defaultValueString="YES" usesScalarValueType="YES"/>
                    <attribute name="scratch" optional="YES" transient="YES"/>
                    <fetchedProperty name="everyBook" optional="YES">
                        <fetchRequest name="fetchedPropertyFetchRequest" entity="Book"/>
                    </fetchedProperty>
                </entity>
                <entity name="Book" representedClassName="Book" codeGenerationType="class">
                    <attribute name="pages" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                </entity>
                <fetchRequest name="FetchRequest" entity="Book" predicateString="pages &gt; 100"/>
                <fetchRequest name="Long books" entity="Book" predicateString="pages &gt; 500"/>
                <fetchRequest name="model" entity="Book"/>
                <fetchRequest name="shortBooks" entity="Book" predicateString="pages &lt; 50"/>
            </model>
            """
        let result = XcodeModelImport.convert(data: Data(xml.utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        let text = try #require(result.text, "\(result.diagnostics)")
        #expect(result.diagnostics.map(\.description) == [
            "m/contents:3:63: warning: attribute 'Shelf.capacity': the default 'NO' is a boolean on a int64 attribute; imported as 0, as Core Data reads it",
            "m/contents:4:56: warning: attribute 'Shelf.ratio': the default 'YES' is a boolean on a double attribute; imported as 1, as Core Data reads it",
            "m/contents:5:9: warning: attribute 'Shelf.scratch' has no type (Core Data's Undefined): it holds values code sets and is never stored; imported as 'type: undefined' with swiftType 'Data': set swiftType to the type your code keeps in it",
            "m/contents:7:13: warning: fetched property 'Shelf.everyBook' has no predicate: Core Data fetches every Book; imported as 'predicate: TRUEPREDICATE'",
            "m/contents:13:19: warning: fetch request 'FetchRequest' is no lower-camel Swift identifier, and 'fetchRequest' names a member of the generated model type; its generated function is 'fetchRequestTemplate' (swiftName), and the template keeps the name 'FetchRequest' for fetchRequest(fromTemplate:)",
            "m/contents:14:19: warning: fetch request 'Long books' is no lower-camel Swift identifier; its generated function is 'longBooks' (swiftName), and the template keeps the name 'Long books' for fetchRequest(fromTemplate:)",
            "m/contents:15:19: warning: fetch request 'model' names a member of the generated model type; its generated function is 'modelTemplate' (swiftName), and the template keeps the name 'model' for fetchRequest(fromTemplate:)",
        ])
        #expect(text.contains("capacity: { type: int64, default: 0 }"), "\(text)")
        #expect(text.contains("ratio: { type: double, default: 1 }"), "\(text)")
        #expect(text.contains("everyBook: { destination: Book, predicate: 'TRUEPREDICATE' }"), "\(text)")
        #expect(text.contains("scratch: { type: undefined, optional: true, swiftType: Data, transient: true }"), "\(text)")
        #expect(text.contains("FetchRequest:\n    entity: Book\n    predicate: 'pages > 100'\n    swiftName: fetchRequestTemplate"), "\(text)")
        #expect(text.hasSuffix("  shortBooks:\n    entity: Book\n    predicate: 'pages < 50'\n"), "a lower-camel name needs no swiftName: \(text)")

        let model = try #require(ModelCheck.run(text: text, path: "M.model.yaml").model)
        #expect(model.fetchRequests.map(\.functionName.value) == ["fetchRequestTemplate", "longBooks", "modelTemplate", "shortBooks"])
        let exported = XcodeModelExporter.export(model).xml
        for name in ["FetchRequest", "Long books", "model", "shortBooks"] {
            #expect(exported.contains("<fetchRequest name=\"\(name)\""), "export keeps Core Data's name \(name)")
        }
        // Undefined as Xcode writes it (no attributeType), its Swift type kept for the next import.
        #expect(exported.contains("<attribute name=\"scratch\" optional=\"YES\" transient=\"YES\" customClassName=\"Data\""), "\(exported)")
        let again = XcodeModelImport.convert(data: Data(exported.utf8), contentsPath: "M.xcdatamodel/contents", modelName: "M", source: "M.xcdatamodel")
        #expect(try #require(again.text).contains("scratch: { type: undefined, optional: true, swiftType: Data, transient: true }"))
        #expect(!again.diagnostics.contains { $0.message.contains("scratch") }, "a re-import knows the Swift type: \(again.diagnostics)")
    }

    /// Core Data's templates fetch objects: a projection template (first members too) is exported as
    /// a fetch of its objects, with a warning at its name.
    @Test func aProjectionTemplateIsExportedAsAFetchOfItsObjectsWithAWarning() throws {
        let text = """
            model: M
            entities:
              Author:
                attributes: { name: string }
                relationships:
                  books: { destination: Book, toMany: true, ordered: true, inverse: author }
              Book:
                attributes: { title: string }
                relationships:
                  author: { destination: Author, inverse: books }
            fetchRequests:
              authorList:
                entity: Author
                properties: [name, { first: books.title }]

            """
        let model = try #require(ModelCheck.run(text: text, path: "M.model.yaml").model)
        let exported = XcodeModelExporter.export(model)
        #expect(exported.xml.contains("<fetchRequest name=\"authorList\" entity=\"Author\"/>"), "\(exported.xml)")
        #expect(exported.diagnostics.map(\.message) == ["fetch request 'authorList': a Core Data fetch request template has no properties to fetch; exported as a fetch of its objects"])
        #expect(exported.diagnostics.first?.location.line == 12)
    }

    @Test func reservedNamesAreRenamedWithTheirInverses() throws {
        let xml = """
            <model>
                <entity name="A" representedClassName="A" codeGenerationType="class">
                    <attribute name="value" attributeType="Double" defaultValueString="0.0"/>
                    <relationship name="entity" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="owners" inverseEntity="B"/>
                </entity>
                <entity name="B" representedClassName="B" codeGenerationType="class">
                    <relationship name="owners" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="A" inverseName="entity" inverseEntity="A"/>
                </entity>
            </model>
            """
        let result = XcodeModelImport.convert(data: Data(xml.utf8), contentsPath: "m/contents", modelName: "M", source: "m")
        let text = try #require(result.text, "\(result.diagnostics)")
        #expect(text.contains("storedValue: { type: double, default: 0.0, renamingIdentifier: value }"))
        #expect(text.contains("storedEntity: { destination: B, inverse: owners, renamingIdentifier: entity }"))
        #expect(text.contains("owners: { destination: A, toMany: true, inverse: storedEntity }"))
    }
}

/// Every element and attribute Xcode writes in a model's `contents` (Tests/Fixtures/CoreDataModels/EveryConstruct.xml,
/// written for this sweep), one case per construct: what the import makes of it (a line of the model file) and what
/// it says about it (a diagnostic at the XML position, when the construct has no place or needs a change). The
/// rows of docs/interop.md's mapping table are these cases. The file also goes through validate, generate, a
/// compile and a smoke run with the real-world corpus (RealWorldModelTests).
@Suite struct XcodeConstructSweepTests {
    struct Construct: CustomTestStringConvertible, Sendable {
        var name: String
        /// A line (or part of one) of the imported model file; empty when the construct leaves nothing there.
        var imported: String
        /// Part of a diagnostic's text, `LINE:COLUMN: severity: message` (nil: the import says nothing about it).
        var diagnostic: String?
        var testDescription: String { name }
    }

    static let constructs: [Construct] = [
        .init(name: "model userDefinedModelVersionIdentifier", imported: "model: EveryConstruct\n",
              diagnostic: "2:184: warning: the model version identifier '2.1' has no place"),
        .init(name: "entity representedClassName with a module dot", imported: "  Library:\n    renamingIdentifier: LibraryV1\n    versionHashModifier: '2'\n    attributes:", diagnostic: nil),
        .init(name: "entity elementID and versionHashModifier", imported: "    renamingIdentifier: LibraryV1\n", diagnostic: nil),
        .init(name: "entity versionHashModifier", imported: "    versionHashModifier: '2'\n", diagnostic: nil),
        .init(name: "entity userInfo", imported: "userInfo: { owner: city }", diagnostic: nil),
        .init(name: "entity isAbstract", imported: "  Item:\n    abstract: true\n", diagnostic: nil),
        .init(name: "entity without codeGenerationType (Manual/None)", imported: "  Item:\n    abstract: true\n    codegen: none\n",
              diagnostic: "note: 1 of 3 entities use Xcode's Manual/None codegen and are imported as 'codegen: none'"),
        .init(name: "entity parentEntity and codeGenerationType category", imported: "  Book:\n    parent: Item\n    codegen: extension\n", diagnostic: nil),
        .init(name: "string min, max, regularExpressionString", imported: "        min: 1\n        max: 120\n        regex: '^[^\\n]+$'\n", diagnostic: nil),
        .init(name: "spotlightIndexingEnabled", imported: "userInfo: { coreData.spotlightIndexingEnabled: 'YES' }", diagnostic: nil),
        .init(name: "defaultDateTimeInterval and minDateTimeInterval", imported: "opened: { type: date, optional: true, default: '2001-01-01T00:00:00Z', min: '1970-01-01T00:00:00Z' }", diagnostic: nil),
        .init(name: "usesScalarValueType NO", imported: "ident: uuid?", diagnostic: "note: usesScalarValueType=\"NO\" on 2 attribute(s) is not kept"),
        .init(name: "integer default written as 0.0, indexed YES", imported: "code: { type: int32, default: 0 }", diagnostic: nil),
        .init(name: "decimal default", imported: "budget: { type: decimal, default: 1000.50 }", diagnostic: nil),
        .init(name: "boolean default on a float", imported: "ratio: { type: float, default: 1 }",
              diagnostic: "8:55: warning: attribute 'Library.ratio': the default 'YES' is a boolean on a float attribute; imported as 1"),
        .init(name: "boolean default written as a number", imported: "isOpen: { type: bool, default: true }", diagnostic: nil),
        .init(name: "allowsExternalBinaryDataStorage", imported: "logo: { type: binary, optional: true, externalStorage: true }", diagnostic: nil),
        .init(name: "URI", imported: "home: uri?", diagnostic: nil),
        .init(name: "NSSecureUnarchiveFromData on NSArray", imported: "keywords: { type: transformable, optional: true, swiftType: '[String]' }",
              diagnostic: "13:130: warning: attribute 'Library.keywords' holds an NSArray"),
        .init(name: "archiving transformer", imported: "", diagnostic: "13:81: note: attribute 'Library.keywords' uses NSSecureUnarchiveFromData"),
        .init(name: "NSAttributedString", imported: "motto: { type: transformable, optional: true, swiftType: String }",
              diagnostic: "14:78: warning: attribute 'Library.motto' holds an NSAttributedString"),
        .init(name: "valueTransformerName and customClassName", imported: "theme: { type: transformable, optional: true, swiftType: Theme, transformer: ThemeTransformer }", diagnostic: nil),
        .init(name: "derived with derivationExpression", imported: "upperName: { type: string, optional: true, derived: 'uppercase:(name)' }", diagnostic: nil),
        .init(name: "Undefined transient", imported: "scratch: { type: undefined, optional: true, swiftType: Data, transient: true }",
              diagnostic: "17:9: warning: attribute 'Library.scratch' has no type (Core Data's Undefined)"),
        .init(name: "transient", imported: "draft: { type: string, optional: true, transient: true }", diagnostic: nil),
        .init(name: "a ManagedObject member's name", imported: "storedValue: { type: string, optional: true, renamingIdentifier: value }",
              diagnostic: "19:20: warning: 'Library.value' collides with ManagedObject's member 'value'; imported as 'storedValue'"),
        .init(name: "an NSManagedObject member's name", imported: "deleted: bool?", diagnostic: "20:9: warning: 'Library.deleted' collides with NSManagedObject's 'deleted'"),
        .init(name: "preserveAfterDeletion", imported: "userInfo: { coreData.preserveAfterDeletion: 'YES' }", diagnostic: nil),
        .init(name: "allowsCloudEncryption", imported: "userInfo: { coreData.allowsCloudEncryption: 'YES' }", diagnostic: nil),
        .init(name: "ordered to-many with minCount, maxCount, Deny", imported: "books: { destination: Book, toMany: true, ordered: true, inverse: library, deleteRule: deny, min: 1, max: 500 }", diagnostic: nil),
        .init(name: "No Action without inverse", imported: "branches: { destination: Library, toMany: true, deleteRule: noAction }",
              diagnostic: "24:9: warning: relationship 'Library.branches' has no inverse"),
        .init(name: "to-one without optional", imported: "library: { destination: Library, inverse: books, optional: false }", diagnostic: nil),
        .init(name: "fetchedProperty", imported: "thickBooks: { destination: Book, predicate: 'library == $FETCH_SOURCE AND pages > 500' }", diagnostic: nil),
        .init(name: "fetchIndex with a descending element", imported: "indexes: [[code], [name, code]]",
              diagnostic: "30:62: warning: fetch index element 'code' is descending in Core Data"),
        .init(name: "fetchIndex on an expression", imported: "", diagnostic: "33:13: warning: fetch index 'byLength' uses an expression"),
        .init(name: "fetchIndex names", imported: "", diagnostic: "note: the names of 1 fetch index(es) are not kept"),
        .init(name: "uniquenessConstraints", imported: "unique: [[name, code]]", diagnostic: nil),
        .init(name: "compoundIndexes (before Xcode 8)", imported: "    indexes: [[title]]\n", diagnostic: nil),
        .init(name: "empty string default", imported: "title: { type: string, default: '' }", diagnostic: nil),
        .init(name: "fetchRequest with an upper-case name, BETWEEN on variables, fetchLimit",
              imported: "  BooksOfLibrary:\n    entity: Book\n    predicate: 'library.name == $NAME AND pages BETWEEN {$MIN, $MAX}'\n    limit: 20\n    swiftName: booksOfLibrary\n",
              diagnostic: "57:19: warning: fetch request 'BooksOfLibrary' is no lower-camel Swift identifier"),
        .init(name: "fetchRequest resultType and returnDistinctResults", imported: "",
              diagnostic: "57:142: warning: fetch request 'BooksOfLibrary': resultType=\"2\" has no place"),
        .init(name: "fetchRequest fetchBatchSize, CAST to NSDate", imported: "predicate: 'opened > CAST(0, \"NSDate\")'",
              diagnostic: "58:117: warning: fetch request 'recentLibraries': fetchBatchSize=\"50\" has no place"),
        .init(name: "configuration with usedWithCloudKit", imported: "configurations:\n  Cloud: [Library, Book, Item]",
              diagnostic: "59:33: warning: configuration 'Cloud': 'usedWithCloudKit=\"YES\"' has no place"),
        .init(name: "elements (diagram layout)", imported: "", diagnostic: nil),
    ]

    static let result: XcodeModelImport.Outcome = {
        let data = (try? Data(contentsOf: packageRoot.appendingPathComponent("Tests/Fixtures/CoreDataModels/EveryConstruct.xml"))) ?? Data()
        return XcodeModelImport.convert(data: data, contentsPath: "EveryConstruct.xml", modelName: "EveryConstruct", source: "EveryConstruct.xml")
    }()

    @Test(arguments: constructs)
    func eachConstructIsImportedAsDocumented(_ construct: Construct) throws {
        let text = try #require(Self.result.text, "\(Self.result.diagnostics)")
        if !construct.imported.isEmpty {
            #expect(text.contains(construct.imported), "\(construct.name): no '\(construct.imported)' in\n\(text)")
        }
        if let diagnostic = construct.diagnostic {
            #expect(Self.result.diagnostics.contains { $0.description.contains(diagnostic) },
                    "\(construct.name): no '\(diagnostic)' among\n\(Self.result.diagnostics.map(\.description).joined(separator: "\n"))")
        }
    }

    /// Nothing is reported that no case expects, and nothing is an error: Core Data loads the model, so must the import.
    @Test func everyDiagnosticBelongsToACase() {
        #expect(!Self.result.hasErrors)
        let expected = Self.constructs.compactMap(\.diagnostic)
        for diagnostic in Self.result.diagnostics {
            let known = expected.contains { diagnostic.description.contains($0) }
                || diagnostic.message.contains("returnDistinctResults") || diagnostic.message.contains("noAction on relationship")
            #expect(known, "unexpected: \(diagnostic)")
        }
    }
}
