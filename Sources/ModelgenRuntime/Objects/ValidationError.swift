import Foundation

/// Every validation failure of a save (or of one object), in one error.
public struct ValidationError: Error, CustomStringConvertible {
    /// One failure: an object, the property (nil for the object as a whole) and what is wrong.
    public struct Failure: Error, CustomStringConvertible {
        /// The object that failed.
        public var objectID: ObjectID
        /// Its entity.
        public var entityName: String
        /// The property that failed (nil: the object as a whole, as a uniqueness constraint or a `validateForSave` hook reports).
        public var key: String?
        /// What is wrong, in words.
        public var message: String

        /// Creates a failure for an object's property.
        public init(object: ManagedObject, key: String?, message: String) {
            objectID = object.objectID
            entityName = object.entity.name
            self.key = key
            self.message = message
        }

        /// Creates a failure for a record (for stores, which check constraints that span rows inside
        /// their committing transaction and hold no objects).
        public init(objectID: ObjectID, key: String?, message: String) {
            self.objectID = objectID
            entityName = objectID.entityName
            self.key = key
            self.message = message
        }

        public var description: String { "\(entityName)\(key.map { ".\($0)" } ?? "") (\(objectID)): \(message)" }
    }

    /// The failures, in the order found.
    public var failures: [Failure]

    /// Creates an error from failures.
    public init(_ failures: [Failure]) { self.failures = failures }

    public var description: String {
        "validation failed with \(failures.count) error\(failures.count == 1 ? "" : "s"):\n" + failures.map { "  " + $0.description }.joined(separator: "\n")
    }
}

extension ManagedObject {
    /// Model constraints of every property, then the custom hook; throws all failures at once.
    final func validateProperties() throws {
        fireFaultIfNeeded()
        var failures: [ValidationError.Failure] = []
        let slots = _slots
        // Each value boxed into an `Any?` for a hook nothing overrode costs a tenth of a large save.
        let callsValidateValue = entity.mayValidateValues
        for (slot, step) in entity.validationSteps.enumerated() {
            let value = slots[slot]
            switch step.check {
            case .presence(let required):
                if required, case .null = value { failures.append(.init(object: self, key: step.key, message: "is required")) }
            case .constraints(let a):
                validate(value, of: a, into: &failures)
            case .relationship(let r):
                switch value {
                case .null where !r.isToMany && !r.isOptional:
                    failures.append(.init(object: self, key: r.name, message: "is required"))
                case .objects(let list):
                    if !r.isOptional && list.isEmpty && (r.minCount ?? 0) == 0 {
                        failures.append(.init(object: self, key: r.name, message: "needs at least 1 object"))
                    }
                    if let min = r.minCount, list.count < min {
                        failures.append(.init(object: self, key: r.name, message: "has \(list.count) objects, needs at least \(min)"))
                    }
                    if let max = r.maxCount, list.count > max {
                        failures.append(.init(object: self, key: r.name, message: "has \(list.count) objects, allows at most \(max)"))
                    }
                default: break
                }
            }
            guard callsValidateValue else { continue }
            do {
                try validateValue(value.anyValue, forKey: step.key)
            } catch let failure as ValidationError.Failure {
                failures.append(failure)
            } catch let error as ValidationError {
                failures += error.failures
            } catch {
                failures.append(.init(object: self, key: step.key, message: "\(error)"))
            }
        }
        if !failures.isEmpty { throw ValidationError(failures) }
    }

    private func validate(_ value: SlotValue, of a: AttributeDescription, into failures: inout [ValidationError.Failure]) {
        if let problem = Self.problem(of: value, for: a) { failures.append(.init(object: self, key: a.name, message: problem)) }
    }

