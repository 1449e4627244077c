/// What a migration needs of one version of a model, as plain values: entities with their stored and
/// validated properties, constraints and indexes, without classes, codecs or key paths. It reads and
/// writes `ArchiveLine`s: `M` (the model), then each entity's `E` line followed by its `A`, `R`, `F`,
/// `U`, `I` and `D` lines.
public struct ArchivedModel: Sendable, Equatable {
    /// The model's name.
    public var name: String
    /// The entities, in the model's order.
    public var entities: [ArchivedEntity]

    /// A model of `entities`.
    public init(name: String, entities: [ArchivedEntity]) {
        self.name = name
        self.entities = entities
    }

    /// The model's lines.
    public var lines: [String] {
        var lines = [ArchiveLine("M", [name]).text]
        for entity in entities { lines += entity.lines }
        return lines
    }

    /// The model `lines` describe; throws when they are not an archived model.
    public init(lines: some Sequence<String>) throws(ArchiveError) {
        var iterator = lines.makeIterator()
        guard let first = iterator.next(), let header = ArchiveLine(text: first, fieldCount: 1), header.kind == "M" else {
            throw ArchiveError("an archived model starts with its name")
        }
        name = header.fields[0]
        entities = []
        while let text = iterator.next() {
            guard let kind = text.first else { throw ArchiveError("an empty line") }
            func line(_ fields: Int) throws(ArchiveError) -> ArchiveLine {
                guard let line = ArchiveLine(text: text, fieldCount: fields) else { throw ArchiveError("not a line of its kind: \(text)") }
                return line
            }
            if kind == "E" {
                entities.append(ArchivedEntity(line: try line(1)))
                continue
            }
            guard !entities.isEmpty else { throw ArchiveError("a property before any entity: \(text)") }
            let last = entities.count - 1
            switch kind {
            case "A": entities[last].attributes.append(try ArchivedAttribute(line: try line(2)))
            case "R": entities[last].relationships.append(ArchivedRelationship(line: try line(2)))
            case "F": entities[last].fetchedProperties.append(ArchivedFetchedProperty(line: try line(3)))
            case "U": entities[last].unique.append(ArchivedEntity.names(try line(1).fields[0]))
            case "I": entities[last].indexes.append(ArchivedEntity.names(try line(1).fields[0]))
            case "D":
                let dependency = try line(2)
                entities[last].dependencies[dependency.fields[0]] = ArchivedEntity.names(dependency.fields[1])
            default: throw ArchiveError("a line of an unknown kind: \(text)")
            }
        }
    }

    /// Models are equal when their lines are.
    public static func == (a: ArchivedModel, b: ArchivedModel) -> Bool { a.lines == b.lines }
}

/// Why archived text could not be read.
public struct ArchiveError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// Free-form entries, written in key order as `info.KEY` options.
public typealias ArchivedUserInfo = [String: String]

extension ArchiveLine {
    mutating func set(userInfo: ArchivedUserInfo) {
        for entry in userInfo.sorted(by: { $0.key < $1.key }) { set("info." + entry.key, entry.value) }
    }

