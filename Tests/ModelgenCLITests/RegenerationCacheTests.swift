import Foundation
import TestScratch
import Testing

/// `modelgen generate` skips a run whose inputs and output files are those of the last run
/// (`RegenerationCache`), and runs in full after any change a user or a tool can make.
@Suite struct RegenerationCacheTests {
    static let model = """
        model: Shelf
        entities:
          Book:
            attributes: { title: string, pages: int32 }
          Shelf:
            attributes: { label: string }
        """

    /// Runs `modelgen generate` with the cache in `cache` and its trace on; returns the run and the first trace line.
    func generate(_ arguments: [String], in directory: URL, cache: URL, extra: [String: String] = [:]) throws -> (run: Run, trace: String) {
        let (run, traces) = try modelgenTraced(["generate"] + arguments, in: directory, cache: cache, extra: extra)
        return (run, traces.first ?? "")
    }

    /// Runs modelgen with the cache in `cache` and its trace on; returns the run and every trace line.
    func modelgenTraced(_ arguments: [String], in directory: URL, cache: URL, extra: [String: String] = [:]) throws -> (run: Run, traces: [String]) {
        var environment = ProcessInfo.processInfo.environment
        environment["MODELGEN_CACHE_DIR"] = cache.path
        environment["MODELGEN_TRACE_CACHE"] = "1"
        for (key, value) in extra { environment[key] = value }
        let run = try runProcess(modelgenBinary(), arguments, in: directory, environment: environment)
        return (run, run.stderr.split(separator: "\n").filter { $0.hasPrefix("modelgen cache: ") }.map(String.init))
    }

