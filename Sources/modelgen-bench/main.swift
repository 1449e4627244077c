// `make bench`: times `modelgen validate` and `modelgen generate` on synthetic models of
// 100 / 1,000 / 5,000 entities (15 attributes and 3 relationships each) beside a parse-only time of
// the same file, and the compile time of the code generated for 100 and 1,000 entities beside plain classes.
//
// usage: modelgen-bench PATH_TO_RELEASE_MODELGEN [--installed PATH_TO_STATIC_MODELGEN] [ENTITY_COUNTS...]
//        modelgen-bench --write-model [scaling|bench|varied] N   (prints one of the bench's models)
//
// The first binary is the one `swift build -c release` makes (what `swift run` and the build-tool
// plugin run: Swift runtime and Foundation as shared libraries); `--installed` names the one
// `make install` puts on PATH (`--static-swift-stdlib`), timed beside it for the whole-process figures.
import Foundation
import ModelgenCore

/// A valid synthetic model: entity i links `up` to i+1 (inverse `down`) and one-way `peers` to i+7.
func syntheticModel(entities n: Int) -> String {
    let types = ["string", "int16", "int32", "int64", "double", "float", "bool", "date", "decimal", "uuid", "uri", "binary", "string", "int64", "date"]
    var out = "# Synthetic benchmark model: \(n) entities.\nmodel: Bench\noptions:\n  codegen: class\nentities:\n"
    for i in 0..<n {
        out += "  Entity\(i):\n    attributes:\n"
        for (k, type) in types.enumerated() {
            switch type {
            case "int16", "int32", "int64": out += "      field\(k): { type: \(type), default: 0, min: 0, max: 1000 }\n"
            case "double", "float", "decimal": out += "      field\(k): { type: \(type), default: 0 }\n"
            case "bool": out += "      field\(k): { type: bool, default: false }\n"
            case "string": out += k == 0 ? "      field\(k): { type: string, min: 1, max: 200, regex: '^[a-z]+$' }\n" : "      field\(k): string\n"
            default: out += "      field\(k): \(type)?\n"
            }
        }
        out += "    relationships:\n"
        out += "      up: { destination: Entity\((i + 1) % n), inverse: down }\n"
        out += "      down: { destination: Entity\((i + n - 1) % n), toMany: true, inverse: up, deleteRule: cascade }\n"
        out += "      peers: { destination: Entity\((i + 7) % n), toMany: true, inverse: none }\n"
        out += "    unique: [[field0]]\n"
    }
    out += "fetchRequests:\n"
    for i in stride(from: 0, to: n, by: 10) {
        out += "  query\(i):\n    entity: Entity\(i)\n    predicate: 'field0 ==[c] $NAME AND field3 >= $MIN AND up.field1 > 2 AND ANY down.field12 BEGINSWITH \"a\"'\n    sort: [field7 desc, field0]\n"
    }
    return out
}

/// Hand-written plain classes of the synthetic model's shape (stored properties, object references).
func plainClasses(entities n: Int) -> String {
    let types = ["String", "Int16", "Int32", "Int64", "Double", "Float", "Bool", "Date?", "Decimal", "UUID?", "URL?", "Data?", "String", "Int64", "Date?"]
    let initial = ["\"\"", "0", "0", "0", "0", "0", "false", "nil", "0", "nil", "nil", "nil", "\"\"", "0", "nil"]
    var out = "import Foundation\n\n"
    for i in 0..<n {
        out += "final class Entity\(i) {\n"
        for (k, type) in types.enumerated() { out += "    var field\(k): \(type) = \(initial[k])\n" }
        out += "    weak var up: Entity\((i + 1) % n)?\n    var down: [Entity\((i + n - 1) % n)] = []\n    var peers: [Entity\((i + 7) % n)] = []\n}\n\n"
    }
    return out
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    return sorted[sorted.count / 2]
}

func time(runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return median(samples)
}

/// Runs a command with posix_spawn (Foundation's Process adds 20–30 ms here) and returns its exit status.
func spawnAndWait(_ argv: [String], discardingOutput: Bool = false) -> Int32 {
    var pid: pid_t = 0
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    if discardingOutput { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
    let cArguments = argv.map { strdup($0) } + [nil]
    defer { cArguments.forEach { free($0) } }
    guard posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ) == 0 else { return -1 }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return (status >> 8) & 0xFF
}

