import Foundation
import TestScratch
import Testing

/// `modelgen init`, run as a user would. Building and running what it writes (offline, beside a
/// dependency that pins Yams to modelgen's lowest version) is `scripts/test-consumer.sh`, in CI.
@Suite struct InitCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func anEmptyFolderBecomesAPackageWithTheModelTheSchemasAndThePlugin() throws {
        let folder = try temporaryDirectory().appendingPathComponent("Bookshelf")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = try modelgen(["init", "--modelgen-path", Self.root.path], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        for file in ["Package.swift", "Sources/Bookshelf/main.swift", "Sources/Bookshelf/Library.model.yaml", ".gitignore",
                     ".modelgen/model.schema.json", ".modelgen/modelgen.schema.json", ".modelgen/modelgen-config.schema.json"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path), "\(file) was not written")
        }
        let manifest = try String(contentsOf: folder.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(".package(path: \"\(Self.root.path)\")"))
        #expect(manifest.contains(".plugin(name: \"ModelgenPlugin\", package: \"\(Self.root.lastPathComponent)\")"))
        #expect(manifest.contains("name: \"Bookshelf\""))
        // The files are the repository's: the starter and the schemas, byte for byte.
        for (written, source) in [("Sources/Bookshelf/main.swift", "Templates/Starter/main.swift"),
                                  ("Sources/Bookshelf/Library.model.yaml", "Templates/Starter/Library.model.yaml"),
                                  (".modelgen/model.schema.json", "Schemas/model.schema.json")] {
            #expect(try Data(contentsOf: folder.appendingPathComponent(written)) == Data(contentsOf: Self.root.appendingPathComponent(source)),
                    "\(written) differs from \(source); run `make templates`")
        }
        // SwiftPM reads the manifest (no dependency is fetched by dump-package).
        let dump = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "package", "dump-package"], in: folder)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("\"ModelgenPlugin\""))
        // The model validates without a warning.
        let validate = try modelgen(["validate", "Sources/Bookshelf/Library.model.yaml", "--strict"], in: folder)
        #expect(validate.status == 0 && validate.stderr.isEmpty, "\(validate.stderr)")
    }

    @Test func nothingIsOverwrittenAndNothingHalfWritten() throws {
        let folder = try temporaryDirectory()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".modelgen"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: folder.appendingPathComponent(".modelgen/model.schema.json"))
        let run = try modelgen(["init", "--name", "Shop", "--modelgen-path", Self.root.path], in: folder)
        #expect(run.status == 1)
        #expect(run.stderr.contains("model.schema.json already exists; nothing was written"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path))
        #expect(try String(contentsOf: folder.appendingPathComponent(".modelgen/model.schema.json"), encoding: .utf8) == "mine")
    }

    @Test func anExistingPackageGetsTheModelInItsTargetAndTheLinesToAdd() throws {
        let folder = try temporaryDirectory()
        try Data("// swift-tools-version:6.1\n".utf8).write(to: folder.appendingPathComponent("Package.swift"))
        for target in ["App", "AppCore"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("Sources/\(target)"), withIntermediateDirectories: true)
        }
        let ambiguous = try modelgen(["init", "--modelgen-url", "https://example.com/modelgen.git"], in: folder)
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr.contains("several targets (App, AppCore): pass --target"), "\(ambiguous.stderr)")
        let run = try modelgen(["init", "--target", "AppCore", "--modelgen-url", "https://example.com/modelgen.git"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources/AppCore/Library.model.yaml").path))
        #expect(try String(contentsOf: folder.appendingPathComponent("Package.swift"), encoding: .utf8) == "// swift-tools-version:6.1\n")
        #expect(run.stdout.contains(".package(url: \"https://example.com/modelgen.git\", from: \"0.1.0\"),"), "\(run.stdout)")
        #expect(run.stdout.contains("plugins: [.plugin(name: \"ModelgenPlugin\", package: \"modelgen\")]"), "\(run.stdout)")
        let unknown = try modelgen(["init", "--target", "Nope", "--modelgen-url", "https://example.com/modelgen.git"], in: folder)
        #expect(unknown.status == 1 && unknown.stderr.contains("no target folder Sources/Nope"), "\(unknown.stderr)")
    }

    /// Committed code: modelgen.yml lists the model, the generated Swift is written at once, and
    /// `modelgen --check` (what CI runs) passes until the model changes.
    @Test func committedCodeIsWrittenListedAndChecked() throws {
        let folder = try temporaryDirectory().appendingPathComponent("Ledger")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = try modelgen(["init", "--generated", "committed", "--modelgen-path", Self.root.path], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources/Ledger/Generated/Book.swift").path))
        let manifest = try String(contentsOf: folder.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(!manifest.contains("ModelgenPlugin") && manifest.contains("exclude: [\"Library.model.yaml\"]"))
        #expect(try modelgen(["--check"], in: folder).status == 0)
        let model = folder.appendingPathComponent("Sources/Ledger/Library.model.yaml")
        try String(contentsOf: model, encoding: .utf8)
            .replacingOccurrences(of: "entities:\n", with: "entities:\n  Shelf:\n    attributes:\n      label: string\n")
            .write(to: model, atomically: true, encoding: .utf8)
        let stale = try modelgen(["--check"], in: folder)
        #expect(stale.status == 1, "\(stale.stdout)\(stale.stderr)")
    }

    @Test func aNameThatCannotNameATargetIsRefused() throws {
        let folder = try temporaryDirectory()
        let run = try modelgen(["init", "--name", "9 lives", "--modelgen-path", Self.root.path], in: folder)
        #expect(run.status == 1 && run.stderr.contains("cannot name a package"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
