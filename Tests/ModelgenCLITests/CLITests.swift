import Foundation
import TestScratch
import Testing

/// Runs the built `modelgen` binary as a user would.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

func modelgenBinary() -> URL {
    // Test bundles live beside the products they test (e.g. .build/debug).
    var directory = Bundle.main.bundleURL
    if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
    let candidate = directory.appendingPathComponent("modelgen")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("modelgen")
}

func modelgen(_ arguments: [String], in directory: URL? = nil) throws -> Run {
    try runProcess(modelgenBinary(), arguments, in: directory)
}

/// Runs a program, reading its standard error while it runs so a chatty process cannot fill the pipe and stall.
func runProcess(_ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil) throws -> Run {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let group = DispatchGroup()
    nonisolated(unsafe) var stderr = Data()
    DispatchQueue.global().async(group: group) { stderr = err.fileHandleForReading.readDataToEndOfFile() }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
}

@Suite struct CLITests {
    static let bad = """
        model: Bad
        entities:
          Item:
            attributes:
              count: { type: int16, default: 70000 }
            relationships:
              parts: { destination: Item, tomany: true, inverse: none }
        """
    static let good = "model: Good\nentities:\n  Item:\n    attributes: { name: string, weight: double? }\n"

    func write(_ text: String, _ name: String) throws -> URL {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return directory
    }

    @Test func validReportsWarningsAndExitsZero() throws {
        let dir = try write(Self.good, "good.model.yaml")
        let run = try modelgen(["validate", "good.model.yaml"], in: dir)
        #expect(run.status == 0)
        #expect(run.stderr.hasPrefix("good.model.yaml:4:47: warning: optional numeric attribute 'Item.weight'"))
        let strict = try modelgen(["validate", "--strict", "good.model.yaml"], in: dir)
        #expect(strict.status == 1)
    }