var arguments = Array(CommandLine.arguments.dropFirst())
// `modelgen-bench --write-model [scaling|bench|varied] N`: prints one of the bench's models and exits:
// the scaling section's of N entities (the default; `make tsan` runs modelgen's threads on it), the
// synthetic model of N entities, or the Blog example copied N times (run from the package root), so a
// figure of `make bench` can be reproduced with `perf` or a loop of one's own.
if arguments.first == "--write-model", arguments.count == 2 || arguments.count == 3, let n = Int(arguments.last!) {
    switch arguments.count == 2 ? "scaling" : arguments[1] {
    case "scaling": print(scalingModel(entities: n), terminator: "")
    case "bench": print(syntheticModel(entities: n), terminator: "")
    case "varied":
        guard let blog = try? String(contentsOfFile: "Examples/Blog/Blog.model.yaml", encoding: .utf8) else {
            FileHandle.standardError.write(Data("error: run from the package root (Examples/Blog/Blog.model.yaml)\n".utf8))
            exit(2)
        }
        print(variedModel(blog: blog, copies: n), terminator: "")
    default:
        FileHandle.standardError.write(Data("error: --write-model scaling|bench|varied N\n".utf8))
        exit(2)
    }
    exit(0)
}
let installedBinary: String? = arguments.firstIndex(of: "--installed").flatMap { option in
    guard option + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(option...option + 1) }
    return arguments[option + 1]
}
guard let binary = arguments.first else {
    FileHandle.standardError.write(Data("usage: modelgen-bench PATH_TO_MODELGEN [--installed PATH_TO_STATIC_MODELGEN] [ENTITY_COUNTS...]\n".utf8))
    exit(2)
}
let counts = arguments.count > 1 ? arguments.dropFirst().compactMap { Int($0) } : [100, 1_000, 5_000]
/// Times each of `bodies` in turn, `runs` rounds (so all see the same machine), and returns their medians.
func alternating(runs: Int, _ bodies: [() -> Void]) -> [Double] {
    var samples = Array(repeating: [Double](), count: bodies.count)
    for _ in 0..<runs {
        for (index, body) in bodies.enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            samples[index].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
    }
    return samples.map(median)
}

/// Times `a` and `b` alternately, `runs` times each, and returns their medians.
func alternating(runs: Int, _ a: () -> Void, _ b: () -> Void) -> (Double, Double) {
    withoutActuallyEscaping(a) { a in
        withoutActuallyEscaping(b) { b in
            let medians = alternating(runs: runs, [a, b])
            return (medians[0], medians[1])
        }
    }
}

/// The floor (when there is one), the release build and the installed binary (when given), timed in
/// one loop by turns: a shared machine's speed drifts by tens of percent within a minute, so ratios
/// are taken only between figures of the same loop. Returns the three medians (nil for those absent).
func alternatingWithFloor(runs: Int, floor: @escaping () -> Void, release: () -> Void,
                          installed: ((String) -> Void)?) -> (floor: Double?, release: Double, installed: Double?) {
    withoutActuallyEscaping(release) { release in
        var bodies: [() -> Void] = [release]
        if floorBinary != nil { bodies.insert(floor, at: 0) }
        if let installed, let installedBinary { bodies.append { installed(installedBinary) } }
        var medians = alternating(runs: runs, bodies)
        let floorMedian = floorBinary != nil ? medians.removeFirst() : nil
        return (floorMedian, medians[0], medians.count > 1 ? medians[1] : nil)
    }
}

/// The floor of the speed goals: libyaml's C API loading the same file (`../shared/tools/yaml_floor.c`,
/// built here with `cc -O2 … -lyaml`; `MODELGEN_YAML_FLOOR` names another source), as a whole process.
/// Nil, with a note, when the source or libyaml is missing (`make bench` installs libyaml-dev).
let floorBinary: String? = {
    let root = URL(fileURLWithPath: binary).resolvingSymlinksInPath()
    var directory = root.deletingLastPathComponent()
    while directory.path != "/", !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) { directory.deleteLastPathComponent() }
    let source = ProcessInfo.processInfo.environment["MODELGEN_YAML_FLOOR"] ?? directory.appendingPathComponent("../shared/tools/yaml_floor.c").standardized.path
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("yaml_floor-\(getpid())").path
    guard FileManager.default.fileExists(atPath: source), spawnAndWait(["/usr/bin/env", "cc", "-O2", source, "-lyaml", "-o", output]) == 0 else {
        print("note: no libyaml floor (\(source) with cc and libyaml-dev); ratios to it are left out")
        return nil
    }
    return output
}()
defer { floorBinary.map { try? FileManager.default.removeItem(atPath: $0) } }

/// One load of `file` by the floor program, as a whole process.
func runFloor(_ file: String) {
    guard let floorBinary, spawnAndWait([floorBinary, file, "1", "load-only"], discardingOutput: true) == 0 else { fatalError("the libyaml floor failed on \(file)") }
}

/// A ratio right-aligned in its column (a dash without a floor).
func ratioColumn(_ value: Double, _ floor: Double?, width: Int = 12) -> String {
    let figure = floor.map { String(format: "%.1fx", value / $0) } ?? "-"
    return String(repeating: " ", count: max(0, width - figure.count)) + figure
}

