extension ModelValidator {
    /// Composite types: Swift type names that collide with nothing generated, fields of scalar types
    /// (or other composites) with valid bounds and defaults, and no composite that contains itself.
    func checkComposites() {
        guard !model.composites.isEmpty else { return }   // (no table of every entity's class for nothing)
        let modelTypeName = model.name.value + "Model"
        let classNames = Dictionary(model.entities.map { ($0.swiftClassName, $0) }, uniquingKeysWith: { first, _ in first })
        for composite in model.composites {
            let name = composite.name
            checkTypeName(name, kind: "composite name")
            if let entity = classNames[name.value] {
                error(.nameCollision, "composite name '\(name.value)' collides with the class of entity '\(entity.name.value)'; a composite is a Swift struct of its own",
                      at: name.location, notes: [.init("the class is named here", at: entity.swiftClassNameLocation)])
            } else if name.value == modelTypeName {
                error(.nameCollision, "composite name '\(name.value)' collides with the generated model type '\(modelTypeName)'", at: name.location)
            } else if name.value.hasSuffix("Keys"), let entity = classNames[String(name.value.dropLast(4))], model.codegen(of: entity) != .none {
                error(.nameCollision, "composite name '\(name.value)' collides with the key-name constants generated for entity '\(entity.name.value)'", at: name.location)
            }
            for field in composite.attributes { checkCompositeField(field, of: composite) }
        }
        checkCompositeCycles()
    }

    private func checkCompositeField(_ field: Attribute, of composite: CompositeType) {
        func what() -> String { "field '\(composite.name.value).\(field.name.value)'" }
        let text = field.name.value
        if !SwiftNames.isIdentifier(text) {
            error(.invalidIdentifier, "field name '\(text)' is not a Swift identifier (letters, digits and '_', not starting with a digit)", at: field.name.location)
        } else if !SwiftNames.startsLowerCase(text) {
            error(.nameCase, "field name '\(text)' must start with a lower-case letter", at: field.name.location,
                  notes: [.init("did you mean '\(text.prefix(1).lowercased() + text.dropFirst())'?")])
        }
        let type = field.type.value
        if type.holdsSwiftValues {
            error(.invalidComposite, "\(what()) is \(type.rawValue); a composite's fields hold stored scalar values (string, numbers, bool, date, binary, uuid, uri) or another composite",
                  at: field.type.location)
            return
        }
        if type.isNumeric && field.isOptional {
            warning(.optionalNumber, "optional numeric \(what()): SQL NULL compares unlike 0 in predicates and sorts; prefer a non-optional field with a default",
                    at: field.optionalLocation ?? field.name.location,
                    notes: [.init("use 'default: 0' and drop the optional, or run with --strict to make this an error")])
        }
        if let regex = field.regex, type != .string {
            error(.inapplicableOption, "'regex' applies to string fields only, not \(type.rawValue)", at: regex.location)
        }
        checkBounds(field, what: what())
    }

    /// Reports each composite that contains itself, directly or through others, at the field that closes the loop.
    private func checkCompositeCycles() {
        var finished: Set<String> = []
        for composite in model.composites {
            var path: [(composite: String, field: Attribute)] = []
            visit(composite.name.value, path: &path, finished: &finished)
        }
    }

    private func visit(_ name: String, path: inout [(composite: String, field: Attribute)], finished: inout Set<String>) {
        guard !finished.contains(name), let composite = model.composite(named: name) else { return }
        for field in composite.attributes {
            guard field.type.value == .composite, let target = field.composite else { continue }
            if target.value == name || path.contains(where: { $0.composite == target.value }) {
                let start = path.firstIndex { $0.composite == target.value } ?? path.count
                let loop = (path[start...].map { "\($0.composite).\($0.field.name.value)" } + ["\(name).\(field.name.value)"]).joined(separator: " → ")
                error(.invalidComposite, "composite '\(target.value)' contains itself (\(loop)); a composite's value cannot hold another of its own type",
                      at: target.location)
                continue
            }
            path.append((name, field))
            visit(target.value, path: &path, finished: &finished)
            path.removeLast()
        }
        finished.insert(name)
    }

    /// The rules of an entity attribute whose type is a composite.
    func checkCompositeAttribute(_ attribute: Attribute, what: @autoclosure () -> String) {
        if attribute.isTransient {
            error(.inapplicableOption, "composite \(what()) cannot be transient; composites are stored (use an undefined attribute for values code keeps)",
                  at: attribute.type.location)
        }
        if let derivation = attribute.derivation {
            error(.inapplicableOption, "composite \(what()) cannot be derived", at: derivation.source.location(atOffset: 0))
        }
        if let renaming = attribute.renamingIdentifier {
            error(.inapplicableOption, "composite \(what()) cannot take a renamingIdentifier: its fields are stored as columns of their own, which migrations do not rename", at: renaming.location)
        }
        if let modifier = attribute.versionHashModifier {
            error(.inapplicableOption, "composite \(what()) cannot take a versionHashModifier: its fields are stored as columns of their own; give the entity one", at: modifier.location)
        }
    }
}
