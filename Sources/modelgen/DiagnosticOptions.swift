import ArgumentParser
import Foundation
import ModelgenCore

extension DiagnosticFormat: ExpressibleByArgument {}

/// The model files and diagnostic options every model-checking command takes.
struct ModelInputOptions: ParsableArguments {
    @Argument(help: "Model files (*.model.yaml or *.model.yml), or version folders (NAME.modelversions: v1.model.yaml, v2.model.yaml, …).")
    var files: [String]

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    @Option(help: "How to print diagnostics: text, json or github.")
    var diagnostics: DiagnosticFormat = .text

    @Flag(help: "Print the warnings of a version folder's released versions too (by default one note counts them).")
    var releasedVersionWarnings = false

    @Option(help: "A version folder's oldest version a store may still be at: earlier versions are neither checked nor generated, and stores of them are refused.")
    var oldestVersion: Int?

    /// A checker with these options.
    var checker: ModelFileChecker {
        ModelFileChecker(format: diagnostics, strict: strict, releasedVersionWarnings: releasedVersionWarnings, oldestVersion: oldestVersion)
    }

    /// Checks every file, printing diagnostics; the valid models' checks, or an `ExitCode` (1 model errors, 2 I/O).
    func checkAll() throws -> [ModelCheck] {
        try Self.checkAll(files, checker: checker)
    }

    /// Checks files, printing diagnostics; the valid models' checks, or an `ExitCode` (1 model errors, 2 I/O).
    static func checkAll(_ files: [String], format: DiagnosticFormat, strict: Bool) throws -> [ModelCheck] {
        try checkAll(files, checker: ModelFileChecker(format: format, strict: strict))
    }

    private static func checkAll(_ files: [String], checker: ModelFileChecker) throws -> [ModelCheck] {
        var checker = checker
        // A version folder stands for its current version (once the folder and its path check out).
        let checks = files.compactMap { file in
            ModelVersionFolder.isVersionFolder(file) ? checker.checkVersionFolder(path: file)?.checks.last : checker.check(path: file)
        }
        if checker.exitStatus != 0 { throw ExitCode(checker.exitStatus) }
        return checks
    }
}

/// Reads model files and prints their diagnostics: shared by the commands that check models.
struct ModelFileChecker {
    var format: DiagnosticFormat
    var strict: Bool

    /// The worst outcome of a run: 0 fine, 1 model errors, 2 I/O errors.
    private(set) var exitStatus: Int32 = 0
    private var sources: [String: [Substring]] = [:]

    init(format: DiagnosticFormat, strict: Bool, releasedVersionWarnings: Bool = false, oldestVersion: Int? = nil) {
        self.format = format
        self.strict = strict
        self.releasedVersionWarnings = releasedVersionWarnings
        self.oldestVersion = oldestVersion
    }

    /// Whether the warnings of a version folder's released versions are printed
    /// (`--released-version-warnings`); without it they are counted and named in one note.
    var releasedVersionWarnings = false
    /// The warnings of released versions left unprinted, by version number.
    private(set) var hiddenReleasedWarnings: [(version: Int, count: Int)] = []

    /// Checks one file, printing its diagnostics; the parsed model when it has no errors. The warnings
    /// of a released version (`released`: its number in a version folder) are left out unless asked for:
    /// a released version cannot change, so they are noise (`--strict` still fails on them).
    mutating func check(path: String, released: Int? = nil) -> ModelCheck? {
        guard let source = read(path: path) else { return nil }
        let result = ModelCheck.run(data: source.contents, path: path, strict: strict)
        var diagnostics = result.diagnostics
        if let released, !releasedVersionWarnings, !strict {
            diagnostics = diagnostics.filter { $0.severity == .error }
            let hidden = result.diagnostics.count(where: { $0.severity == .warning })
            if hidden > 0 { hiddenReleasedWarnings.append((released, hidden)) }
        }
        emit(diagnostics, of: source)
        if result.hasErrors { exitStatus = max(exitStatus, 1) }
        // The process ends soon: keep the trees instead of freeing them one node at a time.
        ProcessExit.keep(result)
        return result.hasErrors ? nil : result
    }

