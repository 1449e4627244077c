import ArgumentParser
import Foundation
import ModelgenCore

/// `modelgen diff OLD NEW`: what changed between two versions of a model, and what each change means
/// for stores made with the old one and for code written against its generated classes.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "List the changes between two versions of a model and classify each (safe, lightweight, custom-stage, data-loss, api-break).",
        discussion: """
            OLD is a model file, a git revision of NEW's file (main, HEAD~1, v1.2), or REVISION:PATH. Each change is printed with its place in the new file (the old one for removals) and the old place beside it, and its classes:
              safe          nothing to do (a new fetch request, a changed default or delete rule)
              lightweight   stores migrate it when they open (a new attribute or entity, a renamingIdentifier rename, an index)
              custom-stage  stores refuse it until code moves the data (a type change, a new required value without a default, to-one becoming to-many)
              data-loss     saved data is dropped (a removed entity, attribute or relationship)
              api-break     code using the generated classes stops compiling (a renamed or removed property, a removed template)

            Exit status: 1 when a change is of a class --fail-on names (default data-loss) or a model has errors, 0 otherwise, 2 for usage or I/O errors.

            Examples:
              modelgen diff Library.v1.model.yaml Library.model.yaml
              modelgen diff main Models/Library.model.yaml --fail-on data-loss,api-break --format github
            """
    )

    @Argument(help: "The old model: a file, a git revision of NEW's file, or REVISION:PATH.")
    var old: String

    @Argument(help: "The new model file.")
    var new: String

    @Option(help: "How to print the changes: text, json or github.")
    var format: DiagnosticFormat = .text

    @Option(name: .customLong("fail-on"),
            help: "Comma-separated classes that make the command exit 1: data-loss, custom-stage, api-break, lightweight, any (every change) or none.")
    var failOn = "data-loss"

    func validate() throws {
        _ = try failingClasses()
    }

    func run() throws {
        let failing = try failingClasses()
        // The models' own diagnostics: as annotations beside the changes' on GitHub, on standard error otherwise.
        var checker = ModelFileChecker(format: format == .github ? .github : .text, strict: false)
        guard let newCheck = checker.check(path: new), let newModel = newCheck.model else { throw ExitCode(checker.exitStatus == 0 ? 1 : checker.exitStatus) }
        let oldSource = try readOld()
        let oldCheck = ModelCheck.run(data: oldSource.contents, path: oldSource.path)
        checker.emit(oldCheck.diagnostics, of: oldSource)
        guard !oldCheck.hasErrors, let oldModel = oldCheck.model else { throw ExitCode(1) }
        let changes = ModelDiff.changes(from: oldModel, to: newModel)
        FileHandle.standardOutput.write(Data(render(changes, failing: failing).utf8))
        let fails = changes.contains { change in
            failing.any || !change.impacts.isDisjoint(with: failing.classes)
        }
        if fails { throw ExitCode(1) }
    }

    /// The classes `--fail-on` names (`any`: every change; `none`: no class).
    func failingClasses() throws -> (classes: Set<ChangeImpact>, any: Bool) {
        var classes: Set<ChangeImpact> = [], any = false
        for word in failOn.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            switch word {
            case "any": any = true
            case "none": break
            default:
                guard let impact = ChangeImpact(rawValue: word) else {
                    throw ValidationError("--fail-on: '\(word)' is not a class (data-loss, custom-stage, api-break, lightweight, any, none)")
                }
                classes.insert(impact)
            }
        }
        return (classes, any)
    }

    /// The old model's text: a file, `REVISION:PATH`, or NEW's file at a git revision.
    func readOld() throws -> ModelSource {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: old, isDirectory: &isDirectory), !isDirectory.boolValue {
            do {
                return ModelSource(path: old, contents: try Data(contentsOf: URL(fileURLWithPath: old)))
            } catch {
                throw ioError("error: cannot read '\(old)': \(ModelFileChecker.reason(error))")
            }
        }
        let directory = (new as NSString).deletingLastPathComponent
        let spec = old.contains(":") ? old : "\(old):./\((new as NSString).lastPathComponent)"
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "show", spec]
        git.currentDirectoryURL = URL(fileURLWithPath: directory.isEmpty ? "." : directory)
        let output = Pipe(), errors = Pipe()
        git.standardOutput = output
        git.standardError = errors
        do { try git.run() } catch {
            throw ioError("error: '\(old)' is not a file, and git could not be run to read it as a revision")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        git.waitUntilExit()
        guard git.terminationStatus == 0 else {
            throw ioError("error: '\(old)' is not a file, nor a git revision of '\(new)': \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return ModelSource(path: old.contains(":") ? old : "\(old):\(new)", contents: data)
    }

    /// Prints an I/O problem on standard error; the error that exits with status 2.
    func ioError(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(2)
    }

    /// The changes in the chosen format, with a summary line (text) or as data (json, github annotations).
    func render(_ changes: [ModelChange], failing: (classes: Set<ChangeImpact>, any: Bool)) -> String {
        func place(_ location: SourceLocation?) -> String { location.map { "\($0.file):\($0.line):\($0.column)" } ?? "" }
        switch format {
        case .text:
            var text = ""
            for change in changes {
                let here = change.new ?? change.old
                let was = change.new != nil && change.old != nil ? " (was \(place(change.old)))" : ""
                text += "\(place(here)): \(change.classification): \(change.message)\(was)\n"
            }
            var counts: [String: Int] = [:]
            for change in changes {
                if change.impacts.isEmpty { counts["safe", default: 0] += 1 }
                for impact in change.impacts { counts[impact.rawValue, default: 0] += 1 }
            }
            let summary = (["safe"] + ChangeImpact.allCases.map(\.rawValue)).compactMap { name in counts[name].map { "\($0) \(name)" } }
            text += changes.isEmpty ? "no changes\n" : "\(changes.count) change\(changes.count == 1 ? "" : "s"): \(summary.joined(separator: ", "))\n"
            return text
        case .json:
            func location(_ value: SourceLocation?) -> Any {
                value.map { ["file": $0.file, "line": $0.line, "column": $0.column] as [String: Any] } ?? NSNull()
            }
            let objects = changes.map { change -> [String: Any] in
                ["message": change.message, "classes": change.impacts.sorted().map(\.rawValue),
                 "safe": change.impacts.isEmpty, "old": location(change.old), "new": location(change.new)]
            }
            let data = (try? JSONSerialization.data(withJSONObject: ["changes": objects], options: [.sortedKeys])) ?? Data("{}".utf8)
            return String(decoding: data, as: UTF8.self) + "\n"
        case .github:
            return changes.map { change in
                let fails = failing.any || !change.impacts.isDisjoint(with: failing.classes)
                let level = fails ? "error" : change.impacts.isEmpty ? "notice" : "warning"
                let here = change.new ?? change.anchor ?? change.old
                let position = here.map { "file=\($0.file),line=\($0.line),col=\($0.column)," } ?? ""
                let was = change.old.map { " (was \(place($0)))" } ?? ""
                let message = (change.message + was).replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\n", with: "%0A")
                return "::\(level) \(position)title=modelgen diff (\(change.classification))::\(message)\n"
            }.joined()
        }
    }
}
