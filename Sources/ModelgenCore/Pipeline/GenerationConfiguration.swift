/// What a generation run is asked to do beyond the models: the output layout and the options of
/// `modelgen generate` and `modelgen.yml`.
public struct GenerationConfiguration: Sendable {
    /// The directory the files are meant for: the header names each model by its path from there.
    public var outputDirectory: String
    /// Access level, single file, property style, extra imports.
    public var options = GenerationOptions()
    /// The one file's name when everything goes into one file (the build-tool plugin names it up front).
    public var singleFileName: String?
    /// A directory of `.mustache` files replacing built-in templates of the same name.
    public var templatesDirectory: String?
    /// Where starter classes of extension-mode entities go (`--human-dir`); nil for none.
    public var humanDirectory: String?
    /// Warnings count as errors.
    public var strict = false
    /// Called with each model's check once it is validated, before rendering: the caller may take
    /// what it wants out of it (the CLI, which exits right after the run, frees the YAML tree on
    /// another thread while rendering starts and keeps the rest until the exit).
    public var didCheck: (@Sendable (inout ModelCheck) -> Void)?
    /// For a model of a version folder (`NAME.modelversions`), by the current version's path: the
    /// earlier versions. The pipeline checks the path from them to the current version
    /// (`ModelVersionFolder.pathDiagnostics`) and writes them into the generated model file
    /// (`<Model>Model.history`, `<Model>Model.Versions.v1`, …) for a `MigrationPlan`.
    public var earlierVersions: [String: EarlierVersions] = [:]

    /// Generation into `outputDirectory` with the default options.
    public init(outputDirectory: String) {
        self.outputDirectory = outputDirectory
    }
}
