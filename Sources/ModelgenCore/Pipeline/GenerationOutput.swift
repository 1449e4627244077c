/// The files a generation run would write, computed in memory: nothing is written by the pipeline.
public struct GenerationOutput: Sendable {
    /// The generated files, relative to the output directory.
    public var files: [GeneratedFile] = []
    /// Starter classes for the human directory (written only where missing).
    public var humanFiles: [GeneratedFile] = []
}

/// Why a generation run produced no files.
public enum GenerationFailure: Error, CustomStringConvertible {
    /// At least one model had errors; they went to the diagnostic collector.
    case invalidModels(errorCount: Int)
    /// The templates could not be loaded or rendered (the message names the template and the position).
    case templates(String)

    public var description: String {
        switch self {
        case .invalidModels(let count): return "\(count) error\(count == 1 ? "" : "s") in the models; nothing was generated"
        case .templates(let message): return message
        }
    }
}