/// A whole-process figure of the installed binary with its ratio to the floor of the same loop,
/// right-aligned in its column (a dash when none was given).
func installedColumn(_ value: Double?, floor: Double?) -> String {
    let figure = value.map { value in String(format: "%.1f", value) + (floor.map { String(format: " (%.1fx)", value / $0) } ?? "") } ?? "-"
    return String(repeating: " ", count: max(0, 16 - figure.count)) + figure
}
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
// MODELGEN_BENCH_KEEP=1 keeps the synthetic models (for profiling) and prints where they are.
let keep = ProcessInfo.processInfo.environment["MODELGEN_BENCH_KEEP"] == "1"
defer { if keep { print("models kept in \(directory.path)") } else { try? FileManager.default.removeItem(at: directory) } }

print("modelgen validate, median of runs (ms); the libyaml floor, the release build and the installed binary run by turns in one loop")
print("entities   size      parse-only  parse+model   parse+validate  libyaml floor    modelgen validate  validate/floor  validate/parse   installed binary")
print("                     (compose)   (in process)  (in process)    (whole process)  (whole process)                                   (whole process)")
for n in counts {
    let text = syntheticModel(entities: n)
    let file = directory.appendingPathComponent("Bench\(n).model.yaml")
    try text.write(to: file, atomically: true, encoding: .utf8)
    let data = try Data(contentsOf: file)
    let runs = n >= 5_000 ? 5 : 21

    let check = ModelCheck.run(data: data, path: file.path)
    guard !check.hasErrors else {
        print("synthetic model has errors:\n" + check.diagnostics.prefix(5).map(\.description).joined(separator: "\n"))
        exit(1)
    }
    let parseOnly = time(runs: runs) {
        guard case .success = YAMLLoader.loadDocument(data, path: file.path) else { fatalError("the synthetic model does not compose") }
    }
    let parseModel = time(runs: runs) { _ = ModelParser.parse(data: data, path: file.path) }
    let inProcess = time(runs: runs) { _ = ModelCheck.run(data: data, path: file.path) }
    func validate(with binary: String) {
        guard spawnAndWait([binary, "validate", file.path]) == 0 else { fatalError("\(binary) validate failed on \(file.path)") }
    }
    let (floor, endToEnd, installedTime) = alternatingWithFloor(runs: runs, floor: { runFloor(file.path) },
                                                                release: { validate(with: binary) }, installed: validate(with:))
    let installed = installedColumn(installedTime, floor: floor)
    let size = String(format: "%.1f MB", Double(data.count) / 1e6)
    print(String(format: "%8d   %-8@  %10.1f  %12.1f  %14.1f  %15@  %17.1f  %@  %14.2f   %@",
                 n, size as NSString, parseOnly, parseModel, inProcess, (floor.map { String(format: "%.1f", $0) } ?? "-") as NSString,
                 endToEnd, ratioColumn(endToEnd, floor, width: 14) as NSString, endToEnd / parseOnly, installed as NSString))
}
print("goals: modelgen validate of 1,000 entities <= 200 ms; validate <= 3x the libyaml floor")
print("")

