import ModelgenArchive

/// Writes the earlier versions of a version folder's model into its generated model file: an
/// extension of `<Model>Model` with `history` (a `ModelVersionHistory`: the current model, and each
/// earlier version as the edits that turn the next version's description into its own, in one string
/// literal the compiler does not type-check element by element), `versions` and an enum `Versions`
/// with each kept earlier version (decoded when first asked for). Earlier versions have no classes of
/// their own (`ManagedObject`, records read by key), no fetch request templates and nothing that names
/// the user's Swift types.
struct EarlierVersionsWriter {
    /// The current version's model.
    let current: ObjectModel
    /// The earlier versions.
    let earlier: EarlierVersions
    let options: GenerationOptions

    func render() -> String {
        let access = ModelViewBuilder(model: current, variables: [:], options: options).access
        let type = current.name.value + "Model"
        let first = earlier.firstNumber, currentNumber = first + earlier.models.count
        let numbers = Array(first..<currentNumber)
        // Each version's lines, then the edits from each one back to the one before it, newest first.
        let lines = earlier.models.map { ArchivedModel(model: $0.model).lines } + [ArchivedModel(model: current).lines]
        let history = VersionHistoryText(versions: numbers.reversed().map { number in
            let index = number - first
            return VersionHistoryText.Version(number: number, versionHash: earlier.models[index].model.versionHash,
                                              edits: VersionHistoryText.edits(from: lines[index + 1], to: lines[index]))
        }).text
        var pounds = "#"
        while history.contains("\\" + pounds) || history.contains("\"\"\"" + pounds) { pounds += "#" }
        func list(_ strings: [String]) -> String { "[" + strings.map { SwiftLiterals.string($0) }.joined(separator: ", ") + "]" }
        var text = """

            /// The released versions of the \(current.name.value) model, from its version folder: versions \(first) to \(currentNumber).
            extension \(type) {
                /// The current version (`model`) and each earlier one as edits of the next one's description,
                /// decoded when a migration first needs it. `MigrationPlan(history: \(type).history, stages: …)`.
                \(access)static let history = ModelgenRuntime.ModelVersionHistory(
                    current: model, currentNumber: \(currentNumber), firstNumber: \(first),
                    retiredVersionHashes: \(list(earlier.retiredVersionHashes)),
                    digest: \(SwiftLiterals.string(VersionHistoryText.digest(of: lines[lines.count - 1]))),
                    history: \(pounds)\"\"\"
            \(history)\"\"\"\(pounds)
                )

                /// Every kept version's description, oldest first; the last is `model` (the current version).
                \(access)static var versions: [ModelgenRuntime.ManagedObjectModel] { history.versions }

                /// The earlier versions: descriptions without classes (their records are read by key, `value(forKey:)`).
                \(access)enum Versions {

            """
        for number in numbers {
            text += """
                        /// Version \(number) (version hash \(earlier.models[number - first].model.versionHash)).
                        \(access)static var v\(number): ModelgenRuntime.ManagedObjectModel { \(type).history.version(\(number)) }

                """
        }
        text += "    }\n}\n"
        return text
    }
}
