import Foundation

extension ModelValidator {
    func checkAttribute(_ attribute: Attribute, in entity: Entity) {
        let name = attribute.name.value
        let type = attribute.type.value
        let entityName = entity.name.value   // captured alone: capturing `entity` copied it whole
        func what() -> String { "attribute '\(entityName).\(name)'" }
        checkPropertyName(attribute.name, kind: "attribute", in: entity)
        if type == .composite { checkCompositeAttribute(attribute, what: what()) }

        if type.isNumeric && attribute.isOptional && !attribute.isTransient {
            warning(.optionalNumber, "optional numeric \(what()): SQL NULL compares unlike 0 in predicates and sorts; prefer a non-optional attribute with a default",
                    at: attribute.optionalLocation ?? attribute.name.location,
                    notes: [.init("use 'default: 0' and drop the optional, or run with --strict to make this an error")])
        }

        // swiftType, transformer, externalStorage: each only where it means something.
        if let swiftType = attribute.swiftType {
            if !(type == .string || type.isInteger || type.holdsSwiftValues) {
                error(.inapplicableOption, "'swiftType' applies to string, integer, transformable and undefined attributes, not \(type.rawValue)", at: swiftType.location)
            } else if !SwiftNames.isTypeExpression(swiftType.value) {
                error(.invalidIdentifier, "'swiftType' '\(swiftType.value)' is not a Swift type name", at: swiftType.location)
            }
        } else if type == .transformable {
            error(.missingSwiftType, "transformable \(what()) needs 'swiftType' (a Codable type, or the type its transformer produces)", at: attribute.type.location)
        } else if type == .undefined {
            error(.missingSwiftType, "undefined \(what()) needs 'swiftType' (the Swift type of the values code sets)", at: attribute.type.location)
        }
        if type == .undefined && !attribute.isTransient {
            error(.storedUndefined, "undefined \(what()) must be 'transient: true': an attribute without a type holds values code sets and is never stored (give it a type to store it)",
                  at: attribute.type.location)
        }
        if let transformer = attribute.transformer {
            if type != .transformable {
                error(.inapplicableOption, "'transformer' applies to transformable attributes only, not \(type.rawValue)", at: transformer.location)
            } else if !SwiftNames.isTypeExpression(transformer.value) {
                error(.invalidIdentifier, "'transformer' '\(transformer.value)' is not a Swift type name", at: transformer.location)
            }
        }
        if let external = attribute.allowsExternalStorage, external.value, type != .binary {
            error(.inapplicableOption, "'externalStorage' applies to binary attributes only, not \(type.rawValue)", at: external.location)
        }
        if let regex = attribute.regex, type != .string {
            error(.inapplicableOption, "'regex' applies to string attributes only, not \(type.rawValue)", at: regex.location)
        }
        if let renaming = attribute.renamingIdentifier, renaming.value == name {
            warning(.redundantRenaming, "renamingIdentifier '\(renaming.value)' is the attribute's own name; it names the former name, for migration", at: renaming.location)
        }

        checkBounds(attribute, what: what())
        if let derivation = attribute.derivation { checkDerivation(derivation, of: attribute, in: entity) }
    }

    func checkBounds(_ attribute: Attribute, what: @autoclosure () -> String) {
        let type = attribute.type.value
        // min <= max.
        if let min = attribute.minimum, let max = attribute.maximum,
           let low = min.value.comparableNumber, let high = max.value.comparableNumber, low > high {
            error(.invalidBounds, "min \(min.value) is greater than max \(max.value) in \(what())", at: min.location,
                  notes: [.init("max is here", at: max.location)])
        }
        // The default lies within the bounds (lengths for string and binary).
        if let value = attribute.defaultValue {
            let measure: Decimal?
            switch value.value {
            case .string(let s): measure = Decimal(s.count)
            default: measure = type.boundsAreLengths ? nil : value.value.comparableNumber
            }
            let unit = type == .string ? " characters" : ""
            if let measure, let min = attribute.minimum?.value.comparableNumber, measure < min {
                error(.invalidDefault, "default '\(value.value)' of \(what()) is below its min \(attribute.minimum!.value)\(unit)", at: value.location)
            }
            if let measure, let max = attribute.maximum?.value.comparableNumber, measure > max {
                error(.invalidDefault, "default '\(value.value)' of \(what()) is above its max \(attribute.maximum!.value)\(unit)", at: value.location)
            }
        }
        // The regex compiles, and the default matches it.
        if let regex = attribute.regex, type == .string {
            if let expression = regexes.expression(for: regex.value) {
                if case .string(let text)? = attribute.defaultValue?.value {
                    let range = NSRange(text.startIndex..., in: text)
                    let match = expression.firstMatch(in: text, options: [.anchored], range: range)
                    if match?.range != range {
                        error(.invalidDefault, "default '\(text)' of \(what()) does not match its regex '\(regex.value)'", at: attribute.defaultValue!.location)
                    }
                }
            } else {
                error(.invalidRegex, "regex '\(regex.value)' of \(what()) does not compile", at: regex.location)
            }
        }
    }
}
