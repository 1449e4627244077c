import Foundation
import ModelgenCore

/// Lets `modelgen generate` skip a run whose inputs and outputs are exactly those of the last run,
/// as a build system skips an up-to-date target: build scripts run modelgen on every build, and a
/// model that did not change then costs a few stat calls instead of parsing, validating and rendering.
///
/// An entry lives outside the output directory (which holds only generated files), in
/// `$MODELGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/modelgen`, else `~/.cache/modelgen`; one file per
/// output directory. It records a digest of everything a run reads (the model files' and the
/// configuration's bytes, every template of `--templates`, the options, the working directory,
/// `MODELGEN_MAX_FILE_BYTES`, the modelgen version and the executable's size and modification time) and, for each `.swift` file the
/// run left in the output directory, its inode, size, modification and change times and a digest of its
/// bytes. A run is skipped only when the digest is the same, the output directory holds exactly those
/// `.swift` files, and none of them changed in any of those four ways; a file whose times are within two
/// seconds of the entry's own (file times are only as fine as the kernel's clock tick, so a write just
/// after the entry could leave them as recorded: git's "racily clean" files) must also still have the
/// recorded bytes. Anything else (a file edited, touched, deleted or added,
/// a template changed, another modelgen) runs in full. Runs that print any diagnostic (warnings too) are
/// never recorded, so their warnings are printed every time; `--check`, `--dry-run` and `--human-dir`
/// always run in full. The cache is best effort: when its directory cannot be written (a sandboxed
/// build plugin), runs are simply not skipped. `--no-cache` or `MODELGEN_CACHE_DIR=off` turn it off;
/// `MODELGEN_TRACE_CACHE=1` prints why each run was or was not skipped.
struct RegenerationCache {
    private let entry: URL
    private let digest: String
    private let output: String
    private let trace: Bool

    /// Nil when the job cannot be cached or the cache is off.
    init?(job: GenerationJob) {
        let environment = ProcessInfo.processInfo.environment
        trace = environment["MODELGEN_TRACE_CACHE"] == "1"
        guard !job.check, !job.dryRun, job.humanDir == nil, let directory = Self.directory(environment) else { return nil }
        var inputs = InputDigest()
        inputs.add("modelgen regeneration cache 1 \(ModelgenVersion.current)")
        inputs.add(FileManager.default.currentDirectoryPath)
        inputs.add(Self.executableIdentity())
        // The size limit decides whether a model is refused: a run under another limit is another run.
        inputs.add(environment["MODELGEN_MAX_FILE_BYTES"] ?? "-")
        inputs.add([job.output, job.format.rawValue, "\(job.strict)", "\(job.singleFile)", job.singleFileName ?? "-",
                    job.access?.rawValue ?? "-", job.propertyStyle?.rawValue ?? "-", job.templates ?? "-", job.config ?? "-"]
            .joined(separator: "\u{0}"))
        // A version folder: each version's file (the listing is in the paths, so a new version changes the digest).
        var read = job.files.flatMap { file in
            ModelVersionFolder.isVersionFolder(file) ? [file] + ((try? ModelVersionFolder(path: file))?.versions.map(\.path) ?? []) : [file]
        }
        if let config = job.config { read.append(config) }
        if let templates = job.templates {
            read += ModelEmitter.templateNames.map { (templates as NSString).appendingPathComponent($0 + ".mustache") }
        }
        for path in read {
            inputs.add(path)
            // A missing template is a fallback to the built-in one: its absence is part of the digest.
            guard let data = FileManager.default.contents(atPath: path) else { inputs.add("(absent)"); continue }
            inputs.add(data)
        }
        output = job.output
        digest = inputs.hex
        let absoluteOutput = URL(fileURLWithPath: job.output).standardizedFileURL.path
        var name = InputDigest()
        name.add(absoluteOutput)
        entry = directory.appendingPathComponent("regenerate-\(name.hex).txt")
    }

