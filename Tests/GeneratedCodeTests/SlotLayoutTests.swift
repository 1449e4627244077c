import Foundation
import ModelgenRuntime
import Testing

/// The generator writes each property's slot into the code (`@Managed(slot: 3)`, or `self[slot: 3]` in
/// extension mode); the runtime computes the same layout from the entity descriptions. This test ties
/// the two (issue 21: changing the layout on one side only fails here): every attribute of every
/// concrete entity of every generated model gets a value no other attribute has, set by name through
/// the runtime (`setValue(_:forKey:)`), and is read back through the generated Swift property (the
/// description's key path): a property that reads another slot returns another value (or traps).
@Suite struct SlotLayoutTests {
    static let models: [(String, ManagedObjectModel)] = [
        ("Blog", BlogModel.model), ("Graphics", GraphicsModel.model), ("Staff", StaffModel.model), ("Literals", LiteralsModel.model),
    ]

    /// A value of the attribute's stored type that tells `slot` from every other slot.
    static func distinctValue(_ type: AttributeType, slot: Int) -> AnyHashable? {
        switch type {
        case .string: return "slot \(slot)"
        case .int16: return Int16(1000 + slot)
        case .int32: return Int32(2000 + slot)
        case .int64: return Int64(3000 + slot)
        case .double: return Double(slot) + 0.25
        case .float: return Float(slot) + 0.5
        case .decimal: return Decimal(slot) + Decimal(string: "0.125")!
        case .date: return Date(timeIntervalSinceReferenceDate: Double(slot) * 1000)
        case .uuid: return UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", slot))!
        case .binary: return Data([UInt8(slot), 0xAB])
        case .uri: return URL(string: "https://example.com/slot/\(slot)")!
        default: return nil   // bool has two values; transformables need the user's type
        }
    }

    @Test(arguments: models.map(\.0))
    func generatedPropertiesReadTheSlotsTheRuntimeAssigns(_ name: String) throws {
        let model = try #require(Self.models.first { $0.0 == name }?.1)
        let container = ManagedContainer(model: model, store: InMemoryStore(model: model))
        let context = container.newContext()
        var compared = 0
        for entity in model.entities where !entity.isAbstract {
            let object = try context.insertObject(entityName: entity.name)
            let keyPaths = Dictionary(entity.keyPathNames.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
            var expected: [String: AnyHashable] = [:]
            for case .attribute(let attribute) in entity.properties where attribute.acceptsRawValue == nil && attribute.codec == nil {
                guard let slot = entity.slot(of: attribute.name), let value = Self.distinctValue(attribute.type, slot: slot) else { continue }
                if (try? object.setValue(value, forKey: attribute.name)) != nil { expected[attribute.name] = value }
            }
            for (key, value) in expected {
                guard let keyPath = keyPaths[key], let read = object[keyPath: keyPath] else { continue }
                let unwrapped: Any = Mirror(reflecting: read).displayStyle == .optional ? (Mirror(reflecting: read).children.first?.value ?? read) : read
                guard let hashable = unwrapped as? AnyHashable, type(of: hashable.base) == type(of: value.base) else { continue }   // an enum or a wrapper type
                #expect(hashable == value, "\(name).\(entity.name).\(key): the generated property read \(hashable), the runtime's slot \(entity.slot(of: key)!) holds \(value)")
                compared += 1
            }
        }
        #expect(compared >= 5, "\(name): only \(compared) properties compared")
    }
}