    @Test func errorsOfAllFilesAreReportedWithExitOne() throws {
        let dir = try write(Self.bad, "bad.model.yaml")
        try Self.bad.replacingOccurrences(of: "70000", with: "1").write(to: dir.appendingPathComponent("bad2.model.yaml"), atomically: true, encoding: .utf8)
        let run = try modelgen(["validate", "bad.model.yaml", "bad2.model.yaml"], in: dir)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains("bad.model.yaml:5:38: error: invalid 'default' of attribute 'Item.count': 70000 does not fit in int16 (-32768...32767) [MG0306]"))
        #expect(lines.contains { $0.hasPrefix("bad.model.yaml:7:35: error: unknown key 'tomany'") && $0.hasSuffix(" [MG0007]") })
        #expect(lines.contains("bad.model.yaml:7:35: note: did you mean 'toMany'?"))
        #expect(lines.contains { $0.hasPrefix("bad2.model.yaml:7:35: error: unknown key 'tomany'") })
        #expect(run.stdout.isEmpty)
    }

    @Test func jsonDiagnosticsAreOneObjectPerLine() throws {
        let dir = try write(Self.bad, "bad.model.yaml")
        let run = try modelgen(["validate", "--diagnostics", "json", "bad.model.yaml"], in: dir)
        #expect(run.status == 1)
        let objects = try run.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(objects.count == 2)
        #expect(objects[0]["line"] as? Int == 5 && objects[0]["column"] as? Int == 38)
        #expect(objects[0]["severity"] as? String == "error")
        #expect(objects[0]["file"] as? String == "bad.model.yaml")
        #expect(objects[0]["id"] as? String == "MG0306" && objects[0]["name"] as? String == "invalid-default")
        #expect(objects[1]["id"] as? String == "MG0007" && objects[1]["name"] as? String == "unknown-key")
        #expect((objects[1]["notes"] as? [[String: Any]])?.first?["message"] as? String == "did you mean 'toMany'?")
    }

    @Test func githubDiagnosticsAreWorkflowCommands() throws {
        let dir = try write(Self.bad, "bad.model.yaml")
        let run = try modelgen(["validate", "--diagnostics", "github", "bad.model.yaml"], in: dir)
        #expect(run.stdout.split(separator: "\n").first == "::error file=bad.model.yaml,line=5,col=38,title=MG0306 invalid-default::invalid 'default' of attribute 'Item.count': 70000 does not fit in int16 (-32768...32767)")
        #expect(run.stdout.contains("%0Anote: did you mean 'toMany'?"))
    }

    @Test func unreadableFileAndUsageErrorsExitTwo() throws {
        let missing = try modelgen(["validate", "/nonexistent/x.model.yaml"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot read '/nonexistent/x.model.yaml'"))
        let usage = try modelgen(["validate", "--diagnostics", "xml", "a.model.yaml"])
        #expect(usage.status == 2)
        let noFiles = try modelgen(["validate"])
        #expect(noFiles.status == 2)
    }

    @Test func generateRefusesInvalidModelsAndWritesNothing() throws {
        let dir = try write(Self.bad, "bad.model.yaml")
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let run = try modelgen(["generate", "bad.model.yaml", "--output", out.path], in: dir)
        #expect(run.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    @Test func versionAndHelp() throws {
        let version = try modelgen(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
        let help = try modelgen(["validate", "--help"])
        #expect(help.stdout.contains("--diagnostics"))
        #expect(help.stdout.contains("Examples:"))
    }
}

@Suite struct GenerateCommandTests {
    static let model = """
        model: Shop
        entities:
          Item:
            attributes:
              name: string
              price: { type: double, default: 0 }
        """

    func project() throws -> URL {
        let dir = try temporaryDirectory()
        try Self.model.write(to: dir.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        return dir
    }

    @Test func writesFilesAndLeavesUnchangedOnesAlone() throws {
        let dir = try project()
        let first = try modelgen(["generate", "Shop.model.yaml", "--output", "Generated"], in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        let item = dir.appendingPathComponent("Generated/Item.swift")
        let text = try String(contentsOf: item, encoding: .utf8)
        #expect(text.hasPrefix("// Generated by modelgen from ../Shop.model.yaml. DO NOT EDIT."))
        #expect(text.contains("    @Managed(slot: 0) var name: String\n"))
        #expect(text.contains("    enum Keys {\n        static var name: String { \"name\" }\n        static var price: String { \"price\" }\n    }\n}\n\n@available(*, deprecated, renamed: \"Item.Keys\")\ntypealias ItemKeys = Item.Keys\n"))
        // The opt-in accessor form: the same properties as computed accessors over the slots.
        let accessors = try modelgen(["generate", "Shop.model.yaml", "--output", "Accessors", "--property-style", "accessors"], in: dir)
        #expect(accessors.status == 0, "\(accessors.stderr)")
        let accessorText = try String(contentsOf: dir.appendingPathComponent("Accessors/Item.swift"), encoding: .utf8)
        #expect(accessorText.contains("    var name: String {\n        get { managedValue(at: 0) }\n        set { setManagedValue(newValue, at: 0) }\n    }"))
        #expect(!accessorText.contains("@Managed"))
        #expect(try modelgen(["generate", "Shop.model.yaml", "--output", "Accessors", "--property-style", "wrappers"], in: dir).status == 2)
        let past = Date(timeIntervalSince1970: 1_000_000)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: item.path)
        #expect(try modelgen(["generate", "Shop.model.yaml", "--output", "Generated"], in: dir).status == 0)
        let mtime = try FileManager.default.attributesOfItem(atPath: item.path)[.modificationDate] as? Date
        #expect(mtime == past)   // unchanged content: not rewritten
        #expect(try modelgen(["generate", "Shop.model.yaml", "--output", "Generated", "--check"], in: dir).status == 0)
    }

    /// A new output directory is filled beside it and renamed into place: it appears whole, with its
    /// missing parents, and nothing of the staging is left; what is already there is never replaced
    /// (a dangling symbolic link stays, and the run says it cannot write).
    @Test func aNewOutputDirectoryAppearsWholeAndNothingElseIsReplaced() throws {
        let dir = try project()
        let run = try modelgen(["generate", "Shop.model.yaml", "--output", "Deep/er/Generated"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("Deep/er/Generated").path).sorted()
        #expect(names.contains("Item.swift") && names.allSatisfy { $0.hasSuffix(".swift") && !$0.hasPrefix(".") }, "\(names)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("Deep/er").path) == ["Generated"])
        // The same files as into a directory that already exists (written one by one).
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Existing"), withIntermediateDirectories: true)
        #expect(try modelgen(["generate", "Shop.model.yaml", "--output", "Existing", "--no-cache"], in: dir).status == 0)
        for name in names {
            let fresh = try String(contentsOf: dir.appendingPathComponent("Deep/er/Generated/\(name)"), encoding: .utf8)
            let existing = try String(contentsOf: dir.appendingPathComponent("Existing/\(name)"), encoding: .utf8)
            #expect(fresh.replacingOccurrences(of: "../../../Shop.model.yaml", with: "../Shop.model.yaml") == existing, "\(name)")
        }
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("Dangling").path, withDestinationPath: "nowhere/at/all")
        let dangling = try modelgen(["generate", "Shop.model.yaml", "--output", "Dangling"], in: dir)
        #expect(dangling.status == 2 && dangling.stderr.contains("cannot write to 'Dangling'"), "\(dangling.status) \(dangling.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir.appendingPathComponent("Dangling").path) == "nowhere/at/all")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.hasPrefix(".") })
    }

    @Test func checkReportsStaleMissingAndExtraFilesWithADiffAndWritesNothing() throws {
        let dir = try project()
        #expect(try modelgen(["generate", "Shop.model.yaml", "--output", "Generated"], in: dir).status == 0)
        try Self.model.replacingOccurrences(of: "name: string", with: "title: string")
            .write(to: dir.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        let extra = dir.appendingPathComponent("Generated/Old.swift")
        try "// Generated by modelgen from ../Shop.model.yaml. DO NOT EDIT.\n".write(to: extra, atomically: true, encoding: .utf8)
        let before = try String(contentsOf: dir.appendingPathComponent("Generated/Item.swift"), encoding: .utf8)
        let check = try modelgen(["generate", "Shop.model.yaml", "--output", "Generated", "--check"], in: dir)
        #expect(check.status == 1)
        #expect(check.stdout.contains("-    @Managed(slot: 0) var name: String\n"))
        #expect(check.stdout.contains("+    @Managed(slot: 0) var title: String\n"))
        #expect(check.stdout.contains("Old.swift\n+++ /dev/null"))
        #expect(try String(contentsOf: dir.appendingPathComponent("Generated/Item.swift"), encoding: .utf8) == before)
        #expect(try modelgen(["generate", "Shop.model.yaml", "--output", "Generated"], in: dir).status == 0)
        #expect(!FileManager.default.fileExists(atPath: extra.path))   // stale generated file removed
        #expect(try modelgen(["generate", "Shop.model.yaml", "--output", "Generated", "--check"], in: dir).status == 0)
    }

    @Test func dryRunPrintsAndWritesNothing() throws {
        let dir = try project()
        let run = try modelgen(["generate", "Shop.model.yaml", "--output", "Generated", "--dry-run", "--access", "public"], in: dir)
        #expect(run.status == 0)
        #expect(run.stdout.contains("public final class Item: ModelgenRuntime.ManagedObject"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Generated").path))
    }

    @Test func customTemplatesReplaceBuiltInOnesByName() throws {
        let dir = try project()
        let templates = dir.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try "// Custom header for {{modelName}} from {{sourcePath}}\n@_spi(Generated) import ModelgenRuntime\n"
            .write(to: templates.appendingPathComponent("header.mustache"), atomically: true, encoding: .utf8)
        let run = try modelgen(["generate", "Shop.model.yaml", "--output", "Out", "--templates", templates.path, "--single-file"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOf: dir.appendingPathComponent("Out/ShopModel.swift"), encoding: .utf8)
        #expect(text.hasPrefix("// Custom header for Shop from ../Shop.model.yaml\n"))
        #expect(text.contains("final class Item: ModelgenRuntime.ManagedObject"))   // other templates stay built-in

        // The documented property-wrapper style: `isManaged` marks what `@Managed(slot:)` can declare.
        try """
            final class {{className}}: {{superclassName}} {
            {{#properties}}
            {{#isManaged}}
                @Managed(slot: {{slot}}) {{access}}var {{name}}: {{type}}
            {{/isManaged}}
            {{^isManaged}}
                {{access}}var {{name}}: {{type}} {
                    get { {{getter}} }
                    set { {{setter}} }
                }
            {{/isManaged}}
            {{/properties}}
            }

            """.write(to: templates.appendingPathComponent("entity.mustache"), atomically: true, encoding: .utf8)
        let wrapped = try modelgen(["generate", "Shop.model.yaml", "--output", "Wrapped", "--templates", templates.path], in: dir)
        #expect(wrapped.status == 0, "\(wrapped.stderr)")
        let item = try String(contentsOf: dir.appendingPathComponent("Wrapped/Item.swift"), encoding: .utf8)
        #expect(item.contains("    @Managed(slot: 0) var name: String\n    @Managed(slot: 1) var price: Double\n"))
        // The same template as earlier releases wrote it (`getter`/`setter`, deprecated) and as the data
        // (`getterName`, `setterName`, `slot`) writes it give the same accessors.
        let accessors = "        get { managedValue(at: 1) }\n        set { setManagedValue(newValue, at: 1) }\n"
        let old = try modelgen(["generate", "Shop.model.yaml", "--output", "Old", "--templates", templates.path, "--property-style", "accessors"], in: dir)
        #expect(old.status == 0, "\(old.stderr)")
        #expect(try String(contentsOf: dir.appendingPathComponent("Old/Item.swift"), encoding: .utf8).contains(accessors))
        let current = try String(contentsOf: templates.appendingPathComponent("entity.mustache"), encoding: .utf8)
            .replacingOccurrences(of: "{{getter}}", with: "{{getterName}}(at: {{slot}})")
            .replacingOccurrences(of: "{{setter}}", with: "{{setterName}}(newValue, at: {{slot}})")
        try current.write(to: templates.appendingPathComponent("entity.mustache"), atomically: true, encoding: .utf8)
        let new = try modelgen(["generate", "Shop.model.yaml", "--output", "New", "--templates", templates.path, "--property-style", "accessors"], in: dir)
        #expect(new.status == 0, "\(new.stderr)")
        #expect(try String(contentsOf: dir.appendingPathComponent("New/Item.swift"), encoding: .utf8).contains(accessors))
    }
}

@Suite struct HumanDirTests {
    @Test func starterClassIsWrittenOnceAndNeverOverwritten() throws {
        let dir = try temporaryDirectory()
        try "model: Shop\nentities:\n  Item:\n    codegen: extension\n    attributes: { name: string }\n"
            .write(to: dir.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        let arguments = ["generate", "Shop.model.yaml", "--output", "Generated", "--human-dir", "Sources"]
        #expect(try modelgen(arguments, in: dir).status == 0)
        let human = dir.appendingPathComponent("Sources/Item.swift")
        let text = try String(contentsOf: human, encoding: .utf8)
        #expect(text.contains("final class Item: ModelgenRuntime.ManagedObject {"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("Generated/Item+Generated.swift").path))
        try "// mine\n".write(to: human, atomically: true, encoding: .utf8)
        #expect(try modelgen(arguments, in: dir).status == 0)
        #expect(try String(contentsOf: human, encoding: .utf8) == "// mine\n")
    }
}

@Suite struct PluginModeTests {
    @Test func singleFileNameAndConfigFileAsThePluginUsesThem() throws {
        let dir = try temporaryDirectory()
        try "model: Shop\nentities:\n  Item:\n    attributes: { name: string }\n"
            .write(to: dir.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        try "access: public\nimports: [Dispatch]\n".write(to: dir.appendingPathComponent("modelgen-config.yaml"), atomically: true, encoding: .utf8)
        let model = dir.appendingPathComponent("Shop.model.yaml").path
        let run = try modelgen(["generate", model, "--output", "Out", "--single-file-name", "Shop.generated.swift",
                                "--config", dir.appendingPathComponent("modelgen-config.yaml").path], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOf: dir.appendingPathComponent("Out/Shop.generated.swift"), encoding: .utf8)
        #expect(text.hasPrefix("// Generated by modelgen from ../Shop.model.yaml. DO NOT EDIT."))   // relative, not absolute
        #expect(text.contains("import Dispatch"))
        #expect(text.contains("public final class Item: ModelgenRuntime.ManagedObject"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("Out").path) == ["Shop.generated.swift"])
    }

    @Test func aWrongConfigFileIsAnErrorAtItsPosition() throws {
        let dir = try temporaryDirectory()
        try "model: Shop\nentities:\n  Item:\n    attributes: { name: string }\n"
            .write(to: dir.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        try "access: pubic\nimport: [X]\n".write(to: dir.appendingPathComponent("modelgen-config.yaml"), atomically: true, encoding: .utf8)
        let run = try modelgen(["generate", "Shop.model.yaml", "--output", "Out", "--config", "modelgen-config.yaml"], in: dir)
        #expect(run.status == 1)
        #expect(run.stderr.contains("modelgen-config.yaml:1:9: error: unknown access level 'pubic'"))
        #expect(run.stderr.contains("modelgen-config.yaml:2:1: error: unknown key 'import'"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Out").path))
    }
}

@Suite struct ProjectFileTests {
    func project(_ yml: String) throws -> URL {
        let dir = try temporaryDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Models"), withIntermediateDirectories: true)
        try "model: Shop\nentities:\n  Item:\n    attributes: { name: string }\n"
            .write(to: dir.appendingPathComponent("Models/Shop.model.yaml"), atomically: true, encoding: .utf8)
        try yml.write(to: dir.appendingPathComponent("modelgen.yml"), atomically: true, encoding: .utf8)
        return dir
    }

    @Test func noArgumentsGeneratesEveryListedModelAndCheckGuardsThem() throws {
        let dir = try project("defaults:\n  access: public\nmodels:\n  - path: Models/Shop.model.yaml\n    output: Generated\n")
        let run = try modelgen([], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOf: dir.appendingPathComponent("Generated/Item.swift"), encoding: .utf8)
        #expect(text.contains("public final class Item"))           // the file's defaults
        #expect(try modelgen(["--check"], in: dir).status == 0)
        #expect(try modelgen(["--check", "--access", "internal"], in: dir).status == 1)   // a CLI flag wins over the file
        try "model: Shop\nentities:\n  Item:\n    attributes: { title: string }\n"
            .write(to: dir.appendingPathComponent("Models/Shop.model.yaml"), atomically: true, encoding: .utf8)
        let stale = try modelgen(["--check"], in: dir)
        #expect(stale.status == 1)
        #expect(stale.stdout.contains("+    @Managed(slot: 0) public var title: String\n"))
    }

    @Test func unknownKeysAndMissingModelsAreErrorsAndLintReportsThem() throws {
        let dir = try project("models:\n  - path: Models/Nope.model.yaml\n    output: Generated\n    acess: public\n")
        let lint = try modelgen(["config", "lint"], in: dir)
        #expect(lint.status == 1)
        #expect(lint.stderr.contains("modelgen.yml:2:11: error: model file 'Models/Nope.model.yaml' does not exist"))
        #expect(lint.stderr.contains("modelgen.yml:4:5: error: unknown key 'acess'"))
        #expect(lint.stderr.contains("did you mean 'access'?"))
        #expect(try modelgen([], in: dir).status == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Generated").path))
        let good = try project("models:\n  - path: Models/Shop.model.yaml\n    output: Generated\n")
        let ok = try modelgen(["config", "lint"], in: good)
        #expect(ok.status == 0 && ok.stdout.contains("1 model, no problems"))
    }

    @Test func noProjectFileIsAUsageError() throws {
        let run = try modelgen([], in: try temporaryDirectory())
        #expect(run.status == 2)
        #expect(run.stderr.contains("no modelgen.yml here"))
    }
}

@Suite struct SharedOutputFolderTests {
    @Test func twoModelsInOneFolderKeepEachOthersFiles() throws {
        let dir = try temporaryDirectory()
        try "model: Shop\nentities:\n  Item:\n    attributes: { name: string }\n"
            .write(to: dir.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        try "model: Crm\nentities:\n  Customer:\n    attributes: { name: string }\n"
            .write(to: dir.appendingPathComponent("Crm.model.yaml"), atomically: true, encoding: .utf8)
        try "models:\n  - path: Shop.model.yaml\n    output: Generated\n  - path: Crm.model.yaml\n    output: Generated\n"
            .write(to: dir.appendingPathComponent("modelgen.yml"), atomically: true, encoding: .utf8)
        #expect(try modelgen([], in: dir).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("Generated").path).sorted()
        #expect(names == ["CrmModel.swift", "Customer.swift", "Item.swift", "ShopModel.swift"])
        #expect(try modelgen(["--check"], in: dir).status == 0)
    }

    /// Two models with an `Item` class: written one after the other, the second `Item.swift` would replace the first.
    func twoModelsWithTheSameClass() throws -> URL {
        let dir = try temporaryDirectory()
        try "model: Shop\nentities:\n  Item:\n    attributes: { name: string }\n"
            .write(to: dir.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        try "model: Crm\nentities:\n  Customer:\n    attributes: { name: string }\n  Thing:\n    class: Item\n    attributes: { title: string }\n"
            .write(to: dir.appendingPathComponent("Crm.model.yaml"), atomically: true, encoding: .utf8)
        return dir
    }

    @Test func twoModelsGeneratingTheSameFileAreRefusedBeforeAnythingIsWritten() throws {
        let dir = try twoModelsWithTheSameClass()
        let run = try modelgen(["generate", "Shop.model.yaml", "Crm.model.yaml", "--output", "Generated"], in: dir)
        #expect(run.status == 1)
        #expect(run.stderr.contains("Crm.model.yaml:6:12: error: 'Generated/Item.swift' is generated from two models"), "\(run.stderr)")
        #expect(run.stderr.contains("Shop.model.yaml:3:3: note: the other model generates it from here"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Generated").path))
        // Names that differ only in case are one file on macOS.
        try "model: Crm\nentities:\n  ITEM:\n    attributes: { title: string }\n"
            .write(to: dir.appendingPathComponent("Crm.model.yaml"), atomically: true, encoding: .utf8)
        let caseOnly = try modelgen(["generate", "Shop.model.yaml", "Crm.model.yaml", "--output", "Generated"], in: dir)
        #expect(caseOnly.status == 1)
        #expect(caseOnly.stderr.contains("Crm.model.yaml:3:3: error: 'Generated/ITEM.swift' is generated from two models"), "\(caseOnly.stderr)")
        #expect(caseOnly.stderr.contains("(as 'Item.swift' there, one file on a case-insensitive file system)"), "\(caseOnly.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Generated").path))
        // One model file given twice (a shell glob and a name): said as such, not as two models.
        let twice = try modelgen(["generate", "Shop.model.yaml", "./Shop.model.yaml", "--output", "Generated"], in: dir)
        #expect(twice.status == 1)
        #expect(twice.stderr.contains("./Shop.model.yaml:3:3: error: 'Generated/Item.swift' would be written twice from the same model file"), "\(twice.stderr)")
        #expect(!twice.stderr.contains("two models"), "\(twice.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Generated").path))
    }

    @Test func projectEntriesSharingAFolderAndAFileAreRefusedAndTheOthersStillRun() throws {
        let dir = try twoModelsWithTheSameClass()
        try "model: Notes\nentities:\n  Note:\n    attributes: { text: string }\n"
            .write(to: dir.appendingPathComponent("Notes.model.yaml"), atomically: true, encoding: .utf8)
        try """
            models:
              - path: Shop.model.yaml
                output: Generated
              - path: Crm.model.yaml
                output: ./Generated/
              - path: Notes.model.yaml
                output: Notes
            """.write(to: dir.appendingPathComponent("modelgen.yml"), atomically: true, encoding: .utf8)
        let run = try modelgen([], in: dir)
        #expect(run.status == 1)
        #expect(run.stderr.contains("Crm.model.yaml:6:12: error: './Generated/Item.swift' is generated from two models"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Generated").path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("Notes/Note.swift").path))
        #expect(try modelgen(["--check"], in: dir).status == 1)
    }
}

/// On a terminal, a text diagnostic is followed by its source line and a caret under the column.
@Suite struct TerminalExcerptTests {
    /// Runs modelgen with a pseudo-terminal as its standard error (`script`, whose flags differ
    /// between util-linux and the BSDs).
    func onATerminal(_ arguments: [String], in directory: URL) throws -> String {
        #if os(Linux)
        let command = ([modelgenBinary().path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let scriptArguments = ["-qec", command, "/dev/null"]
        #else
        let scriptArguments = ["-q", "/dev/null", modelgenBinary().path] + arguments
        #endif
        let run = try runProcess(URL(fileURLWithPath: "/usr/bin/script"), scriptArguments, in: directory)
        return run.stdout.replacingOccurrences(of: "\r\n", with: "\n")
    }

    @Test func modelProjectAndCollisionDiagnosticsShowTheirLine() throws {
        let dir = try temporaryDirectory()
        try "model: Shop\nentities:\n  Item:\n    attributes: { name: strin }\n"
            .write(to: dir.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        let model = try onATerminal(["validate", "Shop.model.yaml"], in: dir)
        #expect(model.contains("Shop.model.yaml:4:25: error: unknown attribute type 'strin'"), "\(model)")
        #expect(model.contains("\n    attributes: { name: strin }\n                        ^\n"), "\(model)")

        try "models:\n  - path: Shop.model.yaml\n    outptu: Generated\n".write(to: dir.appendingPathComponent("modelgen.yml"), atomically: true, encoding: .utf8)
        let project = try onATerminal([], in: dir)
        #expect(project.contains("modelgen.yml:3:5: error: unknown key 'outptu'"), "\(project)")
        #expect(project.contains("\n    outptu: Generated\n    ^\n"), "\(project)")

        try "model: Shop\nentities:\n  Item:\n    attributes: { name: string }\n"
            .write(to: dir.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        try "model: Crm\nentities:\n  Customer:\n    class: Item\n"
            .write(to: dir.appendingPathComponent("Crm.model.yaml"), atomically: true, encoding: .utf8)
        let collision = try onATerminal(["generate", "Shop.model.yaml", "Crm.model.yaml", "--output", "Out"], in: dir)
        #expect(collision.contains("Crm.model.yaml:4:12: error: 'Out/Item.swift' is generated from two models"), "\(collision)")
        #expect(collision.contains("\n    class: Item\n           ^\nShop.model.yaml:3:3: note: the other model generates it from here\n  Item:\n  ^\n"), "\(collision)")
    }
}

@Suite struct ClearErrorTests {
    @Test func directoriesMissingTemplateFoldersAndBrokenTemplatesAreClearErrors() throws {
        let dir = try temporaryDirectory()
        try "model: S\nentities:\n  I:\n    attributes: { n: string }\n".write(to: dir.appendingPathComponent("S.model.yaml"), atomically: true, encoding: .utf8)
        let folder = try modelgen(["validate", dir.path])
        #expect(folder.status == 2 && folder.stderr.contains("it is a directory"))
        let missing = try modelgen(["generate", "S.model.yaml", "--output", "Out", "--templates", "nope"], in: dir)
        #expect(missing.status == 2 && missing.stderr.contains("templates directory 'nope' does not exist"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("t"), withIntermediateDirectories: true)
        try "// header\n{{#open}}\n".write(to: dir.appendingPathComponent("t/header.mustache"), atomically: true, encoding: .utf8)
        let broken = try modelgen(["generate", "S.model.yaml", "--output", "Out", "--templates", "t"], in: dir)
        #expect(broken.status == 2)
        #expect(broken.stderr.hasPrefix("t/header.mustache:"))
        #expect(broken.stderr.contains(": error: template does not parse"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Out").path))
    }

    /// A model file over 10 MB (MODELGEN_MAX_FILE_BYTES raises it) is refused by its size, before it is
    /// read: a clear error at the file, exit status 1, nothing written; a template file too (status 2).
    @Test func filesOverTheSizeLimitAreRefusedBeforeReading() throws {
        let dir = try temporaryDirectory()
        var text = "model: Big\nentities:\n  A:\n    attributes: { a: string }\n"
        let padding = String(repeating: "# padding, to make the file larger than the limit\n", count: 11 * 1024 * 1024 / 50)
        text += padding
        try text.write(to: dir.appendingPathComponent("Big.model.yaml"), atomically: true, encoding: .utf8)
        let start = Date()
        let result = try modelgen(["generate", "Big.model.yaml", "--output", "Out"], in: dir)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Big.model.yaml:1:1: error: the file is 11.0 MB, over the 10.0 MB modelgen reads; set MODELGEN_MAX_FILE_BYTES"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Out").path))
        #expect(Date().timeIntervalSince(start) < 30, "refused without reading the file")
        // A template of --templates likewise (exit status 2, as for any bad template).
        try "model: S\nentities:\n  A:\n    attributes: { a: string }\n".write(to: dir.appendingPathComponent("S.model.yaml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("t"), withIntermediateDirectories: true)
        try ("{{! a large template }}\n" + padding).write(to: dir.appendingPathComponent("t/entity.mustache"), atomically: true, encoding: .utf8)
        let template = try modelgen(["generate", "S.model.yaml", "--output", "Out", "--templates", "t"], in: dir)
        #expect(template.status == 2, "\(template.stderr)")
        #expect(template.stderr.hasPrefix("t/entity.mustache:1:1: error: the file is 11.0 MB, over the 10.0 MB modelgen reads"), "\(template.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Out").path))
    }

    /// Partials that include each other (directly, or hidden behind changed delimiters) are refused at
    /// the tag that closes the cycle, quickly, instead of recursing until the stack overflows (exit 139).
    @Test func recursivePartialsAreRefusedAtTheirTag() throws {
        let dir = try temporaryDirectory()
        try "model: S\nentities:\n  I:\n    attributes: { n: string }\n".write(to: dir.appendingPathComponent("S.model.yaml"), atomically: true, encoding: .utf8)
        let templates = dir.appendingPathComponent("t")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try "// entity\n  {{> entity}}\n".write(to: templates.appendingPathComponent("entity.mustache"), atomically: true, encoding: .utf8)
        let start = Date()
        let direct = try modelgen(["generate", "S.model.yaml", "--output", "Out", "--templates", "t"], in: dir)
        #expect(direct.status == 2, "\(direct.stderr)")
        #expect(direct.stderr.hasPrefix("t/entity.mustache:2:3: error: partials include each other in a cycle (entity → entity)"), "\(direct.stderr)")
        try "{{=<% %>=}}\n<%> model-file %>\n".write(to: templates.appendingPathComponent("entity.mustache"), atomically: true, encoding: .utf8)
        try "{{> header}}\n{{#isSingleFile}}{{> entity}}{{/isSingleFile}}\n".write(to: templates.appendingPathComponent("model-file.mustache"), atomically: true, encoding: .utf8)
        let hidden = try modelgen(["generate", "S.model.yaml", "--output", "Out", "--templates", "t"], in: dir)
        #expect(hidden.status == 2 && hidden.stderr.contains("(entity → model-file → entity)"), "\(hidden.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Out").path))
        #expect(Date().timeIntervalSince(start) < 30, "refused quickly (two process runs)")
    }
}

@Suite struct GraphCommandTests {
    @Test func graphWritesMermaidOrDotThatGraphvizRenders() throws {
        let dir = try temporaryDirectory()
        try "model: S\nentities:\n  Shelf:\n    relationships:\n      books: { destination: Book, toMany: true, inverse: shelf }\n  Book:\n    attributes: { title: string }\n    relationships:\n      shelf: { destination: Shelf, inverse: books }\n"
            .write(to: dir.appendingPathComponent("S.model.yaml"), atomically: true, encoding: .utf8)
        let mermaid = try modelgen(["graph", "S.model.yaml"], in: dir)
        #expect(mermaid.status == 0)
        #expect(mermaid.stdout.contains("Shelf \"0..1\" -- \"0..*\" Book : books / shelf"))
        let dot = try modelgen(["graph", "S.model.yaml", "--format", "dot", "--output", "S.dot"], in: dir)
        #expect(dot.status == 0)
        // make deps installs Graphviz; the dot text must be something it renders.
        let graphviz = ["/usr/bin/dot", "/usr/local/bin/dot", "/opt/homebrew/bin/dot"].first { FileManager.default.isExecutableFile(atPath: $0) }
        if let graphviz {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: graphviz)
            process.arguments = ["-Tsvg", dir.appendingPathComponent("S.dot").path, "-o", dir.appendingPathComponent("S.svg").path]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(try String(contentsOf: dir.appendingPathComponent("S.svg"), encoding: .utf8).contains("Shelf"))
        } else if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("Graphviz (dot) is missing in CI; make deps installs it")
        }
        let bad = try modelgen(["graph", "nope.model.yaml"], in: dir)
        #expect(bad.status == 2)
    }
}
