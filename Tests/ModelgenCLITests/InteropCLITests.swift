import Foundation
import TestScratch
import Testing

@Suite struct InteropCLITests {
    @Test func formatCheckReportsAndFormatRewritesOnce() throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("A.model.yaml")
        let messy = "entities:\n  Item:   # the only entity\n    attributes: {name: {type: string}}\nmodel: A\n"
        try messy.write(to: file, atomically: true, encoding: .utf8)
        let check = try modelgen(["format", "--check", file.path])
        #expect(check.status == 1)
        #expect(check.stdout.contains("-    attributes: {name: {type: string}}\n"), "\(check.stdout)")
        #expect(check.stdout.contains("+      name: string\n"), "\(check.stdout)")
        #expect(try String(contentsOf: file, encoding: .utf8) == messy, "--check writes nothing")
        #expect(try modelgen(["format", file.path]).status == 0)
        let formatted = try String(contentsOf: file, encoding: .utf8)
        #expect(formatted == "model: A\n\nentities:\n  Item:  # the only entity\n    attributes:\n      name: string\n")
        let again = try modelgen(["format", "--check", file.path])
        #expect(again.status == 0 && again.stdout.isEmpty)
    }

    @Test func exportThenImportOnDisk() throws {
        let directory = try temporaryDirectory()
        let model = directory.appendingPathComponent("Notes.model.yaml")
        try "model: Notes\nentities:\n  Note:\n    attributes:\n      title: string\n      body: { type: string, doc: The text. }\n"
            .write(to: model, atomically: true, encoding: .utf8)
        let bundle = directory.appendingPathComponent("Notes.xcdatamodeld/Notes.xcdatamodel")
        let export = try modelgen(["export", model.path, "--xcdatamodel", bundle.path])
        #expect(export.status == 0, "\(export.stderr)")
        let xml = try String(contentsOf: bundle.appendingPathComponent("contents"), encoding: .utf8)
        #expect(xml.contains("<entity name=\"Note\" representedClassName=\"Note\" syncable=\"YES\" codeGenerationType=\"class\">"))
        let output = directory.appendingPathComponent("Back.model.yaml")
        let imported = try modelgen(["import", directory.appendingPathComponent("Notes.xcdatamodeld").path, "--output", output.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try String(contentsOf: output, encoding: .utf8).hasSuffix("model: Notes\n\nentities:\n  Note:\n    attributes:\n      title: string\n      body: { type: string, doc: The text. }\n"))

        // A model that cannot be imported writes nothing.
        try "<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Undefined\"/></entity></model>"
            .write(to: bundle.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let bad = directory.appendingPathComponent("Bad.model.yaml")
        let failed = try modelgen(["import", bundle.path, "--output", bad.path])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("contents:1:25: error: attribute 'A.x' has no type"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bad.path))
    }
}
