import Foundation
@testable import ModelgenCore
import Testing

/// `--check` prints these diffs; they must read like `diff -u` and apply with `patch`.
@Suite struct UnifiedDiffTests {
    @Test func equalTextsHaveNoDiff() {
        #expect(UnifiedDiff.diff(old: "a\nb\n", new: "a\nb\n", oldName: "x", newName: "y") == "")
    }

    @Test func aChangedLineIsRemovedThenAddedWithThreeLinesOfContext() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n"
        #expect(UnifiedDiff.diff(old: old, new: new, oldName: "a/f", newName: "b/f") == """
            --- a/f
            +++ b/f
            @@ -2,7 +2,7 @@
             2
             3
             4
            -5
            +five
             6
             7
             8

            """)
    }

    @Test func changesCloseTogetherShareAHunkAndFarApartDoNot() {
        let old = (1...30).map(String.init).joined(separator: "\n") + "\n"
        // Lines 5 and 11 are 5 unchanged lines apart (one hunk); line 25 is far from both (a second hunk).
        let new = old.replacingOccurrences(of: "\n5\n", with: "\nV\n")
            .replacingOccurrences(of: "\n11\n", with: "\nXI\n")
            .replacingOccurrences(of: "\n25\n", with: "\n")
        let diff = UnifiedDiff.diff(old: old, new: new, oldName: "a", newName: "b")
        let headers = diff.split(separator: "\n").filter { $0.hasPrefix("@@") }
        #expect(headers == ["@@ -2,13 +2,13 @@", "@@ -22,7 +22,6 @@"])
    }

    @Test func aLastLineWithoutNewlineIsMarkedAsDiffDoes() {
        let diff = UnifiedDiff.diff(old: "a\nb", new: "a\nb\n", oldName: "old", newName: "new")
        #expect(diff == "--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n")
        // Empty on one side: the whole other side, counted from line 0.
        #expect(UnifiedDiff.diff(old: "", new: "x\n", oldName: "old", newName: "new") == "--- old\n+++ new\n@@ -0,0 +1,1 @@\n+x\n")
    }

    /// Random edits of random texts, each diff applied with the system's `patch`: the result must
    /// be the new text byte for byte.
    @Test func diffsApplyWithPatch() throws {
        var random = SeededRandom(seed: 42)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("unified-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for round in 0..<40 {
            var lines = (0..<Int(random.next() % 60)).map { _ in ["let a = 1", "}", "", "    var b: Int", "// c"][Int(random.next() % 5)] }
            let old = lines.joined(separator: "\n") + (random.next() % 4 == 0 ? "" : "\n")
            for _ in 0..<Int(random.next() % 8) {
                let at = lines.isEmpty ? 0 : Int(random.next() % UInt64(lines.count))
                switch random.next() % 3 {
                case 0: lines.insert("inserted \(round)", at: at)
                case 1 where !lines.isEmpty: lines.remove(at: at)
                default: if !lines.isEmpty { lines[at] = "changed \(round)" }
                }
            }
            let new = lines.joined(separator: "\n") + (random.next() % 4 == 0 ? "" : "\n")
            let file = directory.appendingPathComponent("f\(round).txt")
            try Data(old.utf8).write(to: file)
            let diff = UnifiedDiff.diff(old: old, new: new, oldName: file.path, newName: file.path)
            #expect(diff.isEmpty == (old == new))
            guard !diff.isEmpty else { continue }
            let patch = Process()
            patch.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            patch.arguments = ["patch", "--quiet", "--force", file.path]
            let input = Pipe()
            patch.standardInput = input
            try patch.run()
            input.fileHandleForWriting.write(Data(diff.utf8))
            try input.fileHandleForWriting.close()
            patch.waitUntilExit()
            #expect(patch.terminationStatus == 0, "patch refused round \(round):\n\(diff)")
            #expect(try String(contentsOf: file, encoding: .utf8) == new, "round \(round):\n\(diff)")
        }
    }

    /// 100,000 lines with a change every 50: a table of every line pair (the earlier algorithm)
    /// would need 10^10 cells; the edit script needs memory for the changes only.
    @Test func largeFilesWithChangesAllThroughDiffInMemoryOfTheChanges() {
        let old = (0..<100_000).map { "line \($0)" }
        let new = old.enumerated().map { $0.offset % 50 == 0 ? "changed \($0.offset)" : $0.element }
        let diff = UnifiedDiff.diff(old: old.joined(separator: "\n") + "\n", new: new.joined(separator: "\n") + "\n", oldName: "a", newName: "b")
        let lines = diff.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("-line ") }.count == 2_000)
        #expect(lines.filter { $0.hasPrefix("+changed ") }.count == 2_000)
        #expect(lines.filter { $0.hasPrefix("@@") }.count == 2_000)   // changes 50 lines apart: a hunk each
    }
}

/// A small deterministic generator (SplitMix64), so a failing round can be replayed.
struct SeededRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
