/// Rules for computed properties (`computed:`): a Swift name, a type, and dependencies that resolve.
extension ModelValidator {
    func checkComputedProperty(_ property: ComputedProperty, in entity: Entity) {
        checkPropertyName(property.name, kind: "computed property", in: entity)
        func what() -> String { "computed property '\(entity.name.value).\(property.name.value)'" }
        if property.type.value.trimmingCharacters(in: .whitespaces).isEmpty {
            error(.invalidDependency, "'type' of \(what()) is empty; give the Swift type of its value", at: property.type.location)
        }
        if property.dependsOn.isEmpty {
            error(.invalidDependency, "'dependsOn' of \(what()) is empty; name the modeled properties its value is computed from", at: property.name.location)
        }
        for path in property.dependsOn { checkDependency(path, of: what(), in: entity) }
        if dependsOnItself(property.name.value, entity: entity.name.value, via: [], visiting: []) {
            error(.invalidDependency, "\(what()) depends on itself through 'dependsOn'", at: property.name.location)
        }
    }

    /// The computed property of this name on the entity or an ancestor.
    func computedProperty(_ name: String, in entityName: String) -> ComputedProperty? {
        for owner in [graph.entity(entityName)].compactMap({ $0 }) + graph.ancestors(of: entityName) {
            if let property = owner.computedProperties.first(where: { $0.name.value == name }) { return property }
        }
        return nil
    }

    /// True when following `dependsOn` from `name` on `entity` comes back to where it started.
    private func dependsOnItself(_ name: String, entity: String, via path: [String], visiting: Set<String>) -> Bool {
        let key = entity + "." + name
        if visiting.contains(key) { return path.isEmpty ? false : key == path[0] }
        guard let property = computedProperty(name, in: entity) else { return false }
        for dependency in property.dependsOn {
            var owner = entity
            let steps = dependency.value.split(separator: ".").map(String.init)
            for step in steps.dropLast() {
                guard case .relationship(let r, _)? = graph.property(step, in: owner) else { break }
                owner = r.destination.value
            }
            if let last = steps.last, computedProperty(last, in: owner) != nil,
               (owner + "." + last) == (path.first ?? key) || dependsOnItself(last, entity: owner, via: path.isEmpty ? [key] : path, visiting: visiting.union([key])) {
                return true
            }
        }
        return false
    }

    /// `name` or `relationship.name…`: every step but the last a to-one relationship, the last an
    /// attribute or relationship (computed and fetched properties hold no observable value of their own).
    private func checkDependency(_ path: Located<String>, of what: @autoclosure () -> String, in entity: Entity) {
        var owner = entity.name.value
        let steps = path.value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (index, step) in steps.enumerated() {
            let isLast = index == steps.count - 1
            if isLast, computedProperty(step, in: owner) != nil { return }   // another computed property: its dependencies
            switch graph.property(step, in: owner) {
            case .attribute?:
                if !isLast {
                    error(.invalidDependency, "'\(path.value)' in 'dependsOn' of \(what()): '\(step)' is an attribute of '\(owner)', so nothing follows it", at: path.location)
                    return
                }
            case .relationship(let relationship, _)?:
                if isLast { return }
                if relationship.isToMany {
                    error(.invalidDependency, "'\(path.value)' in 'dependsOn' of \(what()): '\(step)' is a to-many relationship; depend on '\(steps[0...index].joined(separator: "."))' itself", at: path.location)
                    return
                }
                owner = relationship.destination.value
            case .fetchedProperty?:
                error(.invalidDependency, "'\(path.value)' in 'dependsOn' of \(what()): '\(step)' is a fetched property, which has no value to observe", at: path.location)
                return
            case nil:
                let names = graph.propertyNames(in: owner)
                let notes = Suggestions.closest(to: step, in: names).map { [Diagnostic.Note("did you mean '\($0)'?")] } ?? []
                error(.invalidDependency, "'\(path.value)' in 'dependsOn' of \(what()): '\(owner)' has no attribute or relationship '\(step)'", at: path.location, notes: notes)
                return
            }
        }
    }
}