/// Creates `files` in a new directory as modelgen fills one (a hidden sibling directory, each file
/// created and written once, then the directory renamed into place), on one thread, without
/// modelgen: what the disk alone costs for them.
func createAlone(_ files: [GeneratedFile], in directory: URL) {
    let staging = directory.deletingLastPathComponent().appendingPathComponent("." + directory.lastPathComponent + ".tmp")
    try? FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
    let prefix = staging.path + "/"
    for file in files {
        let descriptor = open(prefix + file.name, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        var contents = file.contents
        _ = contents.withUTF8 { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }
    rename(staging.path, directory.path)
}

// modelgen generate, whole process: into a fresh directory each run, and with --dry-run (no files).
// Creating many files on ext4 costs more or less depending on
// how many files were deleted in the last seconds (the kernel's inode allocator skips recently freed
// inodes): the same files created without modelgen are timed beside it.
print("modelgen generate, median (ms); the libyaml floor, the release build and the installed binary run by turns in one loop")
print("entities   parse-only   render        generate --dry-run   libyaml floor    generate          generate/floor  regenerate       regenerate/floor  regenerate   regenerate/floor  same files created   generate/parse   installed binary")
print("           (compose)    (in process)  (whole process)      (whole process)  (fresh directory)                 (nothing changed)                  --no-cache                     without modelgen                    generate, ratio")
// The regeneration cache (RegenerationCache) keeps its entries under the bench's directory.
setenv("MODELGEN_CACHE_DIR", directory.appendingPathComponent("cache").path, 1)
for n in counts {
    let file = directory.appendingPathComponent("Bench\(n).model.yaml")
    let data = try Data(contentsOf: file)
    let runs = n >= 5_000 ? 5 : 21
    let parseOnly = time(runs: runs) {
        guard case .success = YAMLLoader.loadDocument(data, path: file.path) else { fatalError("the synthetic model does not compose") }
    }
    let check = ModelCheck.run(data: data, path: file.path)
    let emitter = try ModelEmitter()
    var files: [GeneratedFile] = []
    let render = try time(runs: runs) {
        files = try emitter.generate(check.validated!, options: GenerationOptions())
    }
    let dryRun = time(runs: runs) {
        guard spawnAndWait([binary, "generate", file.path, "--output", directory.appendingPathComponent("unused").path, "--dry-run"],
                           discardingOutput: true) == 0 else { fatalError("modelgen generate --dry-run failed") }
    }
    var run = 0
    func generateOnce(_ binary: String, into out: String, _ extra: [String] = []) {
        guard spawnAndWait([binary, "generate", file.path, "--output", out] + extra) == 0 else { fatalError("\(binary) generate failed") }
    }
    func generate(with binary: String) {
        run += 1
        generateOnce(binary, into: directory.appendingPathComponent("out-\(n)-\(run)").path)
    }
    let (floor, fresh, installedTime) = alternatingWithFloor(runs: runs, floor: { runFloor(file.path) },
                                                             release: { generate(with: binary) }, installed: generate(with:))
    // Regenerating into a directory that already holds the same files (what a build script does on every build):
    // as it runs (the cache finds nothing changed), and in full with --no-cache.
    let (_, regenerate) = alternating(runs: runs, { if floorBinary != nil { runFloor(file.path) } }, {
        generateOnce(binary, into: directory.appendingPathComponent("out-\(n)-1").path)
    })
    let (_, regenerateUncached) = alternating(runs: runs, { if floorBinary != nil { runFloor(file.path) } }, {
        generateOnce(binary, into: directory.appendingPathComponent("out-\(n)-1").path, ["--no-cache"])
    })
    let installed = installedColumn(installedTime, floor: floor)
    run = 0
    let alone = time(runs: runs) {
        run += 1
        createAlone(files, in: directory.appendingPathComponent("alone-\(n)-\(run)"))
    }
    print(String(format: "%8d   %10.1f   %12.1f  %19.1f   %14@  %16.1f  %@  %16.1f  %@  %10.1f  %@  %18.1f   %14.2f   %@",
                 n, parseOnly, render, dryRun, (floor.map { String(format: "%.1f", $0) } ?? "-") as NSString, fresh,
                 ratioColumn(fresh, floor, width: 14) as NSString, regenerate, ratioColumn(regenerate, floor, width: 16) as NSString,
                 regenerateUncached, ratioColumn(regenerateUncached, floor, width: 16) as NSString,
                 alone, fresh / parseOnly, installed as NSString))
}
print("goals: 100 entities <= 100 ms end to end; generate of 1,000 entities <= 10x the libyaml floor, regenerate <= 3x")
print("")

// A model of another shape, which the bench's own model does not tune for: the Blog example
// (inheritance, an abstract entity, extension mode, fetched properties, derived attributes, ordered
// to-many, fetch requests with predicates, one doc line per entity) copied 167 times, 1,002 entities.
// Its YAML is denser than the synthetic model's (less text per generated declaration), so the same
// work is a larger multiple of the floor. MODELGEN_BENCH_VARIED=0 skips the section.
func variedModel(blog: String, copies: Int) -> String {
    guard let entitiesStart = blog.range(of: "\nentities:\n"), let fetchStart = blog.range(of: "\nfetchRequests:\n") else { return "" }
    let entities = String(blog[entitiesStart.upperBound..<fetchStart.lowerBound])
    let fetches = String(blog[fetchStart.upperBound...])
    let names = ["Person", "Author", "Reader", "Post", "Comment", "Tag"]
    var out = "model: Varied\noptions:\n  codegen: class\n  access: public\n\nentities:\n"
    var requests = "fetchRequests:\n"
    for copy in 0..<copies {
        var block = entities, fetchBlock = fetches
        for name in names {
            let word = try! Regex("\\b\(name)\\b")
            block = block.replacing(word, with: "\(name)\(copy)")
            fetchBlock = fetchBlock.replacing(word, with: "\(name)\(copy)")
        }
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            out += line + "\n"
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                out += "    doc: The \(line.dropFirst(2).dropLast()) entity of copy \(copy), documented like a real model.\n"
            }
        }
        for line in fetchBlock.split(separator: "\n") {
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                requests += line.dropLast() + "\(copy):\n"
            } else {
                requests += line + "\n"
            }
        }
    }
    return out + "\n" + requests
}

