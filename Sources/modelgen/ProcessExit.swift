import Dispatch
import ModelgenCore

/// What the command does with large structures in a process about to exit: freeing a model's YAML
/// tree node by node only delays the exit, so checks are kept until then, and a tree the pipeline no
/// longer needs is dropped on another thread while rendering starts (rendering reuses its memory).
enum ProcessExit {
    private final class Box: @unchecked Sendable {
        let check: ModelCheck
        init(_ check: ModelCheck) { self.check = check }
    }

    /// Keeps `check` (and the trees it holds) alive until the process exits.
    static func keep(_ check: ModelCheck) { _ = Unmanaged.passRetained(Box(check)) }

    /// Drops a reference to `object` on another thread, so that tearing down what it holds happens
    /// there instead of holding up the caller.
    static func release(_ object: consuming some AnyObject & Sendable) {
        DispatchQueue.global().async { [object] in withExtendedLifetime(object) {} }
    }

    /// The pipeline's `didCheck` for a run the process ends after: the tree freed beside rendering,
    /// the rest of the check kept.
    static let keepChecks: @Sendable (inout ModelCheck) -> Void = { check in
        if let tree = check.syntaxTree.take() { release(tree) }
        keep(check)
    }
}
