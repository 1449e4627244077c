import Foundation
@_spi(Generated) import ModelgenRuntime   // Circle (codegen: none) writes its accessors as generated code does

// The types the example models name but do not define: the user's side of generated code.

/// Blog: `status: { type: int16, swiftType: PostStatus }`.
public enum PostStatus: Int16, Sendable {
    case draft = 0, published = 1, archived = 2
}

/// Blog: `Author` has `codegen: extension`, so the user owns the class and its hooks.
public final class Author: Person {
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        createdAt = Date(timeIntervalSinceReferenceDate: 0)
        rating = 1
    }

    public override func validateForUpdate() throws {
        try super.validateForUpdate()
        if bio == "spam" {
            throw ValidationError([.init(object: self, key: Author.Keys.bio, message: "looks like spam")])
        }
    }
}

/// Graphics: a Codable color stored as data.
struct RGBAColor: Codable, Equatable, Sendable {
    var red, green, blue, alpha: Double
}

/// Graphics: a C-style struct stored through a named transformer.
struct Rect: Equatable, Sendable {
    var x, y, width, height: Double
}

/// Graphics: `bounds: { transformer: RectTransformer }`.
enum RectTransformer: ManagedValueTransformer {
    static func encode(_ value: Rect) throws -> Data {
        var data = Data()
        for number in [value.x, value.y, value.width, value.height] {
            withUnsafeBytes(of: number.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    static func decode(_ data: Data) throws -> Rect {
        guard data.count == 32 else { throw CocoaError(.coderReadCorrupt) }
        let numbers = (0..<4).map { index in
            Double(bitPattern: UInt64(littleEndian: data[data.startIndex + index * 8 ..< data.startIndex + index * 8 + 8]
                .withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
        }
        return Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }
}

/// Graphics: `Circle` has `codegen: none`: the user writes the whole class, slots included
/// (Shape's name 0, zIndex 1, createdAt 2, canvas 3; Circle's radius 4).
final class Circle: Shape {
    var radius: Float {
        get { managedValue(at: 4) }
        set { setManagedValue(newValue, at: 4) }
    }
}
