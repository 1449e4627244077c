import ModelgenPredicate

extension ModelValidator {
    func checkFetchedProperty(_ property: FetchedProperty, in entity: Entity) {
        checkPropertyName(property.name, kind: "fetched property", in: entity)
        guard requireEntity(property.destination, "destination of fetched property '\(entity.name.value).\(property.name.value)'") else { return }
        if let parsed = property.predicate {
            var checker = PredicateChecker(validator: self, entity: property.destination.value, source: parsed.source,
                                           policy: .fetchSource(owner: entity.name.value, userInfo: property.userInfo.map(\.key.value)))
            checker.check(parsed.predicate)
        }
        checkSortDescriptors(property.sortDescriptors, entity: property.destination.value)
    }

    func checkFetchRequest(_ template: FetchRequestTemplate) {
        let name = template.name
        let function = template.functionName
        let what = template.swiftName == nil ? "fetch request name" : "swiftName"
        let fix = template.swiftName == nil ? " (or give it a swiftName, keeping the template's name)" : ""
        if name.value.isEmpty {
            error(.missingKey, "a fetch request needs a name", at: name.location)
        } else if !SwiftNames.isIdentifier(function.value) || !SwiftNames.startsLowerCase(function.value) {
            error(.invalidIdentifier, "\(what) '\(function.value)' must be a lower-camel Swift identifier: it names a generated function\(fix)", at: function.location)
        } else if SwiftNames.modelTypeMembers.contains(function.value) {
            error(.nameCollision, "\(what) '\(function.value)' collides with a member of the generated model type\(fix.isEmpty ? "" : ", e.g. swiftName: \(function.value)Template")", at: function.location)
        }
        guard requireEntity(template.entity, "entity of fetch request '\(name.value)'") else { return }

        var inferred: [(name: String, type: PredicateValueType)] = []
        if let parsed = template.predicate {
            var checker = PredicateChecker(validator: self, entity: template.entity.value, source: parsed.source, policy: .inferred)
            checker.check(parsed.predicate)
            inferred = checker.variables
        }
        if template.isAggregate {
            if let first = template.properties.first {
                error(.inapplicableOption, "fetch request '\(name.value)' asks for groups (groupBy, columns) and for values of each record (properties); make two templates",
                      at: first.source.location(atOffset: first.descriptor.range.start))
            }
            aggregateRows[name.value] = checkAggregate(template, variables: &inferred)
        } else {
            if let having = template.having {
                error(.inapplicableOption, "having filters groups: give fetch request '\(name.value)' groupBy or columns, or filter its objects in predicate",
                      at: having.source.location(atOffset: 0))
            }
            checkSortDescriptors(template.sortDescriptors, entity: template.entity.value)
            if template.isProjection { aggregateRows[name.value] = checkProjection(template) }
        }
        var variables: [TemplateVariable] = []
        var parameterNames: [String: String] = [:]
        let location = (template.predicate ?? template.having)?.source.location ?? name.location
        for variable in inferred {
            let parameter = SwiftNames.parameterName(forVariable: variable.name)
            if let other = parameterNames[parameter] {
                error(.nameCollision, "$\(other) and $\(variable.name) both become the parameter '\(parameter)'; rename one", at: location)
            }
            if !SwiftNames.isIdentifier(parameter) {
                error(.invalidIdentifier, "$\(variable.name) does not make a Swift parameter name", at: location)
            }
            parameterNames[parameter] = variable.name
            variables.append(TemplateVariable(name: variable.name, parameterName: parameter, type: variable.type))
        }
        templateVariables[name.value] = variables
    }

    func checkSortDescriptors(_ descriptors: [ParsedSortDescriptor], entity: String) {
        for parsed in descriptors {
            let checker = PredicateChecker(validator: self, entity: entity, source: parsed.source, policy: .inferred)
            guard let type = checker.resolveKeyPath(parsed.descriptor.keyPath, from: entity, purpose: .sort) else { continue }
            if !type.isOrderable {
                let range = parsed.descriptor.keyPath.first!.range.union(parsed.descriptor.keyPath.last!.range)
                error(.predicateTypeMismatch, "cannot sort by '\(parsed.descriptor.keyPathText)': \(type) has no order", at: parsed.source.location(atOffset: range.start))
            }
        }
    }

    func checkDerivation(_ parsed: ParsedExpression, of attribute: Attribute, in entity: Entity) {
        let target = attribute.type.value
        let checker = PredicateChecker(validator: self, entity: entity.name.value, source: parsed.source, policy: .inferred)
        func report(_ message: String, at range: SourceRange) {
            error(.invalidDerivation, message, at: parsed.source.location(atOffset: range.start))
        }
        if attribute.isTransient {
            error(.inapplicableOption, "derived attribute '\(entity.name.value).\(attribute.name.value)' cannot be transient: derived values are computed on save and stored",
                  at: attribute.name.location)
        }
        let expression = parsed.expression
        switch expression.kind {
        case .keyPath(let components):
            if case .key(let first) = components.first?.kind, first == attribute.name.value, components.count == 1 {
                report("derived attribute '\(attribute.name.value)' cannot derive from itself", at: expression.range)
                return
            }
            guard let type = checker.resolveKeyPath(components, from: entity.name.value, purpose: .derivation) else { return }
            switch type {
            case .attribute(let source, _):
                let fits = source == target || (source.isNumeric && target.isNumeric)
                if !fits {
                    report("derivation '\(expression)' gives \(source.rawValue), but '\(attribute.name.value)' is \(target.rawValue)", at: expression.range)
                }
            case .collection:
                report("derivation '\(expression)' crosses a to-many relationship; aggregate it with @count, @sum, @min, @max or @avg", at: expression.range)
            default:
                report("derivation '\(expression)' gives \(type), not an attribute value", at: expression.range)
            }
        case .function(let name, let arguments):
            switch name {
            case "now":
                if !arguments.isEmpty { report("now() takes no arguments", at: expression.range) }
                if target != .date && target != .double {
                    report("now() gives a date (or, for a double, seconds since 2001-01-01), but '\(attribute.name.value)' is \(target.rawValue)", at: expression.range)
                }
            case "lowercase", "uppercase", "canonical":
                guard arguments.count == 1, case .keyPath(let components) = arguments[0].kind else {
                    report("\(name):() takes one key path to a string attribute, as in \(name):(title)", at: expression.range)
                    return
                }
                if let type = checker.resolveKeyPath(components, from: entity.name.value, purpose: .derivation), !type.isString {
                    report("\(name):() needs a string, but '\(arguments[0])' is \(type)", at: arguments[0].range)
                }
                if target != .string { report("\(name):() gives a string, but '\(attribute.name.value)' is \(target.rawValue)", at: expression.range) }
            default:
                report("unknown derivation function '\(name)'; known: now(), lowercase:(), uppercase:(), canonical:()", at: expression.range)
            }
        default:
            report("a derivation is a key path (posts.@count, author.name) or a function (now(), lowercase:(title)), not '\(expression)'", at: expression.range)
        }
    }

    func checkConfigurations() {
        for configuration in model.configurations {
            if configuration.name.value == "Default" {
                error(.reservedConfiguration, "'Default' is the implicit configuration holding every entity; name this configuration differently", at: configuration.name.location)
            }
            var seen: Set<String> = []
            for name in configuration.entities {
                if !seen.insert(name.value).inserted {
                    error(.duplicateDeclaration, "entity '\(name.value)' is listed twice in configuration '\(configuration.name.value)'", at: name.location)
                    continue
                }
                requireEntity(name, "member of configuration '\(configuration.name.value)'")
            }
        }
    }
}
