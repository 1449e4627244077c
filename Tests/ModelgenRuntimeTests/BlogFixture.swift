import Foundation
@testable import ModelgenRuntime

// The user's side of the runtime tests' model (Tests/Models/RuntimeFixture.model.yaml): the classes
// and properties are generated into Generated/ by `make reference`; what the model names but does
// not define is here.

enum PostStatus: Int16, Codable, Sendable { case draft = 0, published = 1, archived = 2 }

struct RGBAColor: Codable, Equatable { var r, g, b, a: Double }
/// What a drawing tool keeps on a canvas while it is open: a class, neither Codable nor stored (the
/// value of an undefined, transient attribute).
final class BrushState { var strokes: [String] = [] }

/// Extension mode: the user's class overrides hooks; modeled properties live in an extension.
final class Author: Person {
    var awakeFromInsertCount = 0
    var awakeFromFetchCount = 0
    var faultCount = 0
    var extraValidationMessage: String?

    override func awakeFromInsert() {
        super.awakeFromInsert()
        awakeFromInsertCount += 1
        createdAt = Date(timeIntervalSinceReferenceDate: 1_000)
    }

    override func awakeFromFetch() {
        super.awakeFromFetch()
        awakeFromFetchCount += 1
        bio = "loaded"   // with change processing off: must not dirty the object
    }

    override func didTurnIntoFault() {
        super.didTurnIntoFault()
        faultCount += 1
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        if let message = extraValidationMessage {
            throw ValidationError([.init(object: self, key: "bio", message: message)])
        }
    }

    override func validateValue(_ value: Any?, forKey key: String) throws {
        try super.validateValue(value, forKey: key)
        if key == "lastName", let name = value as? String, name == "Forbidden" {
            throw ValidationError.Failure(object: self, key: key, message: "is not allowed")
        }
    }
}

extension Post {
    /// The tests' shorthand: a post with a fresh ID and an empty body.
    convenience init(context: ManagedObjectContext, title: String, author: Author) {
        self.init(context: context, id: UUID(), title: title, body: "", author: author)
    }
}

/// A fresh in-memory container and context.
func makeContext() throws -> (ManagedContainer, ManagedObjectContext) {
    let container = try ManagedContainer(model: BlogModel.model, store: .inMemory)
    return (container, container.newContext())
}

/// An author with every required value set.
func makeAuthor(_ context: ManagedObjectContext, _ last: String = "Lovelace", email: String? = nil) -> Author {
    let author = Author(context: context)
    author.firstName = "Ada"
    author.lastName = last
    author.email = email ?? "\(last.lowercased())@example.com"
    return author
}