if ProcessInfo.processInfo.environment["MODELGEN_BENCH_VARIED"] != "0", floorBinary != nil,
   let blog = try? String(contentsOfFile: packageRoot(containing: binary) + "/Examples/Blog/Blog.model.yaml", encoding: .utf8) {
    let file = directory.appendingPathComponent("Varied.model.yaml")
    try variedModel(blog: blog, copies: 167).write(to: file, atomically: true, encoding: .utf8)
    let check = ModelCheck.run(data: try Data(contentsOf: file), path: file.path)
    guard !check.hasErrors else { fatalError("the varied model has errors: \(check.diagnostics.prefix(3))") }
    let size = Double((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0) / 1e6
    print("a model of another shape: the Blog example copied 167 times (\(check.model?.entities.count ?? 0) entities, \(String(format: "%.2f", size)) MB); median (ms) of 11, alternating with the floor")
    print("binary       libyaml floor   validate   validate/floor   generate   generate/floor")
    for (label, path) in [("release", binary)] + (installedBinary.map { [("installed", $0)] } ?? []) {
        var run = 0
        let (floorValidate, validate) = alternating(runs: 11, { runFloor(file.path) }, {
            guard spawnAndWait([path, "validate", file.path]) == 0 else { fatalError("validate failed on the varied model") }
        })
        let (floorGenerate, generate) = alternating(runs: 11, { runFloor(file.path) }, {
            run += 1
            guard spawnAndWait([path, "generate", file.path, "--output", directory.appendingPathComponent("varied-\(label)-\(run)").path]) == 0 else {
                fatalError("generate failed on the varied model")
            }
        })
        let floor = (floorValidate + floorGenerate) / 2
        print(String(format: "%-10@   %13.1f   %8.1f   %@   %8.1f   %@", label as NSString, floor, validate,
                     ratioColumn(validate, floorValidate, width: 14) as NSString, generate, ratioColumn(generate, floorGenerate, width: 14) as NSString))
    }
    print("goals: validate <= 3x and generate <= 10x the floor, on any model like the bench's")
    print("")
}

// Scaling: validate and generate of a lighter model (three attributes and a relationship with its
// inverse per entity) at 1,000, 10,000 and 100,000 entities, beside the libyaml floor of the same file,
// each a whole process under GNU time for its peak resident memory (`ru_maxrss` of a process spawned
// from this one would include this process's own peak, inherited through vfork; GNU time forks from
// its small self), timed here (GNU time's 10 ms resolution is the floor's whole time at 1,000
// entities). The floor, validate and generate run by turns, the median of 7 rounds (3 from 10,000
// entities, 1 from 100,000). The slope is the cost per 1,000 entities between two sizes. "files alone":
// the last generate's files created again without modelgen, right after (this disk's cost for them
// changes tenfold from minute to minute, and is most of generating many small entities).
// MODELGEN_BENCH_SCALE=0 skips the section; MODELGEN_BENCH_SCALE=1000,10000 picks the sizes.
func scalingModel(entities n: Int) -> String {
    var out = "model: Scale\nentities:\n"
    for i in 0..<n {
        out += "  E\(i):\n    attributes: { name: string, rank: { type: int64, default: 0 }, seen: date? }\n"
        out += "    relationships:\n      next: { destination: E\((i + 1) % n), inverse: previous }\n      previous: { destination: E\((i + n - 1) % n), toMany: true, inverse: next }\n"
    }
    return out
}

/// Wall milliseconds (timed here) and peak resident MB (from GNU time) of one whole-process run; nil
/// when it fails or GNU time is missing.
func measured(_ argv: [String]) -> (milliseconds: Double, megabytes: Double)? {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else { return nil }
    let report = directory.appendingPathComponent("time-report").path
    let start = DispatchTime.now().uptimeNanoseconds
    guard spawnAndWait(["/usr/bin/time", "-f", "%M", "-o", report] + argv, discardingOutput: true) == 0 else { return nil }
    let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    guard let text = try? String(contentsOfFile: report, encoding: .utf8),
          let kibibytes = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
    return (milliseconds, kibibytes / 1024)
}

/// The medians of `rounds` runs of each command, run by turns, each after its `prepare` (untimed);
/// nil when a run fails.
func measuredByTurns(_ commands: [(argv: [String], prepare: () -> Void)], rounds: Int) -> [(milliseconds: Double, megabytes: Double)]? {
    var samples = Array(repeating: [(milliseconds: Double, megabytes: Double)](), count: commands.count)
    for _ in 0..<rounds {
        for (index, command) in commands.enumerated() {
            command.prepare()
            guard let sample = measured(command.argv) else { return nil }
            samples[index].append(sample)
        }
    }
    return samples.map { (median($0.map(\.milliseconds)), median($0.map(\.megabytes))) }
}

let scaleSetting = ProcessInfo.processInfo.environment["MODELGEN_BENCH_SCALE"] ?? "1000,10000,100000"
let scaleCounts = scaleSetting == "0" ? [] : scaleSetting.split(separator: ",").compactMap { Int($0) }
if !scaleCounts.isEmpty && floorBinary != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/time") {
    setenv("MODELGEN_MAX_FILE_BYTES", "1000000000", 1)   // the largest model is over the default 10 MB
    print("scaling: whole processes, wall ms (median of runs by turns) and peak MB (GNU time); ratios to the libyaml floor of the same file")
    print("entities   size       floor ms  floor MB   validate ms  ratio   MB   ratio   generate ms  ratio   MB   ratio   files alone ms")
    var previous: (n: Int, validate: Double, generate: Double)?
    for n in scaleCounts {
        let file = directory.appendingPathComponent("Scale\(n).model.yaml")
        try scalingModel(entities: n).write(to: file, atomically: true, encoding: .utf8)
        let size = Double((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0) / 1e6
        let output = directory.appendingPathComponent("scale-out-\(n)")
        // generate into a fresh directory every round: the run before's output is removed first, untimed.
        let commands: [(argv: [String], prepare: () -> Void)] = [
            ([floorBinary!, file.path, "1", "load-only"], {}), ([binary, "validate", file.path], {}),
            ([binary, "generate", file.path, "--output", output.path], { try? FileManager.default.removeItem(at: output) }),
        ]
        let rounds = n >= 100_000 ? 1 : n >= 10_000 ? 3 : 7
        guard let results = measuredByTurns(commands, rounds: rounds) else { print("\(n): a run failed"); continue }
        let (floor, validate, generate) = (results[0], results[1], results[2])
        // The last run's files, created again without modelgen: what the disk alone takes for them now.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
        let written = names.compactMap { name in
            (try? String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)).map {
                GeneratedFile(name: name, contents: $0, origin: SourceLocation(file: "", line: 0, column: 0))
            }
        }
        try? FileManager.default.removeItem(at: output)
        let aloneDirectory = directory.appendingPathComponent("scale-alone-\(n)")
        let start = DispatchTime.now().uptimeNanoseconds
        createAlone(written, in: aloneDirectory)
        let alone = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        try? FileManager.default.removeItem(at: aloneDirectory)
        print(String(format: "%8d   %6.1f MB  %8.1f   %8.0f   %11.1f  %5.1fx %5.0f  %4.1fx   %11.1f  %5.1fx %5.0f  %4.1fx   %11.1f",
                     n, size, floor.milliseconds, floor.megabytes, validate.milliseconds, validate.milliseconds / floor.milliseconds,
                     validate.megabytes, validate.megabytes / floor.megabytes, generate.milliseconds, generate.milliseconds / floor.milliseconds,
                     generate.megabytes, generate.megabytes / floor.megabytes, alone))
        if let previous {
            let thousands = Double(n - previous.n) / 1000
            print(String(format: "           slope %d→%d: validate %.1f ms, generate %.1f ms per 1,000 entities",
                         previous.n, n, (validate.milliseconds - previous.validate) / thousands, (generate.milliseconds - previous.generate) / thousands))
        }
        previous = (n, validate.milliseconds, generate.milliseconds)
    }
    print("goals: at every size validate <= 3x the floor's time and <= 2x its memory; cost linear in the size")
    print("")
}

