/// A model's earlier versions as text: each version as the edits that turn the lines of the version
/// after it into its own, newest first, so a version is read by editing the current version's lines
/// back one version at a time. A version that changed one attribute costs one or two lines.
///
/// ```
/// V3	5c1f0e7d2a9b4c11          (a version: its number and version hash)
/// =40                           (keep 40 lines of the version after it)
/// -1                            (drop the next line)
/// +A	weight	string	optional=1 (insert this line)
/// ```
/// Lines after the last edit are kept.
public struct VersionHistoryText: Sendable {
    /// One earlier version: its number, its version hash and its edits.
    public struct Version: Sendable {
        /// Its number in the version folder.
        public var number: Int
        /// Its version hash (what stores record).
        public var versionHash: String
        /// The edits from the next version's lines to this one's.
        public var edits: [Edit]

        /// Version `number` with `versionHash`, reached from the next version by `edits`.
        public init(number: Int, versionHash: String, edits: [Edit]) {
            self.number = number
            self.versionHash = versionHash
            self.edits = edits
        }
    }

    /// An edit of a line list.
    public enum Edit: Sendable, Hashable {
        /// Keep this many lines.
        case keep(Int)
        /// Drop this many lines.
        case drop(Int)
        /// Insert this line.
        case insert(String)
    }

    /// The earlier versions, newest first.
    public var versions: [Version]

    /// The history of `versions` (newest first).
    public init(versions: [Version]) {
        self.versions = versions
    }

    /// The edits that turn `newer` into `older`.
    public static func edits(from newer: [String], to older: [String]) -> [Edit] {
        let difference = older.difference(from: newer)
        var removed = Set<Int>(), inserted: [Int: String] = [:]
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, let element, _): inserted[offset] = element
            }
        }
        var edits: [Edit] = []
        func append(_ edit: Edit) {
            switch (edits.last, edit) {
            case (.keep(let a)?, .keep(let b)): edits[edits.count - 1] = .keep(a + b)
            case (.drop(let a)?, .drop(let b)): edits[edits.count - 1] = .drop(a + b)
            default: edits.append(edit)
            }
        }
        // Walk both lists: `old` indexes `newer`, `new` indexes `older`.
        var old = 0, new = 0
        while old < newer.count || new < older.count {
            if old < newer.count, removed.contains(old) {
                append(.drop(1)); old += 1
            } else if new < older.count, let line = inserted[new] {
                append(.insert(line)); new += 1
            } else {
                append(.keep(1)); old += 1; new += 1
            }
        }
        while case .keep? = edits.last { edits.removeLast() }
        return edits
    }

    /// `lines` with `edits` applied; throws when the edits do not fit the lines.
    public static func apply(_ edits: [Edit], to lines: [String]) throws(ArchiveError) -> [String] {
        var result: [String] = []
        result.reserveCapacity(lines.count)
        var index = 0
        for edit in edits {
            switch edit {
            case .keep(let count):
                guard index + count <= lines.count else { throw ArchiveError("an edit keeps lines past the end") }
                result += lines[index..<index + count]
                index += count
            case .drop(let count):
                guard index + count <= lines.count else { throw ArchiveError("an edit drops lines past the end") }
                index += count
            case .insert(let line):
                result.append(line)
            }
        }
        result += lines[index...]
        return result
    }

    /// The version hashes the header lines of `text` name, by version number, without reading the edits.
    public static func versionHashes(in text: String) -> [Int: String] {
        var hashes: [Int: String] = [:]
        for line in text.split(separator: "\n") where line.first == "V" {
            let parts = line.dropFirst().split(separator: "\t")
            if parts.count == 2, let number = Int(parts[0]) { hashes[number] = String(parts[1]) }
        }
        return hashes
    }

    /// The text: each version's header line and its edits, one a line.
    public var text: String {
        var text = ""
        for version in versions {
            text += "V\(version.number)\t\(version.versionHash)\n"
            for edit in version.edits {
                switch edit {
                case .keep(let count): text += "=\(count)\n"
                case .drop(let count): text += "-\(count)\n"
                case .insert(let line): text += "+" + line + "\n"
                }
            }
        }
        return text
    }

    /// Reads `text` written by `text`.
    public init(text: String) throws(ArchiveError) {
        var versions: [Version] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let mark = line.first else { continue }
            let rest = line.dropFirst()
            if mark == "V" {
                let parts = rest.split(separator: "\t")
                guard parts.count == 2, let number = Int(parts[0]) else { throw ArchiveError("not a version: \(line)") }
                versions.append(Version(number: number, versionHash: String(parts[1]), edits: []))
                continue
            }
            guard !versions.isEmpty else { throw ArchiveError("an edit before any version: \(line)") }
            switch mark {
            case "=": guard let count = Int(rest) else { throw ArchiveError("not an edit: \(line)") }; versions[versions.count - 1].edits.append(.keep(count))
            case "-": guard let count = Int(rest) else { throw ArchiveError("not an edit: \(line)") }; versions[versions.count - 1].edits.append(.drop(count))
            case "+": versions[versions.count - 1].edits.append(.insert(String(rest)))
            default: throw ArchiveError("not an edit: \(line)")
            }
        }
        self.versions = versions
    }

    /// A 64-bit FNV-1a digest of `lines` joined by line breaks, in hex: what the generator saw as the
    /// current version's lines, checked before the runtime edits its own.
    public static func digest(of lines: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for (index, line) in lines.enumerated() {
            if index > 0 { hash = (hash ^ 10) &* 0x100_0000_01b3 }
            for byte in line.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        return String(hash, radix: 16)
    }
}
