import Foundation
import TestScratch
import Testing

/// A finished run of modelgen with what it cost: its own peak resident memory (`VmHWM`, which
/// modelgen writes at exit when `MODELGEN_PEAK_MEMORY_FILE` names a file: `wait4`'s `ru_maxrss` would
/// include the test runner's own peak, inherited through `vfork`) and its processor time (user and
/// system, from `wait4`: the work it did, whatever else the machine runs meanwhile; the test runner
/// runs many processes at once, and waiting for a processor is not the input's cost).
struct MeasuredRun {
    var status: Int32
    var stderr: String
    var seconds: Double
    /// Nil where the system has no `/proc/self/status` (macOS).
    var peakMegabytes: Double?
}

/// Runs `modelgen` with `arguments` in `directory` (through `sh -c 'cd … && exec …'`), its output in
/// files (no pipe to fill), and measures it.
func measuredModelgen(_ arguments: [String], in directory: URL) throws -> MeasuredRun {
    func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let errors = directory.appendingPathComponent("stderr.txt")
    let peak = directory.appendingPathComponent("peak.txt")
    let command = "cd \(quoted(directory.path)) && MODELGEN_PEAK_MEMORY_FILE=\(quoted(peak.path)) exec \(quoted(modelgenBinary().path)) "
        + arguments.map(quoted).joined(separator: " ") + " >/dev/null 2>\(quoted(errors.path))"
    let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (text: String) in strdup(text) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    let seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime)
    let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)   // a signal as the shell reports it
    let kibibytes = (try? String(contentsOf: peak, encoding: .utf8)).flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    return MeasuredRun(status: exit, stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "",
                       seconds: seconds, peakMegabytes: kibibytes.map { $0 / 1024 })
}

/// One hostile input of issue 22's list: the files it writes, the command, and the diagnostic that refuses it.
struct HostileInput: CustomTestStringConvertible, Sendable {
    var name: String
    var files: [String: String]
    var arguments: [String]
    var status: Int32 = 1
    /// A part of the first error line, which must name the file with a line and column.
    var message: String
    var testDescription: String { name }

    static func predicateModel(_ predicate: String) -> String {
        "model: M\nentities:\n  A:\n    attributes: { n: int64 }\nfetchRequests:\n  q:\n    entity: A\n    predicate: '\(predicate)'\n"
    }

