import Foundation
import TestScratch
import Testing

/// The built `modelgen-store-stress` helper (beside the test bundle, e.g. .build/debug).
func stressBinary() -> URL {
    var directory = Bundle.main.bundleURL
    if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
    let candidate = directory.appendingPathComponent("modelgen-store-stress")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("modelgen-store-stress")
}

/// Runs the helper to completion and returns its standard output.
func runStress(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = stressBinary()
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite(.serialized) struct SQLiteCrashTests {
    /// A child process saving batches (50 items and a counter per save) is killed with SIGKILL at random
    /// moments, 100 times; after each kill every save it reported is in the store, and nothing half-written.
    @Test func killedDuringSavesTheStoreKeepsEveryCompletedSave() throws {
        let path = try temporaryDirectory().appendingPathComponent("stress.sqlite").path
        var reported = 0
        var killsAmidSaves = 0   // kills after the run had acknowledged a save: in the save loop, not at start-up
        for _ in 0..<100 {
            let process = Process()
            process.executableURL = stressBinary()
            process.arguments = ["saves", path]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            usleep(UInt32.random(in: 30_000...250_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
            if let last = lines.last, let number = Int(last.dropFirst("saved ".count)) {
                reported = max(reported, number)
                killsAmidSaves += 1
            }
            let check = try runStress(["check", path])
            let fields = Dictionary(uniqueKeysWithValues: check.split(separator: " ").map { field in
                let parts = field.split(separator: "=")
                return (String(parts[0]), String(parts[1]))
            })
            let batches = Int(fields["batches"] ?? "") ?? -1
            #expect(fields["complete"] == "true", "\(check)")
            #expect(batches >= reported, "\(check), reported \(reported)")
            #expect(fields["counter"] == String(batches), "\(check)")
        }
        #expect(reported > 0)
        #expect(killsAmidSaves >= 50, "\(killsAmidSaves) of 100 kills came after a save")
    }

    /// Two processes edit different attributes of the same 100 items in 30 rounds each, under
    /// `.mergeByPropertyObjectTrump`, and add items under one shared batch: every item ends with both
    /// processes' last edits, and the batch holds every item either added (`modelgen-store-stress fields`).
    @Test func twoProcessesEditingDifferentAttributesKeepBoth() throws {
        let path = try temporaryDirectory().appendingPathComponent("fields.sqlite").path
        let output = try runStress(["fields", path])
        #expect(output.hasSuffix("every item holds both edits, the batch every added item"), "\(output)")
    }

    /// Two processes add 1 to the same counter 100 times each: optimistic locking turns every race
    /// into a conflict the loser retries, so no increment is lost.
    @Test func twoProcessesWritingTheSameRowLoseNothing() throws {
        let path = try temporaryDirectory().appendingPathComponent("counter.sqlite").path
        _ = try runStress(["increment", path, "1"])
        let processes = (0..<2).map { _ -> Process in
            let process = Process()
            process.executableURL = stressBinary()
            process.arguments = ["increment", path, "100"]
            process.standardOutput = FileHandle.nullDevice
            return process
        }
        for process in processes { try process.run() }
        for process in processes { process.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        #expect(try runStress(["check", path]).hasSuffix("counter=201"))
    }

    /// Two processes read the same record, then save conflicting values one after the other: the second
    /// saver's merge policy decides: `.error` refuses its save, `.rollback` drops its change, and
    /// `.overwrite` and `.mergeByPropertyObjectTrump`, which say so, write over the first process's save.
    @Test func twoProcessesSavingConflictingChangesAreDecidedByTheMergePolicy() throws {
        for (policy, expected, stored) in [("error", "conflict", 10), ("rollback", "saved value=10", 10), ("overwrite", "saved value=20", 20),
                                           ("mergeByPropertyObjectTrump", "saved value=20", 20), ("mergeByPropertyStoreTrump", "saved value=10", 10)] {
            let path = try temporaryDirectory().appendingPathComponent("race.sqlite").path
            _ = try runStress(["increment", path, "1"])   // the counter, at 1
            let racers = [("error", 10), (policy, 20)].map { policy, value -> (Process, Pipe, Pipe) in
                let process = Process()
                process.executableURL = stressBinary()
                process.arguments = ["race", path, policy, String(value)]
                let input = Pipe(), output = Pipe()
                process.standardInput = input
                process.standardOutput = output
                return (process, input, output)
            }
            for (process, _, output) in racers {
                try process.run()
                #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) == "ready\n")
            }
            var results: [String] = []
            for (process, input, output) in racers {   // both have read the counter; now they save in turn
                input.fileHandleForWriting.write(Data("go\n".utf8))
                process.waitUntilExit()
                results.append(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            }
            #expect(results == ["saved value=10", expected], "policy \(policy)")
            #expect(try runStress(["check", path]).hasSuffix("counter=\(stored)"), "policy \(policy)")
        }
    }
}