// The shape of a huge model: 200,000 entities of one attribute each (8 MB), validated beside the floor,
// 5 rounds by turns (generating it would write 200,000 files: the disk's time, not modelgen's).
// MODELGEN_BENCH_TINY=0 skips it; another number picks the entity count.
let tinyCount = Int(ProcessInfo.processInfo.environment["MODELGEN_BENCH_TINY"] ?? "200000") ?? 0
if tinyCount > 0 && floorBinary != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/time") {
    setenv("MODELGEN_MAX_FILE_BYTES", "1000000000", 1)
    let file = directory.appendingPathComponent("Tiny\(tinyCount).model.yaml")
    var text = "model: Tiny\nentities:\n"
    text.reserveCapacity(tinyCount * 40)
    for i in 0..<tinyCount { text += "  E\(i):\n    attributes: { a: string }\n" }
    try text.write(to: file, atomically: true, encoding: .utf8)
    let size = Double(text.utf8.count) / 1e6
    var commands: [(argv: [String], prepare: () -> Void)] = [([floorBinary!, file.path, "1", "load-only"], {}), ([binary, "validate", file.path], {})]
    if let installedBinary { commands.append(([installedBinary, "validate", file.path], {})) }
    print(String(format: "%d entities of one attribute each (%.1f MB), whole processes, median of 5 runs by turns: wall ms and peak MB", tinyCount, size))
    if let results = measuredByTurns(commands, rounds: 5) {
        let floor = results[0]
        func row(_ name: String, _ result: (milliseconds: Double, megabytes: Double)) {
            print(name.padding(toLength: 20, withPad: " ", startingAt: 0) + String(format: " %8.0f ms %5.1fx   %6.0f MB %4.1fx", result.milliseconds, result.milliseconds / floor.milliseconds,
                         result.megabytes, result.megabytes / floor.megabytes))
        }
        print("libyaml floor       " + String(format: " %8.0f ms          %6.0f MB", floor.milliseconds, floor.megabytes))
        row("validate", results[1])
        if results.count > 2 { row("installed validate", results[2]) }
    } else {
        print("a run failed")
    }
    try? FileManager.default.removeItem(at: file)
    print("goal: validate <= 3x the floor's time and <= 2x its memory")
    print("")
}