    /// `modelgen` with modelgen.yml: skipped when every entry is up to date; one changed entry runs them all.
    @Test func aProjectRunIsSkippedWhenEveryEntryIsUpToDate() throws {
        let directory = try temporaryDirectory(), cache = directory.appendingPathComponent("cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.model.write(to: directory.appendingPathComponent("Shelf.model.yaml"), atomically: true, encoding: .utf8)
        try "model: Desk\nentities:\n  Drawer:\n    attributes: { label: string }\n"
            .write(to: directory.appendingPathComponent("Desk.model.yaml"), atomically: true, encoding: .utf8)
        try "models:\n  - { path: Shelf.model.yaml, output: Gen/Shelf }\n  - { path: Desk.model.yaml, output: Gen/Desk }\n"
            .write(to: directory.appendingPathComponent("modelgen.yml"), atomically: true, encoding: .utf8)
        let first = try modelgenTraced([], in: directory, cache: cache)
        #expect(first.run.status == 0, "\(first.run.stderr)")
        #expect(first.traces.first == "modelgen cache: running (no entry)")
        let second = try modelgenTraced([], in: directory, cache: cache)
        #expect(second.traces == Array(repeating: "modelgen cache: up to date, nothing to do", count: 2))
        // One entry's generated file edited: every entry runs, and the file is restored.
        let drawer = directory.appendingPathComponent("Gen/Desk/Drawer.swift")
        let generated = try String(contentsOf: drawer, encoding: .utf8)
        try (generated + "// edited\n").write(to: drawer, atomically: true, encoding: .utf8)
        let third = try modelgenTraced([], in: directory, cache: cache)
        #expect(third.traces.last == "modelgen cache: running ('Drawer.swift' changed)")
        #expect(try String(contentsOf: drawer, encoding: .utf8) == generated)
        #expect(try modelgenTraced([], in: directory, cache: cache).traces.allSatisfy { $0.contains("up to date") })
    }

    @Test func anUnchangedRunIsSkippedAndEveryChangeRunsAgain() throws {
        let directory = try temporaryDirectory(), cache = directory.appendingPathComponent("cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        let modelURL = directory.appendingPathComponent("Shelf.model.yaml")
        try Self.model.write(to: modelURL, atomically: true, encoding: .utf8)
        let arguments = ["Shelf.model.yaml", "--output", "Generated"]
        let book = directory.appendingPathComponent("Generated/Book.swift")

        #expect(try generate(arguments, in: directory, cache: cache).trace == "modelgen cache: running (no entry)")
        let generated = try String(contentsOf: book, encoding: .utf8)
        #expect(try generate(arguments, in: directory, cache: cache).trace == "modelgen cache: up to date, nothing to do")

        // A byte changed in place, at once (same size, same inode, maybe the same clock tick): compared by content.
        let handle = try FileHandle(forUpdating: book)
        try handle.write(contentsOf: Data("X".utf8))
        try handle.close()
        #expect(try generate(arguments, in: directory, cache: cache).trace == "modelgen cache: running ('Book.swift' changed)")
        #expect(try String(contentsOf: book, encoding: .utf8) == generated)

        // A generated file deleted, or a stale generated file added: the directory's .swift files changed.
        try FileManager.default.removeItem(at: book)
        #expect(try generate(arguments, in: directory, cache: cache).trace.contains("files changed"))
        #expect(try String(contentsOf: book, encoding: .utf8) == generated)
        try generated.write(to: directory.appendingPathComponent("Generated/Old.swift"), atomically: true, encoding: .utf8)
        #expect(try generate(arguments, in: directory, cache: cache).trace.contains("files changed"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("Generated/Old.swift").path))

        // The model changed.
        try Self.model.replacingOccurrences(of: "pages: int32", with: "pages: int32, isbn: string").write(to: modelURL, atomically: true, encoding: .utf8)
        #expect(try generate(arguments, in: directory, cache: cache).trace == "modelgen cache: running (the inputs changed)")
        #expect(try String(contentsOf: book, encoding: .utf8).contains("isbn"))
        #expect(try generate(arguments, in: directory, cache: cache).trace == "modelgen cache: up to date, nothing to do")

        // Other options are other inputs; so is a template of --templates, added or changed.
        #expect(try generate(arguments + ["--access", "public"], in: directory, cache: cache).trace.contains("inputs changed"))
        #expect(try String(contentsOf: book, encoding: .utf8).contains("public final class Book"))
        let templates = directory.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        let withTemplates = arguments + ["--templates", "templates"]
        _ = try generate(withTemplates, in: directory, cache: cache)
        #expect(try generate(withTemplates, in: directory, cache: cache).trace.contains("up to date"))
        try "// my header\n".write(to: templates.appendingPathComponent("header.mustache"), atomically: true, encoding: .utf8)
        #expect(try generate(withTemplates, in: directory, cache: cache).trace.contains("inputs changed"))
        #expect(try String(contentsOf: book, encoding: .utf8).hasPrefix("// my header"))

        // --no-cache runs in full and consults nothing.
        let uncached = try generate(withTemplates + ["--no-cache"], in: directory, cache: cache)
        #expect(uncached.run.status == 0 && uncached.trace.isEmpty)
    }

    @Test func warningsArePrintedOnEveryRun() throws {
        let directory = try temporaryDirectory(), cache = directory.appendingPathComponent("cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        try "model: W\nentities:\n  Item:\n    attributes: { weight: double? }\n"
            .write(to: directory.appendingPathComponent("W.model.yaml"), atomically: true, encoding: .utf8)
        for _ in 0..<2 {
            let result = try generate(["W.model.yaml", "--output", "Generated"], in: directory, cache: cache)
            #expect(result.run.status == 0)
            #expect(result.run.stderr.contains("warning: optional numeric attribute 'Item.weight'"))
            #expect(result.trace == "modelgen cache: running (no entry)")
        }
    }

    @Test func aCacheThatCannotBeWrittenIsNoError() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.model.write(to: directory.appendingPathComponent("Shelf.model.yaml"), atomically: true, encoding: .utf8)
        // A file where the cache directory would be: nothing can be created under it.
        let blocked = directory.appendingPathComponent("not-a-directory")
        try "x".write(to: blocked, atomically: true, encoding: .utf8)
        for _ in 0..<2 {
            let result = try generate(["Shelf.model.yaml", "--output", "Generated"], in: directory, cache: blocked.appendingPathComponent("cache"))
            #expect(result.run.status == 0, "\(result.run.stderr)")
            #expect(result.trace == "modelgen cache: running (no entry)")
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("Generated/Book.swift").path))
    }
}
