/// Writes the earlier versions of a version folder's model into its generated model file: an
/// extension of `<Model>Model` with `versions` (every version's `ManagedObjectModel`, oldest first,
/// the current one last: what a `MigrationPlan` takes) and an enum `Versions` with each earlier
/// version's description. Earlier versions have no classes of their own (`ManagedObject`, records
/// read by key), no fetch request templates and nothing that names the user's Swift types.
struct EarlierVersionsWriter {
    /// The current version's model.
    let current: ObjectModel
    /// The earlier versions, oldest first (version 1 is the first).
    let earlier: [ValidatedModel]
    let options: GenerationOptions

    func render() -> String {
        let builder = ModelViewBuilder(model: current, variables: [:], options: options)
        let access = builder.access
        let type = current.name.value + "Model"
        var text = """

            /// The released versions of the \(current.name.value) model, oldest first, from its version folder.
            extension \(type) {
                /// Every version's description, oldest first; the last is `model` (the current version). A
                /// `MigrationPlan(versions:stages:)` takes them.
                \(access)static let versions: [ModelgenRuntime.ManagedObjectModel] = [\((earlier.indices.map { "Versions.v\($0 + 1)" } + ["model"]).joined(separator: ", "))]

                /// The earlier versions: descriptions without classes (their records are read by key, `value(forKey:)`).
                \(access)enum Versions {

            """
        let builders = earlier.map { ModelViewBuilder(model: $0.model, variables: $0.templateVariables, options: options) }
        for (index, version) in earlier.enumerated() {
            if index > 0 { text += "\n" }
            let members = version.model.entities.map { "V\(index + 1)." + builders[index].entityMember($0) }.joined(separator: ", ")
            text += """
                        /// Version \(index + 1) (version hash \(version.model.versionHash)).
                        \(access)static let v\(index + 1): ModelgenRuntime.ManagedObjectModel = .generated(
                            name: \(SwiftLiterals.string(version.model.name.value)),
                            entities: [\(members)],
                            fetchRequestTemplates: [],
                            configurations: [:]
                        )

                """
        }
        for (index, version) in earlier.enumerated() {
            let formatter = builders[index].formatter
            text += "\n        private enum V\(index + 1) {\n"
            for entity in version.model.entities {
                // The formatter indents continuation lines for the model enum's `Entities` (eight spaces): four more here.
                let description = formatter.entityDescription(entity, untyped: true)
                    .split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                    .map { $0.offset == 0 ? String($0.element) : "    " + $0.element }.joined(separator: "\n")
                text += "            " + description + "\n"
            }
            text += "        }\n"
        }
        text += "    }\n}\n"
        return text
    }
}