    static let all: [HostileInput] = {
        var laughs = "model: M\nentities:\n  A:\n    attributes: { n: string }\n    userInfo:\n      l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for level in 1...9 { laughs += "      l\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ") + "]\n" }
        var aliasBomb = "model: Bomb\nentities:\n  E0:\n    attributes: &attrs\n"
        for i in 0..<1000 { aliasBomb += "      a\(i): string\n" }
        for i in 1..<1000 { aliasBomb += "  E\(i): { attributes: *attrs }\n" }
        var xmlLaughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE model [\n<!ENTITY lol0 \"lol\">\n"
        for level in 1...9 { xmlLaughs += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n" }
        xmlLaughs += "]>\n<model><entity name=\"A\" representedClassName=\"&lol9;\"/></model>\n"
        let external = "<?xml version=\"1.0\"?>\n<!DOCTYPE model [\n<!ENTITY secret SYSTEM \"file:///etc/passwd\">\n]>\n<model><entity name=\"A\" representedClassName=\"&secret;\"/></model>\n"
        let small = "model: S\nentities:\n  I:\n    attributes: { n: string }\n"
        return [
            HostileInput(name: "a model over the 10 MB limit",
                         files: ["M.model.yaml": small + String(repeating: "# padding past the limit, which is checked before reading\n", count: 200_000)],
                         arguments: ["validate", "M.model.yaml"], message: "M.model.yaml:1:1: error: the file is 11.1 MB, over the 10.0 MB modelgen reads"),
            HostileInput(name: "YAML nested 20,000 levels",
                         files: ["M.model.yaml": "model: M\nentities:\n  A:\n    userInfo: { x: " + String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000) + " }\n"],
                         arguments: ["validate", "M.model.yaml"], message: "M.model.yaml:4:"),
            HostileInput(name: "YAML billion laughs (aliases ten deep)", files: ["M.model.yaml": laughs],
                         arguments: ["validate", "M.model.yaml"], message: "M.model.yaml:"),
            HostileInput(name: "YAML aliases expanding to a million attributes", files: ["M.model.yaml": aliasBomb],
                         arguments: ["validate", "M.model.yaml"], message: "aliases expand to too many nodes"),
            HostileInput(name: "YAML complex keys nested 5,000 deep", files: ["M.model.yaml": "model: M\n" + String(repeating: "? ", count: 5000) + "x\n"],
                         arguments: ["validate", "M.model.yaml"], message: "M.model.yaml:2:3: error: a mapping key here is itself a mapping or a list"),
            HostileInput(name: "a predicate in 100,000 parentheses",
                         files: ["M.model.yaml": predicateModel(String(repeating: "(", count: 100_000) + "n == 1" + String(repeating: ")", count: 100_000))],
                         arguments: ["validate", "M.model.yaml"], message: "M.model.yaml:8:"),
            HostileInput(name: "a predicate of 100,000 NOTs",
                         files: ["M.model.yaml": predicateModel(String(repeating: "NOT ", count: 100_000) + "n == 1")],
                         arguments: ["validate", "M.model.yaml"], message: "M.model.yaml:8:"),
            HostileInput(name: "Xcode XML with entity expansion", files: ["M.xcdatamodel/contents": xmlLaughs],
                         arguments: ["import", "M.xcdatamodel", "--output", "M.model.yaml"], message: "entities expand too far"),
            HostileInput(name: "Xcode XML with an external entity", files: ["M.xcdatamodel/contents": external],
                         arguments: ["import", "M.xcdatamodel", "--output", "M.model.yaml"], message: "never reads external entities"),
            HostileInput(name: "a template including itself", files: ["S.model.yaml": small, "t/entity.mustache": "// entity\n  {{> entity}}\n"],
                         arguments: ["generate", "S.model.yaml", "--output", "Out", "--templates", "t"], status: 2,
                         message: "t/entity.mustache:2:3: error: partials include each other in a cycle"),
            HostileInput(name: "a template including itself behind a line break in the tag", files: ["S.model.yaml": small, "t/entity.mustache": "// entity\n{{>\n entity}}\n"],
                         arguments: ["generate", "S.model.yaml", "--output", "Out", "--templates", "t"], status: 2,
                         message: "t/entity.mustache:2:1: error: partials include each other in a cycle"),
            HostileInput(name: "a template of 100,000 nested sections",
                         files: ["S.model.yaml": small, "t/entity.mustache": "// x\n" + String(repeating: "{{#name}}", count: 100_000) + String(repeating: "{{/name}}", count: 100_000)],
                         arguments: ["generate", "S.model.yaml", "--output", "Out", "--templates", "t"], status: 2,
                         message: "t/entity.mustache:2:289: error: sections nest more than 32 deep"),
            HostileInput(name: "a template including a partial the model names", files: ["S.model.yaml": small, "t/entity.mustache": "// {{name}}\n  {{>*name}}\n"],
                         arguments: ["generate", "S.model.yaml", "--output", "Out", "--templates", "t"], status: 2,
                         message: "t/entity.mustache:2:3: error: a partial named by the context"),
        ]
    }()
}

/// Issue 22's bounded hostile input, each through the command a user would run: refused with exit
/// status 1 (2 for a bad template) and a positioned error, within the stated bounds of **5 seconds (of
/// processor time) and 100 MB peak resident memory** (a debug build on this machine needs 0.02–0.1 s and 25–35 MB), never
/// a stack overflow, a hang or an allocation that grows with the expansion; and nothing is written.
@Suite struct HostileInputTests {
    static let secondsBound = 5.0
    static let megabytesBound = 100.0

    @Test(arguments: HostileInput.all) func hostileInputIsRefusedQuicklyInBoundedMemory(_ input: HostileInput) throws {
        let directory = try temporaryDirectory()
        for (path, text) in input.files {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let before = Set(try FileManager.default.subpathsOfDirectory(atPath: directory.path))
        let run = try measuredModelgen(input.arguments, in: directory)
        #expect(run.status == input.status, "\(run.stderr)")
        let firstError = run.stderr.split(separator: "\n").first { $0.contains(": error: ") }.map(String.init) ?? ""
        #expect(firstError.contains(input.message), "\(run.stderr.prefix(600))")
        #expect(firstError.range(of: #"^[^:]+:\d+:\d+: error: "#, options: .regularExpression) != nil, "positioned: \(firstError.prefix(300))")
        #expect(run.seconds < Self.secondsBound, "\(run.seconds) s")
        #if os(Linux)
        #expect((run.peakMegabytes ?? .infinity) < Self.megabytesBound, "\(String(describing: run.peakMegabytes)) MB")
        #endif
        let after = Set(try FileManager.default.subpathsOfDirectory(atPath: directory.path)).subtracting(["stderr.txt", "peak.txt"])
        #expect(after == before, "nothing written: \(after.subtracting(before))")
    }
}
