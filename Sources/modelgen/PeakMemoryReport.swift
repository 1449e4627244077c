import Foundation

/// `MODELGEN_PEAK_MEMORY_FILE=PATH`: at exit, modelgen writes its peak resident memory in KiB (Linux's
/// `VmHWM`) to PATH, for the hostile-input tests and for anyone sizing a machine for a large model.
/// `getrusage` cannot serve: a process spawned by a large one (a test runner) inherits the parent's
/// peak in `ru_maxrss` through `vfork`, while `VmHWM` counts this program's own memory only.
enum PeakMemoryReport {
    static func installIfAsked() {
        // `getenv`: `ProcessInfo.environment` would build a dictionary of the whole environment on every run.
        guard getenv("MODELGEN_PEAK_MEMORY_FILE") != nil else { return }
        atexit {
            guard let path = ProcessInfo.processInfo.environment["MODELGEN_PEAK_MEMORY_FILE"],
                  let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return }
            let kibibytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "0"
            try? "\(kibibytes)\n".write(toFile: path, atomically: false, encoding: .utf8)
        }
    }
}
