/// Where diagnostics go as the pipeline finds them (the CLI prints them in the chosen format; a test
/// or a library user collects them).
public protocol DiagnosticCollector {
    /// Receives the diagnostics of one model file, sorted by position.
    func emit(_ diagnostics: [Diagnostic], of source: ModelSource)
}

/// Keeps every diagnostic it receives.
public final class CollectedDiagnostics: DiagnosticCollector {
    /// Everything received, in order.
    public private(set) var all: [Diagnostic] = []

    /// An empty collection.
    public init() {}

    public func emit(_ diagnostics: [Diagnostic], of source: ModelSource) { all += diagnostics }
}
