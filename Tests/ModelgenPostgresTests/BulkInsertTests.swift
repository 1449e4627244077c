import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

final class Reading: ManagedObject {}

/// An entity of every attribute type, with a to-one relationship: a save of many new records sends
/// them to PostgreSQL as one statement per entity (under 64 records one INSERT over column arrays,
/// from 64 on a COPY in text format).
let readingModel = try! ManagedObjectModel(name: "Readings", entities: [
    EntityDescription("Reading", class: Reading.self, attributes: [
        AttributeDescription("flag", .bool, optional: true), AttributeDescription("small", .int16, optional: true),
        AttributeDescription("medium", .int32, optional: true), AttributeDescription("large", .int64, optional: true),
        AttributeDescription("single", .float, optional: true), AttributeDescription("real", .double, optional: true),
        AttributeDescription("amount", .decimal, optional: true), AttributeDescription("text", .string, optional: true),
        AttributeDescription("moment", .date, optional: true), AttributeDescription("identifier", .uuid, optional: true),
        AttributeDescription("link", .uri, optional: true), AttributeDescription("bytes", .binary, optional: true),
    ], relationships: [
        RelationshipDescription("previous", destination: "Reading", inverse: "next"),
        RelationshipDescription("next", destination: "Reading", inverse: "previous", toMany: true),
    ]),
])

/// Many new records in one save round-trip exactly, nils included, on every store kind (PostgreSQL
/// sends 40 as one INSERT over arrays, 150 as a COPY: text with escapes, bytes, infinities).
@Suite struct BulkInsertTests {
    @Test(arguments: availableKinds, [40, 150])
    func manyNewRecordsOfEveryTypeRoundTrip(_ kind: StoreKind, count: Int) throws {
        let (store, _) = try kind.makeStore(model: readingModel)
        let container = ManagedContainer(model: readingModel, store: store)
        let context = container.newContext()
        var expected: [[String: StoreValue]] = []
        var previous: ManagedObject?
        for index in 0..<count {
            let reading = try context.insertObject(entityName: "Reading")
            let present = index % 4 != 0   // every fourth record holds nils only
            let values: [String: Any?] = [
                "flag": present ? index % 2 == 0 : nil, "small": present ? Int16(index - 20) : nil,
                "medium": present ? Int32(index * 1_000) : nil, "large": present ? Int64(index) << 40 : nil,
                "single": present ? Float(index) / 4 : nil, "real": present ? Self.real(index) : nil,
                "amount": present ? Decimal(string: "\(index).0\(index)")! : nil, "text": present ? "text \(index) 'quoted' \\ tab\t line\nreturn\r\\N é ✓ \\." : nil,
                "moment": present ? Date(timeIntervalSinceReferenceDate: Double(index) * 1_000.125) : nil,
                "identifier": present ? UUID() : nil, "link": present ? URL(string: "https://example.com/\(index)?a=b")! : nil,
                "bytes": present ? Data((0..<(index % 7)).map { UInt8(($0 * 37 + index) % 256) } + [0, 9, 10, 92]) : nil,
            ]
            for (key, value) in values { try reading.setValue(value, forKey: key) }
            if let previous, index % 3 == 0 { try reading.setValue(previous, forKey: "previous") }
            previous = reading
            expected.append(values.mapValues { value in
                switch value {
                case let v as Bool: return .bool(v)
                case let v as Int16: return .int(Int64(v))
                case let v as Int32: return .int(Int64(v))
                case let v as Int64: return .int(v)
                case let v as Float: return .double(Double(v))
                case let v as Double: return .double(v)
                case let v as Decimal: return .decimal(v)
                case let v as String: return .string(v)
                case let v as Date: return .date(v)
                case let v as UUID: return .uuid(v)
                case let v as URL: return .url(v)
                case let v as Data: return .data(v)
                default: return .null
                }
            })
        }
        try context.save()
        let reader = container.newContext()
        let stored = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).sorted { $0.objectID.key < $1.objectID.key }
        #expect(stored.count == count, "\(kind) \(count)")
        for (object, values) in zip(stored, expected) {
            for (key, value) in values {
                let read = try object.value(forKey: key)
                let same: Bool
                switch value {
                case .null: same = read == nil
                case .bool(let v): same = read as? Bool == v
                case .int(let v): same = (read as? Int16).map(Int64.init) == v || (read as? Int32).map(Int64.init) == v || read as? Int64 == v
                case .double(let v): same = (read as? Double) == v || (read as? Float).map(Double.init) == v
                case .decimal(let v): same = read as? Decimal == v
                case .string(let v): same = read as? String == v
                case .date(let v): same = read as? Date == v
                case .uuid(let v): same = read as? UUID == v
                case .url(let v): same = read as? URL == v
                case .data(let v): same = read as? Data == v
                default: same = false
                }
                #expect(same, "\(kind) \(object.objectID) \(key): \(String(describing: read)) for \(value)")
            }
        }
        let linked = try stored.filter { try $0.value(forKey: "previous") != nil }
        #expect(linked.count == (1..<count).filter { $0 % 3 == 0 }.count, "\(kind) \(count)")

        // Changes of many records in one save (PostgreSQL: one UPDATE over arrays per entity and set of
        // changed columns, versions returned): most change text and amount, a few only the flag, some
        // set values to nil and a link.
        let editor = container.newContext()
        let edited = try editor.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).sorted { $0.objectID.key < $1.objectID.key }
        for (index, reading) in edited.enumerated() {
            if index % 5 == 4 {
                try reading.setValue(true, forKey: "flag")
            } else {
                try reading.setValue(index % 2 == 0 ? "edited \(index)" : nil, forKey: "text")
                try reading.setValue(Decimal(index) / 8, forKey: "amount")
                try reading.setValue(edited[0], forKey: "previous")
            }
        }
        try editor.save()
        let check = container.newContext()
        let after = try check.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).sorted { $0.objectID.key < $1.objectID.key }
        for (index, reading) in after.enumerated() {
            if index % 5 == 4 {
                #expect(try reading.value(forKey: "flag") as? Bool == true, "\(kind) \(index)")
            } else {
                #expect(try reading.value(forKey: "text") as? String == (index % 2 == 0 ? "edited \(index)" : nil), "\(kind) \(index)")
                #expect(try reading.value(forKey: "amount") as? Decimal == Decimal(index) / 8, "\(kind) \(index)")
                #expect(try (reading.value(forKey: "previous") as? ManagedObject)?.objectID == after[0].objectID, "\(kind) \(index)")
            }
        }
        // The versions came back: a second edit of the same records saves without a conflict.
        for reading in edited { try reading.setValue(Int64(7), forKey: "large") }
        try editor.save()
        let third = container.newContext()
        #expect(try third.count(for: try FetchRequest<ManagedObject>(entityName: "Reading", predicate: "large == 7")) == count, "\(kind)")
    }

    /// A double for record `index`: mostly ordinary, some infinite or at the edges of the range.
    static func real(_ index: Int) -> Double {
        switch index % 10 {
        case 1: return .infinity
        case 2: return -.infinity
        case 3: return .leastNonzeroMagnitude
        case 5: return -.greatestFiniteMagnitude
        default: return Double(index) / 3
        }
    }
}
