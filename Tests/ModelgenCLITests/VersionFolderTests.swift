import ClinicVersions
import Foundation
import TestScratch
import Testing

/// Version folders (issue 39): `NAME.modelversions` with `v1.model.yaml`, `v2.model.yaml`, …, checked
/// version by version and along the path, each version's hash printed (the runtime's, for the same
/// model), and generated as its current version.
@Suite struct VersionFolderTests {
    static let clinic = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Versions/Clinic.modelversions").path

    @Test func validatePrintsEachVersionsHashAndWhatItsStoresNeed() throws {
        let run = try modelgen(["validate", Self.clinic])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        // The hashes are the runtime's for the same models (written by hand in ClinicVersions).
        let runtime = [ClinicVersions.v1, ClinicVersions.v2, ClinicVersions.v3, ClinicVersions.v4].map(\.versionHash)
        for (index, line) in lines.enumerated() {
            #expect(line.hasPrefix("\(Self.clinic)/v\(index + 1).model.yaml: version \(index + 1)"), "\(line)")
            #expect(line.contains("version hash \(runtime[index])"), "\(line)")
        }
        #expect(lines[0].hasSuffix("version hash \(runtime[0])"))
        #expect(lines[1].hasSuffix("from version 1: 2 changes (lightweight, api-break); stores need a lightweight stage"))
        #expect(lines[2].hasSuffix("from version 2: 1 change (custom-stage, api-break); stores need a custom stage"))
        #expect(lines[3].contains("version 4 (current)"))
        #expect(lines[3].hasSuffix("from version 3: 5 changes (custom-stage, data-loss, api-break); stores need a custom stage"))
    }

    /// Writes `files` (name → text) into a new folder `Shop.modelversions`.
    func folder(_ files: [String: String]) throws -> URL {
        let folder = try temporaryDirectory().appendingPathComponent("Shop.modelversions")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return folder
    }

    static func model(_ attributes: String, name: String = "Shop") -> String {
        "model: \(name)\nentities:\n  Item:\n    attributes: { \(attributes) }\n"
    }

