import Mustache

/// A text or number of the template context, handed to swift-mustache as a value it renders in one
/// step: as a `MustacheCustomRenderable`, `{{name}}` skips the failed casts (`MustacheCustomRenderable`,
/// `MustacheLambda`, the engine's optional check) and the `String(describing:)` a plain `String` or `Int`
/// goes through, which saves a tenth of rendering (the engine's per-name cost, not the context's, is
/// what generating takes most of its time on; docs/performance.md).
///
/// Templates see no difference: it renders as its value, is never null (an empty text is still a value,
/// as a `String` is: `{{^name}}` renders nothing for it), and takes the same transforms as its value
/// (`{{uppercased(name)}}`, `{{empty(defaultValue)}}`, `{{plusone(slot)}}`).
struct TemplateValue<Value: MustacheTransformable & CustomStringConvertible & Sendable>: MustacheCustomRenderable, MustacheTransformable, Sendable {
    /// The text or number.
    let value: Value

    init(_ value: Value) { self.value = value }

    var renderText: String { value.description }
    var isNull: Bool { false }
    func transform(_ name: String) -> Any? { value.transform(name) }
}