    /// What the model's constraints of an attribute refuse in a value (required, min/max, length,
    /// regex, an encodable transformable), in words; nil when it passes. Also for batch updates and
    /// inserts, which hold values, not objects.
    static func problem(of value: SlotValue, for a: AttributeDescription) -> String? {
        func fail(_ message: String) -> String? { message }
        if case .null = value {
            if !a.isOptional && a.derivation == nil { return fail("is required") }
            return nil
        }
        let bounded = a.minimum != nil || a.maximum != nil
        let measure: Double?
        var unit = ""
        switch value {
        case .int(let v): measure = Double(v)
        case .double(let v): measure = v
        case .decimal(let v): measure = bounded ? NSDecimalNumber(decimal: v).doubleValue : nil
        case .date(let v): measure = v.timeIntervalSinceReferenceDate
        case .string(let s):
            // Counting characters walks the string: only for bounded attributes.
            measure = bounded ? Double(s.count) : nil
            unit = " characters"
            if let pattern = a.regex, !RegexCache.matches(pattern, s) {
                return fail("'\(s)' does not match \(pattern)")
            }
        case .data(let d):
            measure = Double(d.count)
            unit = " bytes"
        case .transformable(let box):
            // A value its codec cannot encode would otherwise be stored as nothing.
            if !a.isTransient, let codec = a.codec {
                do { _ = try codec.encode(box.value) } catch { return fail("cannot be encoded for storing: \(error)") }
            }
            measure = nil
        default: measure = nil
        }
        if let measure, let min = a.minimum, measure < min { return fail("is below the minimum \(Self.format(min))\(unit)") }
        if let measure, let max = a.maximum, measure > max { return fail("is above the maximum \(Self.format(max))\(unit)") }
        return nil
    }

    private static func format(_ d: Double) -> String {
        d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }

    /// `deny` relationships block the delete while they hold objects.
    final func validateDeleteRules() throws {
        fireFaultIfNeeded()
        var failures: [ValidationError.Failure] = []
        for (slot, property) in entity.properties.enumerated() {
            guard case .relationship(let r) = property, r.deleteRule == .deny else { continue }
            let blocking = objects(inSlot: slot).filter { !$0._isDeleted }
            if !blocking.isEmpty {
                failures.append(.init(object: self, key: r.name,
                                      message: "delete denied: still related to \(blocking.map { $0.objectID.description }.joined(separator: ", "))"))
            }
        }
        if !failures.isEmpty { throw ValidationError(failures) }
    }
}

/// Compiled regular expressions by pattern, shared by all validations.
enum RegexCache {
    private static let cache = Locked<[String: NSRegularExpression?]>([:])

    static func matches(_ pattern: String, _ text: String) -> Bool {
        let expression: NSRegularExpression? = cache.withLock { cache in
            if let cached = cache[pattern] { return cached }
            let compiled = try? NSRegularExpression(pattern: pattern)
            cache[pattern] = .some(compiled)
            return compiled
        }
        guard let expression else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return expression.firstMatch(in: text, options: [.anchored], range: range)?.range == range
    }
}

/// What saving validates in one slot, worked out from the model once per entity.
struct ValidationStep {
    enum Check {
        /// An attribute without bounds, pattern or codec: only whether a required value is there.
        case presence(required: Bool)
        /// An attribute with bounds, a pattern or a value to encode: every check of `validate(_:of:into:)`.
        case constraints(AttributeDescription)
        /// A relationship: required to-one, to-many counts.
        case relationship(RelationshipDescription)
    }

    let key: String
    let check: Check

    init(_ property: PropertyDescription) {
        key = property.name
        switch property {
        case .attribute(let a):
            let constrained = a.minimum != nil || a.maximum != nil || a.regex != nil || (a.type == .transformable && a.codec != nil)
            check = constrained ? .constraints(a) : .presence(required: !a.isOptional && a.derivation == nil)
        case .relationship(let r):
            check = .relationship(r)
        }
    }
}

extension ValidationError {
    /// The failures a validation hook reports for `object`: a `ValidationError`'s, one `Failure`, or
    /// any other error as a failure of the whole object; none when it returns.
    static func failures(of object: ManagedObject, in validation: () throws -> Void) -> [Failure] {
        do {
            try validation()
            return []
        } catch let error as ValidationError {
            return error.failures
        } catch let failure as ValidationError.Failure {
            return [failure]
        } catch {
            return [.init(object: object, key: nil, message: "\(error)")]
        }
    }
}