    private static func directory(_ environment: [String: String]) -> URL? {
        if let explicit = environment["MODELGEN_CACHE_DIR"] {
            return explicit == "off" || explicit.isEmpty ? nil : URL(fileURLWithPath: explicit)
        }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg).appendingPathComponent("modelgen") }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/modelgen")
    }

    /// The running executable's size and modification time: a rebuilt modelgen invalidates every entry.
    private static func executableIdentity() -> String {
        let path = Bundle.main.executablePath ?? CommandLine.arguments[0]
        guard let state = FileState(path: path) else { return "unknown executable" }
        return "\(path) \(state.size) \(state.modified)"
    }

    /// True (after tracing it) when the last recorded run had these inputs and left these files.
    func isUpToDate() -> Bool {
        guard let text = try? String(contentsOf: entry, encoding: .utf8) else { return miss("no entry") }
        // The cheap checks first (the digest, then whether the output directory is there at all), and the
        // entry split as bytes, not characters.
        guard text.utf8.prefix(while: { $0 != UInt8(ascii: "\n") }).elementsEqual(digest.utf8) else { return miss("the inputs changed") }
        guard let present = Self.swiftFiles(in: output) else { return miss("the output directory's .swift files changed") }
        var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(Substring($0)) }
        if lines.last == "" { lines.removeLast() }
        guard lines.count >= 2, let recordedAt = Int64(lines[1]) else { return miss("the inputs changed") }
        let recorded = lines.dropFirst(2).map { $0.utf8.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map { String(Substring($0)) } }
        let recordedNames = Set(recorded.map { $0.first ?? "" })
        guard present == recordedNames.filter({ $0.hasSuffix(".swift") }) else {
            return miss("the output directory's .swift files changed")
        }
        for fields in recorded {
            let path = fields.isEmpty ? "" : (output as NSString).appendingPathComponent(fields[0])
            guard fields.count == 3, let state = FileState(path: path), state.description == fields[1] else {
                return miss("'\(fields.first ?? "")' changed")
            }
            if max(state.modified, state.changed) > recordedAt - Self.racyWindow {
                guard let data = FileManager.default.contents(atPath: path), Self.digest(of: data) == fields[2] else {
                    return miss("'\(fields[0])' changed")
                }
            }
        }
        if trace { FileHandle.standardError.write(Data("modelgen cache: up to date, nothing to do\n".utf8)) }
        return true
    }

    private func miss(_ reason: String) -> Bool {
        if trace { FileHandle.standardError.write(Data("modelgen cache: running (\(reason))\n".utf8)) }
        return false
    }

    /// Records the output directory as the run left it: the files it generated and every other `.swift`
    /// file there. Failures are ignored: the next run is then not skipped.
    func record(generated: [GeneratedFile]) {
        let contents = Dictionary(generated.map { ($0.name, $0.contents) }, uniquingKeysWith: { a, _ in a })
        guard let names = Self.swiftFiles(in: output)?.union(contents.keys) else { return }
        // Each file's state and digest on all cores.
        let sorted = names.sorted(), output = self.output
        let entries = ParallelMap.map(sorted.count) { index -> String? in
            let name = sorted[index]
            let path = (output as NSString).appendingPathComponent(name)
            guard let state = FileState(path: path) else { return nil }
            // The bytes of a file this run generated are known; another model's are read.
            let digest = contents[name].map { Self.digest(of: $0) } ?? FileManager.default.contents(atPath: path).map(Self.digest(of:))
            return "\(name)\t\(state.description)\t\(digest ?? "-")"
        }
        let lines = entries.compactMap { $0 }
        guard lines.count == entries.count else { return }
        // The time after every stat: files changed within the racy window of it are compared by content.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var text = digest + "\n" + "\(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))\n"
        for line in lines { text += line + "\n" }
        let directory = entry.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Without an fsync (Foundation's `Data.write` syncs on Linux): an entry lost or cut short by a
        // crash fails its checks, and the next run simply runs in full.
        try? OutputWriter.writeAtomically(Data(text.utf8), to: entry)
    }

    /// Two seconds, in nanoseconds: far more than any file system's timestamp granularity.
    private static let racyWindow: Int64 = 2_000_000_000

    private static func digest(of data: Data) -> String {
        var digest = InputDigest()
        digest.add(data)
        return digest.hex
    }

    /// The digest of a text's UTF-8 bytes (the same as of its `Data`).
    private static func digest(of text: String) -> String {
        var digest = InputDigest()
        digest.add(text)
        return digest.hex
    }

    private static func swiftFiles(in directory: String) -> Set<String>? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        return Set(names.filter { $0.hasSuffix(".swift") })
    }
}

/// What `stat` says about a file that changes when anyone writes, replaces or touches it.
private struct FileState: CustomStringConvertible {
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var changed: Int64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        changed = Int64(info.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(info.st_ctimespec.tv_nsec)
        #else
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        #endif
    }

    var description: String { "\(inode) \(size) \(modified) \(changed)" }
}

/// Two 64-bit FNV-1a hashes (different offsets) over length-prefixed parts: a 128-bit digest that tells
/// inputs apart for a cache (not a cryptographic hash: it guards against change, not against an attacker,
/// who could as well edit the cache entry).
private struct InputDigest {
    private var a: UInt64 = 0xcbf2_9ce4_8422_2325
    private var b: UInt64 = 0x6c62_272e_07bb_0142

    /// The text's UTF-8 bytes, read in place (no copy into a `Data`).
    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
    }

    mutating func add(_ data: Data) {
        data.withUnsafeBytes { add($0) }
    }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var length = UInt64(bytes.count)
        withUnsafeBytes(of: &length) { mix($0) }
        mix(bytes)
    }

    /// Eight bytes at a time, then the rest.
    private mutating func mix(_ bytes: UnsafeRawBufferPointer) {
        var a = self.a, b = self.b
        func step(_ value: UInt64) {
            a = (a ^ value) &* 0x0000_0100_0000_01b3
            b = (b ^ value) &* 0x9e37_79b9_7f4a_7c15
            b ^= b >> 29
        }
        let words = bytes.count / 8
        for index in 0..<words {
            step(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)))
        }
        for byte in bytes[(words * 8)...] { step(UInt64(byte)) }
        self.a = a
        self.b = b
    }

    var hex: String {
        func pad(_ value: UInt64) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return pad(a) + pad(b)
    }
}