// Compile time of the generated code beside plain classes of the same shape: 100 entities (the
// goal's size, best of three runs), then 1,000 entities (one run each: about four minutes in all),
// where both sides grow faster than the entity count and the ratio changes.
let modules = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("Modules").path
/// The package root (the directory above `.build` holding Package.swift): ModelgenRuntime imports
/// CSQLite, whose module map lives in the sources, not in the build directory.
func packageRoot(containing binary: String) -> String {
    var directory = URL(fileURLWithPath: binary).resolvingSymlinksInPath().deletingLastPathComponent()
    while directory.path != "/" {
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) { return directory.path }
        directory.deleteLastPathComponent()
    }
    return FileManager.default.currentDirectoryPath
}
let systemLibrary = packageRoot(containing: binary) + "/Sources/CSQLite"

#if os(Linux)
let rusageChildren = __rusage_who_t(RUSAGE_CHILDREN.rawValue)
#else
let rusageChildren = RUSAGE_CHILDREN
#endif
/// CPU seconds (user + system) of the best of `runs` swiftc runs: wall time on a shared 2-core VM
/// wanders by ±30%, the CPU time of one single-threaded frontend much less.
func compileSeconds(_ files: [String], _ flags: [String], module: String, runs: Int) -> Double {
    let out = directory.appendingPathComponent("obj-\(module)").path
    try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    // swiftc writes its objects into the current directory; the binaries' paths may be relative to ours.
    let previousDirectory = FileManager.default.currentDirectoryPath
    defer { _ = FileManager.default.changeCurrentDirectoryPath(previousDirectory) }
    let arguments = ["/usr/bin/env", "swiftc", "-swift-version", "6", "-module-name", module, "-I", modules, "-I", systemLibrary, "-parse-as-library"] + flags + files
    var best = Double.infinity
    for _ in 0..<runs {
        var before = rusage(), after = rusage()
        getrusage(rusageChildren, &before)
        let status = FileManager.default.changeCurrentDirectoryPath(out) ? spawnAndWait(arguments) : -1
        getrusage(rusageChildren, &after)
        guard status == 0 else { fatalError("swiftc failed (\(status)): \(arguments.joined(separator: " "))") }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        best = min(best, seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime))
    }
    return best
}

/// The generated code of a synthetic model in one file (`--single-file`: swiftc without batch mode
/// re-typechecks every file per frontend, which is quadratic), in the given property style.
func generatedFile(entities: Int, style: String) throws -> [String] {
    let generatedDirectory = directory.appendingPathComponent("compile-\(style)-\(entities)")
    let modelFile = directory.appendingPathComponent("Compile\(entities).model.yaml")
    try syntheticModel(entities: entities).write(to: modelFile, atomically: true, encoding: .utf8)
    guard spawnAndWait([binary, "generate", modelFile.path, "--output", generatedDirectory.path, "--single-file", "--property-style", style]) == 0 else {
        fatalError("generate failed")
    }
    return try FileManager.default.contentsOfDirectory(atPath: generatedDirectory.path).sorted().map { generatedDirectory.appendingPathComponent($0).path }
}