    @Test func aFolderWithAGapOrAStrayFileIsRefused() throws {
        let gap = try folder(["v1.model.yaml": Self.model("title: string"), "v3.model.yaml": Self.model("title: string, note: string?")])
        let run = try modelgen(["validate", gap.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(gap.path)/v3.model.yaml:1:1: error: v2 is missing: a version folder numbers its versions from v1 without gaps (released versions stay in it) [MG0705]"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        let stray = try folder(["v1.model.yaml": Self.model("title: string"), "draft.model.yaml": Self.model("title: string")])
        let strayRun = try modelgen(["validate", stray.path])
        #expect(strayRun.status == 1)
        #expect(strayRun.stderr.contains("draft.model.yaml:1:1: error: 'draft.model.yaml' is not a version: the files of a version folder are named v1.model.yaml, v2.model.yaml, … [MG0705]"), "\(strayRun.stderr)")
        let empty = try folder([:])
        #expect(try modelgen(["validate", empty.path]).stderr.contains("error: the version folder holds no versions"))
    }

    @Test func aVersionNamingAnotherModelIsAnErrorAndAnUnchangedOneAWarning() throws {
        let renamed = try folder(["v1.model.yaml": Self.model("title: string"), "v2.model.yaml": Self.model("title: string, note: string?", name: "Store")])
        let run = try modelgen(["validate", renamed.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("v2.model.yaml:1:8: error: version 2 names the model 'Store', version 1 'Shop': the versions of a folder are one model's [MG0706]"), "\(run.stderr)")
        // Only a default changed: stores keep the same, so the hash is the same.
        let same = try folder(["v1.model.yaml": Self.model("title: string"), "v2.model.yaml": Self.model("title: { type: string, default: x }")])
        let warned = try modelgen(["validate", same.path])
        #expect(warned.status == 0)
        #expect(warned.stderr.contains("v2.model.yaml:1:8: warning: version 2 keeps in stores what version 1 keeps"), "\(warned.stderr)")
        #expect(warned.stderr.contains("[MG0707]"))
        #expect(try modelgen(["validate", same.path, "--strict"]).status == 1)
    }

    @Test func generateWritesTheCurrentVersion() throws {
        let output = try temporaryDirectory().appendingPathComponent("Generated")
        let run = try modelgen(["generate", Self.clinic, "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        let model = try String(contentsOf: output.appendingPathComponent("ClinicModel.swift"), encoding: .utf8)
        #expect(model.contains("Clinic.modelversions/v4.model.yaml. DO NOT EDIT."))
        #expect(model.contains("static let versionHash = \"\(ClinicVersions.v4.versionHash)\""))
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("Patient.swift").path))
        // The current version's warning is printed; the released version's is counted in a note.
        #expect(run.stderr.components(separatedBy: "[MG0301]").count - 1 == 1, "\(run.stderr)")
        #expect(run.stderr.contains("v4.model.yaml:9:21: warning: optional numeric attribute 'Patient.weight'"), "\(run.stderr)")
        #expect(run.stderr.contains("note: 1 warning of released versions (v3) not shown"), "\(run.stderr)")
        #expect(!run.stderr.contains("v3.model.yaml:"), "\(run.stderr)")
    }

    /// `--oldest-version` (and `oldestVersion` in modelgen.yml): versions before it are neither checked
    /// nor generated; their hashes go into the history as retired, so stores of them are refused.
    @Test func versionsBeforeTheOldestAreRetired() throws {
        let check = try modelgen(["validate", Self.clinic, "--oldest-version", "3"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("versions 1 to 2 retired (oldest version 3): not checked"), "\(check.stdout)")
        #expect(!check.stdout.contains("v1.model.yaml") && check.stdout.contains("v3.model.yaml: version 3"), "\(check.stdout)")
        #expect(check.stdout.contains("v4.model.yaml: version 4 (current), version hash \(ClinicVersions.v4.versionHash); from version 3:"), "\(check.stdout)")

        let output = try temporaryDirectory().appendingPathComponent("Generated")
        let run = try modelgen(["generate", Self.clinic, "--output", output.path, "--oldest-version", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        let model = try String(contentsOf: output.appendingPathComponent("ClinicModel.swift"), encoding: .utf8)
        #expect(model.contains("current: model, currentNumber: 4, firstNumber: 2,"))
        #expect(model.contains("retiredVersionHashes: [\"\(ClinicVersions.v1.versionHash)\"],"))
        #expect(!model.contains("static var v1:") && model.contains("static var v2:"))

        // The same from modelgen.yml.
        let project = try temporaryDirectory()
        try "models:\n  - path: \(Self.clinic)\n    output: Out\n    oldestVersion: 2\n".write(to: project.appendingPathComponent("modelgen.yml"), atomically: true, encoding: .utf8)
        let configured = try modelgen([], in: project)
        #expect(configured.status == 0, "\(configured.stderr)")
        #expect(try String(contentsOf: project.appendingPathComponent("Out/ClinicModel.swift"), encoding: .utf8) == model)

        // And from modelgen-config.yaml, which the build-tool plugin passes with --config.
        let config = try temporaryDirectory().appendingPathComponent("modelgen-config.yaml")
        try "oldestVersion: 2\n".write(to: config, atomically: true, encoding: .utf8)
        let plugin = try temporaryDirectory().appendingPathComponent("Plugin")
        let planned = try modelgen(["generate", Self.clinic, "--output", plugin.path, "--config", config.path])
        #expect(planned.status == 0, "\(planned.stderr)")
        #expect(try String(contentsOf: plugin.appendingPathComponent("ClinicModel.swift"), encoding: .utf8).contains("current: model, currentNumber: 4, firstNumber: 2,"))

        let beyond = try modelgen(["validate", Self.clinic, "--oldest-version", "9"])
        #expect(beyond.status == 1 && beyond.stderr.contains("the oldest version to keep, 9, is not one of"), "\(beyond.stderr)")
    }

    /// Released versions cannot change: their warnings are one note unless asked for; the current
    /// version's repeated warnings are one line per kind in text, every one in JSON; errors are never collapsed.
    @Test func releasedVersionsWarnQuietlyAndRepeatedWarningsCollapse() throws {
        func version(_ count: Int) -> String {
            "model: Shop\nentities:\n  Item:\n    attributes:\n      name: string\n" + (1...count).map { "      n\($0): int16?\n" }.joined()
        }
        let shop = try folder(["v1.model.yaml": version(4), "v2.model.yaml": version(5), "v3.model.yaml": version(6)])
        let run = try modelgen(["validate", shop.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "warning:").count - 1 == 1, "\(run.stderr)")
        #expect(run.stderr.contains("v3.model.yaml:6:16: warning: optional numeric attribute 'Item.n1'"), "\(run.stderr)")
        #expect(run.stderr.contains("(and 5 more like it in this file, at 7:16, 8:16, 9:16, …; --diagnostics json lists each) [MG0301]"), "\(run.stderr)")
        #expect(run.stderr.contains("note: 9 warnings of released versions (v1–v2) not shown"), "\(run.stderr)")
        let all = try modelgen(["validate", shop.path, "--released-version-warnings"])
        #expect(all.stderr.contains("v1.model.yaml:6:16: warning:") && all.stderr.contains("v2.model.yaml:6:16: warning:"), "\(all.stderr)")
        #expect(!all.stderr.contains("not shown"))
        let json = try modelgen(["validate", shop.path, "--diagnostics", "json"])
        #expect(json.stdout.split(separator: "\n").filter { $0.contains("\"MG0301\"") }.count == 6, "\(json.stdout)")
        // --strict fails on a released version's warnings, and shows them.
        let strict = try modelgen(["validate", shop.path, "--strict"])
        #expect(strict.status == 1 && strict.stderr.contains("v1.model.yaml:6:16: error:"), "\(strict.stderr)")
        // Errors of one kind are each printed.
        let broken = try folder(["v1.model.yaml": "model: Shop\nentities:\n  Item:\n    attributes:\n      a: strin\n      b: strin\n"])
        let errors = try modelgen(["validate", broken.path])
        #expect(errors.stderr.components(separatedBy: ": error: unknown attribute type").count - 1 == 2, "\(errors.stderr)")
    }
}

/// `modelgen import --all-versions`: every released version of a `.xcdatamodeld` into a version folder,
/// oldest first, the renames Xcode records (`elementID`) kept, drafts after the current version left out.
@Suite struct ImportAllVersionsTests {
    /// A `.xcdatamodeld` with `Notes`, `Notes 2` and `Notes 3` (the current version is `Notes 2`).
    static func bundle() throws -> URL {
        let root = try temporaryDirectory().appendingPathComponent("Notes.xcdatamodeld")
        let versions = [
            ("Notes", """
                <entity name="Memo" representedClassName="Memo" codeGenerationType="class">
                    <attribute name="text" attributeType="String"/>
                </entity>
                """),
            ("Notes 2", """
                <entity name="Note" representedClassName="Note" elementID="Memo" codeGenerationType="class">
                    <attribute name="body" attributeType="String" elementID="text"/>
                    <attribute name="pinned" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
                </entity>
                """),
            ("Notes 3", """
                <entity name="Note" representedClassName="Note" codeGenerationType="class">
                    <attribute name="body" attributeType="String"/>
                </entity>
                """),
        ]
        for (name, entities) in versions {
            let bundle = root.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            try """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel">
                \(entities)
                </model>
                """.write(to: bundle.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        }
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Notes 2.xcdatamodel</string></dict></plist>
            """.write(to: root.appendingPathComponent(".xccurrentversion"), atomically: true, encoding: .utf8)
        return root
    }

    @Test func everyReleasedVersionBecomesAVersionOfTheFolder() throws {
        let bundle = try Self.bundle()
        let folder = bundle.deletingLastPathComponent().appendingPathComponent("Notes.modelversions")
        let run = try modelgen(["import", bundle.path, "--all-versions", "--output", folder.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("imported 2 versions into \(folder.path)"))
        #expect(run.stderr.contains("warning: version 'Notes 3' comes after the current version 'Notes 2' and is left out (not released)"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["v1.model.yaml", "v2.model.yaml"])
        let v2 = try String(contentsOf: folder.appendingPathComponent("v2.model.yaml"), encoding: .utf8)
        #expect(v2.contains("renamingIdentifier: Memo"), "\(v2)")
        // The folder validates, and the step is the lightweight renames it records.
        let validate = try modelgen(["validate", folder.path])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout.contains("v2.model.yaml: version 2 (current)"))
        #expect(validate.stdout.contains("stores need a lightweight stage"), "\(validate.stdout)")
        // A second import does not write over the folder.
        let again = try modelgen(["import", bundle.path, "--all-versions", "--output", folder.path])
        #expect(again.status == 2)
        #expect(again.stderr.contains("is not empty"))
        // --all-versions needs a version folder to write.
        #expect(try modelgen(["import", bundle.path, "--all-versions", "--output", "Notes.model.yaml"]).status != 0)
    }
}
