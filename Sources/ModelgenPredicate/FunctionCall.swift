/// What `FUNCTION(receiver, 'selector:', arguments…)` names: the receiver, the selector sent to it (in
/// Core Data, an Objective-C message; in ModelgenRuntime, a registered Swift function) and its
/// arguments. Read once here, so the type checker and the evaluator agree on the shape.
public enum FunctionCall: Sendable, Hashable {
    /// A well-formed call: what it is sent to, the selector (`daysSince:`) and the arguments.
    case call(receiver: Expression, selector: String, arguments: [Expression])
    /// A `FUNCTION(…)` of another shape, and what it should look like.
    case malformed(String)
}

extension Expression {
    /// The call of a `FUNCTION(…)` expression; nil when this is not one.
    public var functionCall: FunctionCall? {
        guard case .function(let name, let arguments) = kind, name.uppercased() == "FUNCTION" else { return nil }
        guard arguments.count >= 2, case .string(let selector) = arguments[1].kind, !selector.isEmpty else {
            return .malformed("FUNCTION takes a receiver, a selector in quotes and the selector's arguments, as in FUNCTION(SELF, 'daysSince:', createdAt)")
        }
        return .call(receiver: arguments[0], selector: selector, arguments: Array(arguments.dropFirst(2)))
    }
}