// 100 entities: the default @Managed form and the opt-in accessor form, each beside the plain classes
// (best of three, alternating the three sides); 1,000 entities: the default form, one run each.
// MODELGEN_BENCH_COMPILE=100 skips the 1,000-entity compile (about 15 minutes: see docs/performance.md).
let compileSizes = (ProcessInfo.processInfo.environment["MODELGEN_BENCH_COMPILE"] ?? "100,1000").split(separator: ",").compactMap { Int($0) }
for (entities, runs, styles) in [(100, 3, ["managed", "accessors"]), (1_000, 1, ["managed", "accessors"])] where compileSizes.contains(entities) {
    let files = try styles.map { try generatedFile(entities: entities, style: $0) }
    let plainFile = directory.appendingPathComponent("Plain\(entities).swift")
    try plainClasses(entities: entities).write(to: plainFile, atomically: true, encoding: .utf8)
    let heading = "compile time of \(entities) entities (swiftc, CPU seconds, \(runs == 1 ? "one run" : "best of \(runs)"))"
    print(heading.padding(toLength: 45, withPad: " ", startingAt: 0)
          + (styles.count == 2 ? "   @Managed   accessors   plain classes   ratios" : "   @Managed   plain classes   ratio"))
    for (label, flags) in [("typecheck", ["-typecheck"]), ("debug (-Onone, objects)", ["-Onone", "-c"]), ("release (-O, whole module)", ["-O", "-wmo", "-c"])] {
        let generated = files.enumerated().map { index, file in compileSeconds(file, flags, module: "Gen\(index)", runs: runs) }
        let plain = compileSeconds([plainFile.path], flags, module: "Plain", runs: runs)
        var line = "  " + label.padding(toLength: 43, withPad: " ", startingAt: 0) + String(format: " %10.2f", generated[0])
        if generated.count == 2 { line += String(format: "  %10.2f", generated[1]) }
        line += String(format: "   %13.2f   ", plain) + generated.map { String(format: "%.2fx", $0 / plain) }.joined(separator: " / ")
        print(line)
    }
}
print("goal: generated code (@Managed) for 100 entities compiles (debug) in <= 2x the time of the plain classes")

// A model's history (Tests/Fixtures/Versions/Storefront.modelversions: 101 versions, 85 entities in the
// last, one change per version): generating the folder beside generating its current version alone,
// the bytes each writes, and the debug compile time of each against the runtime (best of 3, by turns).
// MODELGEN_BENCH_HISTORY=0 skips it.
let historyFolder = packageRoot(containing: binary) + "/Tests/Fixtures/Versions/Storefront.modelversions"
if ProcessInfo.processInfo.environment["MODELGEN_BENCH_HISTORY"] != "0", FileManager.default.fileExists(atPath: historyFolder) {
    let versions = try FileManager.default.contentsOfDirectory(atPath: historyFolder).filter { $0.hasSuffix(".model.yaml") }.count
    let current = historyFolder + "/v\(versions).model.yaml"
    let historyOut = directory.appendingPathComponent("history-all"), currentOut = directory.appendingPathComponent("history-current")
    func generate(_ input: String, into output: URL) -> String {
        try? FileManager.default.removeItem(at: output)
        let stderr = directory.appendingPathComponent("history-stderr.txt")
        let status = spawnAndWait(["/bin/sh", "-c", "\"$0\" generate \"$1\" --output \"$2\" --single-file --no-cache 2>\"$3\"", binary, input, output.path, stderr.path])
        guard status == 0 else { fatalError("generate \(input) failed") }
        return (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
    }
    let (allTime, currentTime) = alternating(runs: 5, { _ = generate(historyFolder, into: historyOut) }, { _ = generate(current, into: currentOut) })
    let printed = generate(historyFolder, into: historyOut).split(separator: "\n").filter { $0.contains(": warning: ") }
    let kinds = Set(printed.compactMap { $0.split(separator: "[").last })
    let file = { (folder: URL) in try FileManager.default.contentsOfDirectory(atPath: folder.path).map { folder.appendingPathComponent($0).path } }
    let (allFiles, currentFiles) = (try file(historyOut), try file(currentOut))
    let bytes = { (files: [String]) in files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) } }
    let (allBytes, currentBytes) = (bytes(allFiles), bytes(currentFiles))
    var compileAll = Double.infinity, compileCurrent = Double.infinity
    for _ in 0..<3 {
        compileAll = min(compileAll, compileSeconds(allFiles, ["-Onone", "-c"], module: "HistoryAll", runs: 1))
        compileCurrent = min(compileCurrent, compileSeconds(currentFiles, ["-Onone", "-c"], module: "HistoryCurrent", runs: 1))
    }
    print("a model history of \(versions) versions (\(historyFolder.split(separator: "/").suffix(1).joined())): every version beside the current one alone")
    print(String(format: "  generate (median of 5)             %8.1f ms   %8.1f ms   %.2fx", allTime, currentTime, allTime / currentTime))
    print(String(format: "  generated bytes                    %8d      %8d      %.2fx (goal <= 1.20x)", allBytes, currentBytes, Double(allBytes) / Double(currentBytes)))
    print(String(format: "  debug compile (CPU s, best of 3)   %8.2f s    %8.2f s    %.2fx (goal <= 1.20x)", compileAll, compileCurrent, compileAll / compileCurrent))
    print("  warning lines printed by generate: \(printed.count) for \(kinds.count) kind\(kinds.count == 1 ? "" : "s") (goal: at most one per kind)")
    try? FileManager.default.removeItem(at: historyOut)
    try? FileManager.default.removeItem(at: currentOut)
    print("")
}