    /// Reads one model file (refusing directories and files over the size limit, with a message);
    /// nil, with the exit status raised, when it cannot.
    mutating func read(path: String) -> ModelSource? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            printLine("error: cannot read '\(path)': it is a directory; name the model files (*.model.yaml)")
            exitStatus = max(exitStatus, 2)
            return nil
        }
        if let tooLarge = SourceText.sizeProblem(ofFileAt: path) {
            write(DiagnosticRenderer(format: format).render(tooLarge))
            exitStatus = max(exitStatus, 1)
            return nil
        }
        do {
            return ModelSource(path: path, contents: try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            printLine("error: cannot read '\(path)': \(Self.reason(error))")
            exitStatus = max(exitStatus, 2)
            return nil
        }
    }

    /// Prints one file's diagnostics in the chosen format (text with the source line under each).
    func emit(_ diagnostics: [Diagnostic], of source: ModelSource) {
        let lines = SourceExcerpt.shown(for: format) ? SourceExcerpt.lines(String(decoding: source.contents, as: UTF8.self)) : []
        let renderer = DiagnosticRenderer(format: format, sourceLine: { file, line in
            file == source.path ? SourceExcerpt.line(line, in: lines) : nil
        })
        for diagnostic in format == .json ? diagnostics : RepeatedWarnings.collapse(diagnostics) {
            write(renderer.render(diagnostic))
        }
    }

    /// Checks a version folder (`NAME.modelversions`): its layout, every version, then the path between
    /// them, printing every diagnostic; the folder with each version's check when nothing is an error
    /// (`--strict`: nor a warning), else nil with the exit status raised.
    mutating func checkVersionFolder(path: String) -> (folder: ModelVersionFolder, checks: [ModelCheck])? {
        guard let (folder, checks) = checkVersions(path: path, throughCurrent: true) else { return nil }
        let path = ModelVersionFolder.pathDiagnostics(checks.compactMap(\.model), firstNumber: folder.kept(from: oldestVersion).first?.number ?? 1)
        emitUnlocated(path)
        guard !path.contains(where: { $0.severity == .error || strict }) else {
            exitStatus = max(exitStatus, 1)
            return nil
        }
        return (folder, checks)
    }

    /// Checks a version folder's layout and its earlier versions, printing their diagnostics: the
    /// current version's path with the earlier versions validated, for `generate` (whose pipeline
    /// checks the current version and the path from them); nil with the exit status raised on errors.
    mutating func checkEarlierVersions(path: String) -> (current: String, earlier: EarlierVersions)? {
        guard let (folder, checks) = checkVersions(path: path, throughCurrent: false), let current = folder.current else { return nil }
        let kept = folder.kept(from: oldestVersion)
        return (current.path, EarlierVersions(firstNumber: kept.first?.number ?? current.number, models: checks.compactMap(\.validated),
                                              retiredVersionHashes: retiredVersionHashes(folder)))
    }

    /// The oldest version a store may still be at (`--oldest-version`, `oldestVersion`): versions before
    /// it are neither checked nor generated.
    var oldestVersion: Int?

    /// The version hashes of the versions before the oldest kept, from their files parsed but not
    /// checked, one per version so that a hash's position is its version's number less one (a file that
    /// does not parse has an empty one: its stores open as of no version).
    private func retiredVersionHashes(_ folder: ModelVersionFolder) -> [String] {
        folder.retired(before: oldestVersion).map { version in
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: version.path)) else { return "" }
            return ModelParser.parse(data: data, path: version.path).model?.versionHash ?? ""
        }
    }

    /// The folder's layout and its versions' checks (the current one's too when `throughCurrent`),
    /// printed; nil when something is an error.
    private mutating func checkVersions(path: String, throughCurrent: Bool) -> (ModelVersionFolder, [ModelCheck])? {
        let folder: ModelVersionFolder
        do {
            folder = try ModelVersionFolder(path: path)
        } catch {
            printLine("error: cannot read the version folder '\(path)': \(Self.reason(error))")
            exitStatus = max(exitStatus, 2)
            return nil
        }
        emitUnlocated(folder.problems)
        if let oldest = oldestVersion, let current = folder.current, oldest > current.number || oldest < 1 {
            printLine("error: the oldest version to keep, \(oldest), is not one of \(path)'s versions (1 to \(current.number))")
            exitStatus = max(exitStatus, 1)
            return nil
        }
        let kept = folder.kept(from: oldestVersion)
        let versions = throughCurrent ? kept : Array(kept.dropLast())
        let current = folder.current?.number
        let checks = versions.compactMap { check(path: $0.path, released: $0.number == current ? nil : $0.number) }
        noteHiddenReleasedWarnings(in: path)
        guard folder.problems.isEmpty, checks.count == versions.count else {
            exitStatus = max(exitStatus, 1)
            return nil
        }
        return (folder, checks)
    }

    /// One note for the warnings of released versions left unprinted, when there are any.
    private mutating func noteHiddenReleasedWarnings(in folder: String) {
        guard !hiddenReleasedWarnings.isEmpty else { return }
        let total = hiddenReleasedWarnings.reduce(0) { $0 + $1.count }
        let versions = hiddenReleasedWarnings.map(\.version)
        let range = versions.count == 1 ? "v\(versions[0])" : "v\(versions.min()!)–v\(versions.max()!)"
        hiddenReleasedWarnings = []
        guard format == .text else { return }
        printLine("\(folder): note: \(total) warning\(total == 1 ? "" : "s") of released versions (\(range)) not shown: released versions cannot change; --released-version-warnings shows them")
    }

    /// Prints diagnostics without the source line under them.
    func emitUnlocated(_ diagnostics: [Diagnostic]) {
        let renderer = DiagnosticRenderer(format: format, sourceLine: { _, _ in nil })
        for diagnostic in diagnostics { write(renderer.render(diagnostic)) }
    }

    /// Text diagnostics go to stderr (as compilers do); json and github to stdout, for tools to read.
    private func write(_ text: String) {
        let handle = format == .text ? FileHandle.standardError : FileHandle.standardOutput
        handle.write(Data(text.utf8))
    }

    private func printLine(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSCocoaErrorDomain && nsError.code == NSFileReadNoSuchFileError {
            return "no such file"
        }
        return nsError.localizedDescription
    }
}

/// Prints what the pipeline (`Modelgen.generate`) reports, as `ModelFileChecker` does.
struct PrintingCollector: DiagnosticCollector {
    var checker: ModelFileChecker
    /// How many diagnostics were printed (warnings and notes too), shared by copies.
    let printed = PrintedCount()

    func emit(_ diagnostics: [Diagnostic], of source: ModelSource) {
        printed.value += diagnostics.count
        checker.emit(diagnostics, of: source)
    }
}

/// A count that copies of a value share.
final class PrintedCount {
    var value = 0
}

