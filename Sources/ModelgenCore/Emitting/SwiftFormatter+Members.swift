/// An entity's members written out, as the built-in `entity` template places them (the template
/// context's `declaration`, `keyDeclaration` and `collectionFunctions` of a property): one value per
/// member instead of a dozen tags, because swift-mustache's cost is per tag (a name looked up through
/// the context stack with dynamic casts), which made the property lines most of generating's time
/// (docs/performance.md). `Templates/Explicit/entity.mustache` writes the same from the data keys, and
/// `ReferenceTests` keeps the two identical.
extension SwiftFormatter {
    /// Where the built-in template writes an entity's members.
    static let memberIndent = "    "

    /// A property's doc comment and declaration, lines indented by `memberIndent`, without a final
    /// line break: `@Managed(slot: 0) var title: String`, or a computed property reading (and
    /// writing) the runtime's accessors, a fetched property's throwing getter, a computed property's
    /// `compute…()` call.
    static func declaration(of property: PropertyView) -> String {
        var text = ""
        text.reserveCapacity(160)
        let indent = memberIndent
        for line in property.documentation {
            text += line.written(indent: indent)
            text += "\n"
        }
        if !property.computeName.isEmpty {
            text += indent + property.access + "var " + property.name + ": " + property.type + " {\n"
            text += indent + indent + "observeDependencies(of: \"" + property.key + "\")\n"
            text += indent + indent + "return " + property.computeName + "()\n"
            text += indent + "}"
            return text
        }
        if property.isManaged {
            text += indent + "@Managed(slot: " + String(property.slot) + ") " + property.access
            if property.isReadOnly { text += "private(set) " }
            text += "var " + property.name + ": " + property.type
            return text
        }
        text += indent + property.access + "var " + property.name + ": " + property.type + " {\n"
        let body = indent + indent
        if property.isReadOnly {
            text += body + (property.isThrowing ? "get throws { " + property.getterCall + " }" : property.getterCall) + "\n"
        } else {
            text += body + "get { " + property.getterCall + " }\n"
            text += body + "set { " + property.setterCall + " }\n"
        }
        text += indent + "}"
        return text
    }

    /// A property's constant in the entity's `Keys` enum (`static var title: String { "title" }`),
    /// indented by two `memberIndent`s, without a line break.
    static func keyDeclaration(of property: PropertyView) -> String {
        memberIndent + memberIndent + property.access + "static var " + property.name + ": String { \"" + property.key + "\" }"
    }

    /// A to-many relationship's `addTo…(_:)` and `removeFrom…(_:)` (and, when ordered, `insertInto…(_:at:)`),
    /// each with its doc comment, separated by an empty line, indented by `memberIndent`, without a
    /// final line break; empty for other properties.
    static func collectionFunctions(of property: PropertyView) -> String {
        guard property.isToMany else { return "" }
        let indent = memberIndent, body = memberIndent + memberIndent
        let slot = String(property.slot)
        func function(_ doc: String, _ name: String, _ parameters: String, _ call: String) -> String {
            indent + "/// " + doc + "; the inverse relationship follows.\n"
                + indent + property.access + "func " + name + "(_ value: " + property.elementType + parameters + ") {\n"
                + body + call + "\n"
                + indent + "}"
        }
        var text = function("Adds `value` to `\(property.key)`", property.addName, "", "addRelatedObject(value, at: \(slot))")
        text += "\n\n" + function("Removes `value` from `\(property.key)`", property.removeName, "", "removeRelatedObject(value, at: \(slot))")
        if property.isOrdered {
            text += "\n\n" + function("Inserts `value` into `\(property.key)` at `index`", property.insertName, ", at index: Int",
                                      "addRelatedObject(value, at: \(slot), index: index)")
        }
        return text
    }
}
