import ClinicVersions
import Foundation
@testable import ModelgenArchive
@testable import ModelgenCore
@testable import ModelgenRuntime
import TestScratch
import Testing

/// Earlier versions as data: what the generator archives of a model file, the runtime decodes into
/// the same description (the same lines again, the same version hash), and a history's edits lead
/// from the current version back to each earlier one.
@Suite struct VersionArchiveTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every model file of the repository that validates: examples, test models, each version of the
    /// version folders, and the Xcode fixtures imported.
    static func models() throws -> [(path: String, model: ObjectModel)] {
        var paths: [String] = []
        for folder in ["Examples", "Tests/Models", "Tests/Fixtures/Versions"] {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let name = enumerator?.nextObject() as? String {
                if name.hasSuffix(".model.yaml") && !name.contains(".build") { paths.append(root.appendingPathComponent(folder).appendingPathComponent(name).path) }
            }
        }
        return try paths.sorted().compactMap { path in
            let check = ModelCheck.run(data: try Data(contentsOf: URL(fileURLWithPath: path)), path: path)
            return check.validated.map { (path, $0.model) }
        }
    }

    @Test func everyRepositoryModelDecodesToWhatItArchives() throws {
        let models = try Self.models()
        #expect(models.count >= 15, "\(models.map(\.path))")
        for (path, model) in models {
            let lines = ArchivedModel(model: model).lines
            let decoded = try ArchivedModel(lines: lines).managedObjectModel()
            #expect(ArchivedModel(describing: decoded).lines == lines, "\(path)")
            #expect(decoded.versionHash == model.versionHash, "\(path): the decoded description's version hash")
        }
    }

    /// Each version of a version folder, decoded by the runtime from the history the generator writes,
    /// is the description built from its model file (its lines and its version hash).
    /// A folder's models, their lines, and the history the generator would write of them, decoded by
    /// the runtime (its current version built from its lines: records are `ManagedObject`s).
    static func history(of folder: String) throws -> (models: [ObjectModel], lines: [[String]], decoder: ModelVersionHistory) {
        let files = try ModelVersionFolder(path: Self.root.appendingPathComponent(folder).path).versions
        let models = try files.map { try #require(ModelCheck.run(data: try Data(contentsOf: URL(fileURLWithPath: $0.path)), path: $0.path).validated?.model) }
        let lines = models.map { ArchivedModel(model: $0).lines }
        let current = try ArchivedModel(lines: lines.last!).managedObjectModel()
        let history = VersionHistoryText(versions: (1..<models.count).reversed().map { number in
            VersionHistoryText.Version(number: number, versionHash: models[number - 1].versionHash,
                                       edits: VersionHistoryText.edits(from: lines[number], to: lines[number - 1]))
        })
        let decoder = ModelVersionHistory(current: current, currentNumber: models.count, firstNumber: 1,
                                          digest: VersionHistoryText.digest(of: lines.last!), history: history.text)
        return (models, lines, decoder)
    }

    @Test(arguments: ["Tests/Fixtures/Versions/Clinic.modelversions", "Examples/Server/Sources/ClinicModel/Clinic.modelversions",
                      "Tests/Fixtures/Versions/Storefront.modelversions"])
    func aFoldersHistoryDecodesToEachVersion(folder: String) throws {
        let (models, lines, decoder) = try Self.history(of: folder)
        for (index, model) in models.enumerated() {
            let version = decoder.version(index + 1)
            #expect(version.versionHash == model.versionHash, "version \(index + 1)")
            #expect(ArchivedModel(describing: version).lines == lines[index], "version \(index + 1)")
        }
        // The runtime tests' hand-written descriptions of the same versions have the same hashes.
        if folder == "Tests/Fixtures/Versions/Clinic.modelversions" {
            #expect(decoder.versions.map(\.versionHash) == [ClinicVersions.v1, ClinicVersions.v2, ClinicVersions.v3, ClinicVersions.v4].map(\.versionHash))
        }
    }

    /// A store written by the first of 101 versions opens with the last through the plan of the
    /// decoded history: a hundred lightweight stages (attributes and entities added, attributes renamed
    /// and made required with a default), every record kept, renamed values under their new names.
    @Test func aHundredVersionHistoryMigratesAStoreOfItsFirstVersion() throws {
        let (models, _, decoder) = try Self.history(of: "Tests/Fixtures/Versions/Storefront.modelversions")
        #expect(models.count >= 100 && models.last!.entities.count >= 80)
        let url = try temporaryDirectory().appendingPathComponent("storefront.sqlite")
        let first = decoder.version(1)
        do {
            let context = try ManagedContainer(model: first, store: .sqlite(url)).newContext()
            for entity in first.entities {
                for i in 0..<3 {
                    let record = try context.insertObject(entityName: entity.name)
                    for attribute in entity.ownAttributes where !attribute.isOptional && attribute.defaultValue == .null {
                        let value: Any = switch attribute.type {
                        case .string: "text \(i)"
                        case .bool: true
                        case .int16: Int16(i)
                        case .int32: Int32(i)
                        case .int64: Int64(i)
                        case .float: Float(i)
                        case .double: Double(i)
                        case .decimal: Decimal(i)
                        case .date: Date(timeIntervalSinceReferenceDate: Double(i))
                        default: Data([UInt8(i)])
                        }
                        try record.setValue(value, forKey: attribute.name)
                    }
                    try record.setValue(Int64(i + 1), forKey: "identifier")
                }
            }
            try context.save()
        }
        let context = try ManagedContainer(model: decoder.current, store: .sqlite(url), migrationPlan: MigrationPlan(history: decoder)).newContext()
        for entity in first.entities {
            let records = try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name, sortDescriptors: [SortDescriptor("identifier")]))
            #expect(try records.map { try $0.value(forKey: "identifier") as? Int64 } == [1, 2, 3], "\(entity.name)")
        }
        #expect(decoder.decodedVersions.count == models.count - 1)
    }

    /// The edits between random line lists lead from one to the other, whatever changed where.
    @Test func editsTurnAnyListIntoAnyOther() throws {
        let seed = SeededGenerator.seed(or: 61)
        var random = SeededGenerator(seed: seed)
        let vocabulary = (0..<12).map { "A\tline\($0)\toptional=1" }
        for _ in 0..<500 {
            let newer = (0..<Int.random(in: 0..<30, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }
            var older = newer
            for _ in 0..<Int.random(in: 0..<6, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where !older.isEmpty: older.remove(at: Int.random(in: 0..<older.count, using: &random))
                case 1: older.insert(vocabulary.randomElement(using: &random)!, at: Int.random(in: 0...older.count, using: &random))
                default: if !older.isEmpty { older[Int.random(in: 0..<older.count, using: &random)] = "E\tNew" }
                }
            }
            let edits = VersionHistoryText.edits(from: newer, to: older)
            #expect(try VersionHistoryText.apply(edits, to: newer) == older, "MODELGEN_TEST_SEED=\(seed)")
            let text = VersionHistoryText(versions: [.init(number: 1, versionHash: "h", edits: edits)]).text
            #expect(try VersionHistoryText(text: text).versions.first?.edits ?? [] == edits, "MODELGEN_TEST_SEED=\(seed)")
        }
    }

    /// Text of every kind survives a line: tabs, line breaks, backslashes, `=` and Unicode in names,
    /// values and user info.
    @Test func anyTextSurvivesALine() throws {
        var line = ArchiveLine("A", ["na\tme", "x=y\\z"])
        line.set("default", "s:a\nb\r\nc\\t=é😀")
        line.set("info.k=ey", "v\talue")
        let read = try #require(ArchiveLine(text: line.text, fieldCount: 2))
        #expect(!line.text.contains("\n") && !line.text.contains("\r"))
        #expect(read.fields == ["na\tme", "x=y\\z"])
        #expect(read.option("default") == "s:a\nb\r\nc\\t=é😀")
        #expect(read.option("info.k=ey") == "v\talue")
    }
}
