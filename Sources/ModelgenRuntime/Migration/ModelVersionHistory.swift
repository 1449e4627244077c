import ModelgenArchive
import Synchronization

/// A model's released versions, held as data the compiler does not type-check: the current version is
/// the generated model, each earlier one the edits that turn the next version's description into its
/// own. A version is decoded the first time something asks for it (a `MigrationPlan` when a store of an
/// earlier version is opened, or `<Model>Model.Versions.vN`), then kept.
///
/// Generated code makes one (`<Model>Model.history`); a plan takes it whole:
/// `MigrationPlan(history: ClinicModel.history, stages: [...])`.
public final class ModelVersionHistory: Sendable {
    /// The current version: the generated model.
    public let current: ManagedObjectModel
    /// The current version's number in its version folder.
    public let currentNumber: Int
    /// The version hashes of versions older than the oldest kept (`oldestVersion`), oldest first:
    /// a store recorded with one of them cannot be migrated by this build.
    public let retiredVersionHashes: [String]
    /// The number of the oldest kept version.
    public let firstNumber: Int
    /// Every kept version's hash, oldest first, the current one last (from the history's header lines:
    /// known without decoding).
    public let versionHashes: [String]

    /// The digest of the current version's lines the history's edits start from.
    let digest: String
    /// The history's text (`VersionHistoryText`).
    let text: String
    private let state = Mutex<State>(State())

    private struct State {
        var history: VersionHistoryText?
        /// Decoded lines by version number, from the current version down to the oldest asked for.
        var lines: [Int: [String]] = [:]
        var models: [Int: ManagedObjectModel] = [:]
    }

    /// A history of `current` (version `currentNumber`) and the versions before it down to `firstNumber`
    /// as `history` text, whose edits start from lines with the digest `digest`.
    public init(current: ManagedObjectModel, currentNumber: Int, firstNumber: Int,
                retiredVersionHashes: [String] = [], digest: String, history: String) {
        self.current = current
        self.currentNumber = currentNumber
        self.firstNumber = firstNumber
        let earlier = VersionHistoryText.versionHashes(in: history)
        // A number the text lacks gets no hash here; decoding it then fails, saying the version is missing.
        self.versionHashes = (firstNumber..<currentNumber).map { earlier[$0] ?? "" } + [current.versionHash]
        self.retiredVersionHashes = retiredVersionHashes
        self.digest = digest
        self.text = history
    }

    /// Every kept version, oldest first, the current one last (decodes those not decoded yet).
    public var versions: [ManagedObjectModel] {
        (firstNumber...currentNumber).map(version)
    }

    /// The earlier versions decoded so far, by number.
    var decodedVersions: [Int] { state.withLock { $0.models.keys.sorted() } }

    /// The version numbered `number` (`firstNumber` through `currentNumber`).
    public func version(_ number: Int) -> ManagedObjectModel {
        precondition((firstNumber...currentNumber).contains(number),
                     "version \(number) of model '\(current.name)' is not kept: versions \(firstNumber) to \(currentNumber) are")
        if number == currentNumber { return current }
        do {
            return try state.withLock { state in try decode(number, &state) }
        } catch {
            preconditionFailure("the generated history of model '\(current.name)' does not fit this runtime (\(error)): generate the model's code again with the modelgen this runtime came with")
        }
    }

    private func decode(_ number: Int, _ state: inout State) throws -> ManagedObjectModel {
        if let model = state.models[number] { return model }
        if state.history == nil {
            let lines = ArchivedModel(describing: current).lines
            guard VersionHistoryText.digest(of: lines) == digest else {
                throw ArchiveError("the current version's description is not the one the history was written from (digest \(VersionHistoryText.digest(of: lines)), written from \(digest))")
            }
            state.lines[currentNumber] = lines
            state.history = try VersionHistoryText(text: text)
        }
        for version in state.history!.versions where version.number >= number && state.lines[version.number] == nil {
            guard let newer = state.lines[version.number + 1] else { throw ArchiveError("version \(version.number + 1) is missing from the history") }
            state.lines[version.number] = try VersionHistoryText.apply(version.edits, to: newer)
        }
        guard let lines = state.lines[number] else { throw ArchiveError("version \(number) is missing from the history") }
        let model = try ArchivedModel(lines: lines).managedObjectModel()
        let expected = versionHashes[number - firstNumber]
        guard model.versionHash == expected else {
            throw ArchiveError("version \(number) decodes to version hash \(model.versionHash), not \(expected)")
        }
        state.models[number] = model
        return model
    }
}
