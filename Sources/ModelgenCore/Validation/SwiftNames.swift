/// Swift naming rules the validator applies to names that become Swift code.
enum SwiftNames {
    /// Swift keywords: allowed as property names (the emitter escapes them with backticks), never as type names.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "package", "private",
        "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if",
        "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil",
        "self", "Self", "super", "throws", "true", "try", "_",
    ]

    /// Names a modeled property must not take: the public properties of the runtime's `ManagedObject`
    /// (`RuntimeMemberNames`, read from its sources: a generated property would redeclare them), and the
    /// methods and Swift/Foundation members that NSManagedObject reserves, which users of Core Data expect
    /// to keep their meaning (the runtime's behaviour relies on them, as Core Data forbids overriding them).
    static let reservedPropertyNames: Set<String> = RuntimeMemberNames.all.union([
        "hash", "hashValue", "self", "class", "superclass", "zone", "isProxy",
        "primitiveValue", "setPrimitiveValue", "value", "setValue", "changedValues", "committedValues",
        "awakeFromInsert", "awakeFromFetch", "didTurnIntoFault", "willSave", "didSave", "validateForInsert",
        "validateForUpdate", "validateForDelete", "validateValue", "observeDependencies",
    ])

    /// Type names an entity or class may not take: the runtime's own types (`RuntimeTypeNames`, read from
    /// its sources) and the Swift and Foundation types generated code names, which a class of that name
    /// would shadow.
    static let reservedTypeNames: Set<String> = RuntimeTypeNames.all.union([
        "ModelgenRuntime",
        // Swift and Foundation types used by generated code
        "Any", "AnyObject", "Self", "Type", "Protocol", "String", "Bool", "Int", "Int16", "Int32", "Int64",
        "Float", "Double", "Decimal", "Date", "Data", "UUID", "URL", "Set", "Array", "Dictionary", "Optional",
        "Never", "Void", "Error", "Result", "Sendable", "Hashable", "Equatable", "Codable", "Foundation", "Swift",
        "Predicate",
    ])

    /// Members of the generated model type, which a fetch request's function may not be named.
    static let modelTypeMembers: Set<String> = ["model", "fetchRequest"]

    /// Whether `name` can name a fetch request's generated function: a lower-camel identifier that is
    /// no member of the generated model type.
    static func canNameFetchFunction(_ name: String) -> Bool {
        isIdentifier(name) && startsLowerCase(name) && !modelTypeMembers.contains(name)
    }

    /// True for a Swift identifier: a letter or `_`, then letters, digits or `_` (no keyword check).
    static func isIdentifier(_ name: String) -> Bool {
        // ASCII fast path: the common case, without Unicode property look-ups.
        var ascii = true
        var first = true
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"): break
            case UInt8(ascii: "0")...UInt8(ascii: "9") where !first: break
            case 0x80...: ascii = false
            default: return false
            }
            first = false
            if !ascii { break }
        }
        if ascii { return !name.isEmpty }
        guard let first = name.unicodeScalars.first else { return false }
        guard first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    /// True when the first character is an upper-case letter.
    static func startsUpperCase(_ name: String) -> Bool {
        if let byte = name.utf8.first, byte < 0x80 { return (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
        return name.unicodeScalars.first.map { $0.properties.isUppercase } ?? false
    }

    /// True when the first character is a lower-case letter.
    static func startsLowerCase(_ name: String) -> Bool {
        if let byte = name.utf8.first, byte < 0x80 { return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
        return name.unicodeScalars.first.map { $0.properties.isLowercase } ?? false
    }

    /// True for a Swift type written as a type name: `Name`, `Module.Name`, `Name<Arg, …>`, `[T]`, `[K: V]`, `T?`.
    static func isTypeExpression(_ text: String) -> Bool {
        var scalars = Array(text.unicodeScalars.filter { $0 != " " })[...]
        func type() -> Bool {
            if scalars.first == "[" {
                scalars = scalars.dropFirst()
                guard type() else { return false }
                if scalars.first == ":" {
                    scalars = scalars.dropFirst()
                    guard type() else { return false }
                }
                guard scalars.first == "]" else { return false }
                scalars = scalars.dropFirst()
            } else {
                repeat {
                    let name = scalars.prefix { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
                    guard !name.isEmpty, isIdentifier(String(String.UnicodeScalarView(name))) else { return false }
                    scalars = scalars.dropFirst(name.count)
                    if scalars.first == "<" {
                        scalars = scalars.dropFirst()
                        repeat {
                            guard type() else { return false }
                        } while scalars.first == "," && { scalars = scalars.dropFirst(); return true }()
                        guard scalars.first == ">" else { return false }
                        scalars = scalars.dropFirst()
                    }
                } while scalars.first == "." && { scalars = scalars.dropFirst(); return true }()
            }
            while scalars.first == "?" { scalars = scalars.dropFirst() }
            return true
        }
        return type() && scalars.isEmpty
    }

    /// The Swift parameter name of a `$VARIABLE`: `MIN_LIKES` → `minLikes`, `name` → `name`, `tagIDs` → `tagIDs`.
    static func parameterName(forVariable variable: String) -> String {
        let parts = variable.split(separator: "_").map(String.init)
        guard !parts.isEmpty else { return variable }
        let isScreaming = !variable.contains(where: \.isLowercase)
        if parts.count == 1 && !isScreaming {
            return parts[0].prefix(1).lowercased() + parts[0].dropFirst()
        }
        return parts.enumerated().map { index, part in
            let lower = isScreaming ? part.lowercased() : part
            return index == 0 ? lower.prefix(1).lowercased() + lower.dropFirst() : lower.prefix(1).uppercased() + lower.dropFirst()
        }.joined()
    }
}