    var userInfo: ArchivedUserInfo {
        Dictionary(options.filter { $0.name.hasPrefix("info.") }.map { (String($0.name.dropFirst(5)), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The options every element that a release may rename has: its former name, its version hash
    /// modifier and its user info.
    mutating func setRenaming(_ renamingIdentifier: String?, hashModifier: String?, userInfo: ArchivedUserInfo) {
        set("rename", renamingIdentifier)
        set("hash", hashModifier)
        set(userInfo: userInfo)
    }

    mutating func set(_ name: String, _ value: String?) {
        if let value { set(name, value) }
    }

    mutating func set(_ name: String, _ flag: Bool, default: Bool = false) {
        if flag != `default` { set(name, flag ? "1" : "0") }
    }

    func flag(_ name: String, default: Bool = false) -> Bool {
        option(name).map { $0 == "1" } ?? `default`
    }
}

/// An entity of an archived model.
public struct ArchivedEntity: Sendable {
    /// Its name.
    public var name: String
    /// Whether it has no instances of its own.
    public var isAbstract = false
    /// Its parent entity.
    public var parent: String?
    /// The name a released version used.
    public var renamingIdentifier: String?
    /// Its version hash modifier.
    public var versionHashModifier: String?
    /// Its own attributes (a composite's as its stored fields).
    public var attributes: [ArchivedAttribute] = []
    /// Its own relationships.
    public var relationships: [ArchivedRelationship] = []
    /// Its fetched properties.
    public var fetchedProperties: [ArchivedFetchedProperty] = []
    /// Its uniqueness constraints.
    public var unique: [[String]] = []
    /// Its indexes.
    public var indexes: [[String]] = []
    /// Its computed properties' dependencies, by property name.
    public var dependencies: [String: [String]] = [:]
    /// Free-form entries.
    public var userInfo: ArchivedUserInfo = [:]

    /// An entity named `name` with nothing else yet.
    public init(name: String) {
        self.name = name
    }

    init(line: ArchiveLine) {
        name = line.fields[0]
        isAbstract = line.flag("abstract")
        parent = line.option("parent")
        renamingIdentifier = line.option("rename")
        versionHashModifier = line.option("hash")
        userInfo = line.userInfo
    }

    static func names(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    var lines: [String] {
        var header = ArchiveLine("E", [name])
        header.set("abstract", isAbstract)
        header.set("parent", parent)
        header.setRenaming(renamingIdentifier, hashModifier: versionHashModifier, userInfo: userInfo)
        var lines = [header.text]
        lines += attributes.map(\.line.text)
        lines += relationships.map(\.line.text)
        lines += fetchedProperties.map(\.line.text)
        lines += unique.map { ArchiveLine("U", [$0.joined(separator: ",")]).text }
        lines += indexes.map { ArchiveLine("I", [$0.joined(separator: ",")]).text }
        lines += dependencies.sorted { $0.key < $1.key }.map { ArchiveLine("D", [$0.key, $0.value.joined(separator: ",")]).text }
        return lines
    }
}

/// A value an attribute starts with, as text of its kind.
public enum ArchivedValue: Sendable, Hashable {
    /// A Boolean.
    case bool(Bool)
    /// An integer.
    case int(Int64)
    /// A float or double.
    case double(Double)
    /// A decimal, as `Decimal`'s description writes it.
    case decimal(String)
    /// Text.
    case string(String)
    /// A date, as seconds since 2001-01-01 00:00:00 GMT.
    case date(Double)
    /// A UUID, as its `uuidString`.
    case uuid(String)
    /// A URL, as its `absoluteString`.
    case url(String)

    var text: String {
        switch self {
        case .bool(let value): return "b:" + (value ? "1" : "0")
        case .int(let value): return "i:\(value)"
        case .double(let value): return "d:\(value)"
        case .decimal(let value): return "m:" + value
        case .string(let value): return "s:" + value
        case .date(let value): return "t:\(value)"
        case .uuid(let value): return "u:" + value
        case .url(let value): return "r:" + value
        }
    }

    init(text: String) throws(ArchiveError) {
        let kind = text.prefix(2), value = String(text.dropFirst(2))
        switch kind {
        case "b:": self = .bool(value == "1")
        case "i:": guard let int = Int64(value) else { throw ArchiveError("not an integer: \(value)") }; self = .int(int)
        case "d:": guard let double = Double(value) else { throw ArchiveError("not a number: \(value)") }; self = .double(double)
        case "m:": self = .decimal(value)
        case "s:": self = .string(value)
        case "t:": guard let seconds = Double(value) else { throw ArchiveError("not a date: \(value)") }; self = .date(seconds)
        case "u:": self = .uuid(value)
        case "r:": self = .url(value)
        default: throw ArchiveError("not a value: \(text)")
        }
    }
}

/// An attribute of an archived entity.
public struct ArchivedAttribute: Sendable {
    /// Its name.
    public var name: String
    /// Its type, as the runtime's `AttributeType` names it.
    public var type: String
    /// Whether it may be nil.
    public var isOptional = false
    /// Whether it is never stored.
    public var isTransient = false
    /// Its default value.
    public var defaultValue: ArchivedValue?
    /// Its least value or length.
    public var minimum: Double?
    /// Its greatest value or length.
    public var maximum: Double?
    /// The pattern its text must match.
    public var regex: String?
    /// Whether large values may live beside the store.
    public var allowsExternalStorage = false
    /// Its derivation.
    public var derivation: String?
    /// The name a released version used.
    public var renamingIdentifier: String?
    /// Its version hash modifier.
    public var versionHashModifier: String?
    /// Free-form entries.
    public var userInfo: ArchivedUserInfo = [:]

    /// An attribute `name` of `type`.
    public init(name: String, type: String) {
        self.name = name
        self.type = type
    }

    init(line: ArchiveLine) throws(ArchiveError) {
        name = line.fields[0]
        type = line.fields[1]
        isOptional = line.flag("optional")
        isTransient = line.flag("transient")
        defaultValue = try line.option("default").map { text throws(ArchiveError) in try ArchivedValue(text: text) }
        minimum = line.option("min").flatMap(Double.init)
        maximum = line.option("max").flatMap(Double.init)
        regex = line.option("regex")
        allowsExternalStorage = line.flag("external")
        derivation = line.option("derived")
        renamingIdentifier = line.option("rename")
        versionHashModifier = line.option("hash")
        userInfo = line.userInfo
    }

    var line: ArchiveLine {
        var line = ArchiveLine("A", [name, type])
        line.set("optional", isOptional)
        line.set("transient", isTransient)
        line.set("default", defaultValue?.text)
        line.set("min", minimum.map { "\($0)" })
        line.set("max", maximum.map { "\($0)" })
        line.set("regex", regex)
        line.set("external", allowsExternalStorage)
        line.set("derived", derivation)
        line.setRenaming(renamingIdentifier, hashModifier: versionHashModifier, userInfo: userInfo)
        return line
    }
}

/// A relationship of an archived entity.
public struct ArchivedRelationship: Sendable {
    /// Its name.
    public var name: String
    /// The destination entity.
    public var destination: String
    /// The inverse relationship.
    public var inverse: String?
    /// Whether it holds several objects.
    public var isToMany = false
    /// Whether its objects keep an order.
    public var isOrdered = false
    /// Whether it may be empty.
    public var isOptional = true
    /// Whether it is never stored.
    public var isTransient = false
    /// Its delete rule, as the runtime's `DeleteRule` names it.
    public var deleteRule = "nullify"
    /// The least number of objects.
    public var minCount: Int?
    /// The greatest number of objects.
    public var maxCount: Int?
    /// The name a released version used.
    public var renamingIdentifier: String?
    /// Its version hash modifier.
    public var versionHashModifier: String?
    /// Free-form entries.
    public var userInfo: ArchivedUserInfo = [:]

    /// A relationship `name` to `destination`.
    public init(name: String, destination: String) {
        self.name = name
        self.destination = destination
    }

    init(line: ArchiveLine) {
        name = line.fields[0]
        destination = line.fields[1]
        inverse = line.option("inverse")
        isToMany = line.flag("toMany")
        isOrdered = line.flag("ordered")
        isOptional = line.flag("optional", default: true)
        isTransient = line.flag("transient")
        deleteRule = line.option("delete") ?? "nullify"
        minCount = line.option("min").flatMap { Int($0) }
        maxCount = line.option("max").flatMap { Int($0) }
        renamingIdentifier = line.option("rename")
        versionHashModifier = line.option("hash")
        userInfo = line.userInfo
    }

    var line: ArchiveLine {
        var line = ArchiveLine("R", [name, destination])
        line.set("inverse", inverse)
        line.set("toMany", isToMany)
        line.set("ordered", isOrdered)
        line.set("optional", isOptional, default: true)
        line.set("transient", isTransient)
        if deleteRule != "nullify" { line.set("delete", deleteRule) }
        line.set("min", minCount.map(String.init))
        line.set("max", maxCount.map(String.init))
        line.setRenaming(renamingIdentifier, hashModifier: versionHashModifier, userInfo: userInfo)
        return line
    }
}

/// A fetched property of an archived entity.
public struct ArchivedFetchedProperty: Sendable {
    /// Its name.
    public var name: String
    /// The entity it fetches.
    public var destination: String
    /// Its predicate.
    public var predicate: String
    /// Its sort descriptors.
    public var sort: [String] = []
    /// Free-form entries.
    public var userInfo: ArchivedUserInfo = [:]

    /// A fetched property `name` of `destination` objects matching `predicate`.
    public init(name: String, destination: String, predicate: String) {
        self.name = name
        self.destination = destination
        self.predicate = predicate
    }

    init(line: ArchiveLine) {
        name = line.fields[0]
        destination = line.fields[1]
        predicate = line.fields[2]
        sort = line.option("sort").map { $0.split(separator: "\n").map(String.init) } ?? []
        userInfo = line.userInfo
    }

    var line: ArchiveLine {
        var line = ArchiveLine("F", [name, destination, predicate])
        if !sort.isEmpty { line.set("sort", sort.joined(separator: "\n")) }
        line.set(userInfo: userInfo)
        return line
    }
}
