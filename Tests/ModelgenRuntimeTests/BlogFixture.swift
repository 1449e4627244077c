import Foundation
@testable import ModelgenRuntime

// Hand-written in the shape generated code will have: class-mode classes with @Managed
// properties, extension-mode accessors, typed relationship collections, a model type.

enum PostStatus: Int16 { case draft = 0, published = 1, archived = 2 }

struct RGBAColor: Codable, Equatable { var r, g, b, a: Double }

class Person: ManagedObject {
    @Managed(slot: 0) var firstName: String
    @Managed(slot: 1) var lastName: String
    @Managed(slot: 2) var email: String
    @Managed(slot: 3) var createdAt: Date
    @Managed(slot: 4) var timeZoneName: String?
}

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

extension Author {
    var bio: String? {
        get { managedValue(at: 5) }
        set { setManagedValue(newValue, at: 5) }
    }
    var rating: Int16 {
        get { managedValue(at: 6) }
        set { setManagedValue(newValue, at: 6) }
    }
    var avatar: Data? {
        get { managedValue(at: 7) }
        set { setManagedValue(newValue, at: 7) }
    }
    var posts: [Post] {
        get { relatedObjects(at: 8) }
        set { setRelatedObjects(newValue, at: 8) }
    }
    func insertIntoPosts(_ post: Post, at index: Int) { addRelatedObject(post, at: 8, index: index) }
    var popularPosts: [Post] { get throws { try fetchedObjects(forProperty: "popularPosts") } }
}

final class Reader: Person {
    @Managed(slot: 5) var isSubscribed: Bool
    var comments: Set<Comment> {
        get { relatedSet(at: 6) }
        set { setRelatedObjects(Array(newValue), at: 6) }
    }
}

final class Post: ManagedObject {
    @Managed(slot: 0) var id: UUID
    @Managed(slot: 1) var title: String
    @Managed(slot: 2) var body: String
    @Managed(slot: 3) var publishedAt: Date?
    @Managed(slot: 4) var likes: Int64
    var status: PostStatus {
        get { rawRepresentableValue(at: 5) }
        set { setRawRepresentableValue(newValue, at: 5) }
    }
    @Managed(slot: 6) var score: Decimal
    @Managed(slot: 7) var link: URL?
    @Managed(slot: 8) var commentCount: Int64
    @Managed(slot: 9) var searchTitle: String?
    @Managed(slot: 10) var renderedHTML: String?
    var author: Author? {
        get { relatedObject(at: 11) }
        set { setRelatedObject(newValue, at: 11) }
    }
    var tags: Set<Tag> {
        get { relatedSet(at: 12) }
        set { setRelatedObjects(Array(newValue), at: 12) }
    }
    func addToTags(_ tag: Tag) { addRelatedObject(tag, at: 12) }
    func removeFromTags(_ tag: Tag) { removeRelatedObject(tag, at: 12) }
    var comments: Set<Comment> { relatedSet(at: 13) }

    convenience init(context: ManagedObjectContext, title: String, author: Author) {
        self.init(context: context)
        self.id = UUID()
        self.title = title
        self.body = ""
        self.author = author
    }
}

final class Comment: ManagedObject {
    @Managed(slot: 0) var text: String
    @Managed(slot: 1) var postedAt: Date
    var post: Post? {
        get { relatedObject(at: 2) }
        set { setRelatedObject(newValue, at: 2) }
    }
    var reader: Reader? {
        get { relatedObject(at: 3) }
        set { setRelatedObject(newValue, at: 3) }
    }
}

final class Tag: ManagedObject {
    @Managed(slot: 0) var name: String
    var posts: Set<Post> { relatedSet(at: 1) }
}

/// Self-referential relationships that are their own inverse.
final class Member: ManagedObject {
    @Managed(slot: 0) var name: String
    var friends: Set<Member> {
        get { relatedSet(at: 1) }
        set { setRelatedObjects(Array(newValue), at: 1) }
    }
    var spouse: Member? {
        get { relatedObject(at: 2) }
        set { setRelatedObject(newValue, at: 2) }
    }
}

final class Canvas: ManagedObject {
    @Managed(slot: 0) var title: String
    var color: RGBAColor {
        get { transformableValue(at: 1) }
        set { setTransformableValue(newValue, at: 1) }
    }
}

enum BlogModel {
    static let model: ManagedObjectModel = try! ManagedObjectModel(
        name: "Blog",
        entities: [
            EntityDescription("Person", class: Person.self, abstract: true, attributes: [
                AttributeDescription("firstName", .string),
                AttributeDescription("lastName", .string),
                AttributeDescription("email", .string, maximum: 254, regex: "^[^@ ]+@[^@ ]+$"),
                AttributeDescription("createdAt", .date),
                AttributeDescription("timeZoneName", .string, optional: true),
            ], unique: [["email"]]),
            EntityDescription("Author", class: Author.self, parent: "Person", attributes: [
                AttributeDescription("bio", .string, optional: true, maximum: 2000),
                AttributeDescription("rating", .int16, defaultValue: .int(0), minimum: 0, maximum: 5),
                AttributeDescription("avatar", .binary, optional: true, externalStorage: true),
            ], relationships: [
                RelationshipDescription("posts", destination: "Post", inverse: "author", toMany: true, ordered: true, deleteRule: .cascade),
            ], fetchedProperties: [
                FetchedPropertyDescription("popularPosts", destination: "Post", predicate: "author == $FETCH_SOURCE AND likes >= 100", sort: ["likes desc"]),
            ]),
            EntityDescription("Reader", class: Reader.self, parent: "Person", attributes: [
                AttributeDescription("isSubscribed", .bool, defaultValue: .bool(false)),
            ], relationships: [
                RelationshipDescription("comments", destination: "Comment", inverse: "reader", toMany: true, deleteRule: .nullify),
            ]),
            EntityDescription("Post", class: Post.self, attributes: [
                AttributeDescription("id", .uuid),
                AttributeDescription("title", .string, minimum: 1, maximum: 200),
                AttributeDescription("body", .string),
                AttributeDescription("publishedAt", .date, optional: true),
                AttributeDescription("likes", .int64, defaultValue: .int(0), minimum: 0),
                AttributeDescription("status", .int16, defaultValue: .int(0), acceptsRawValue: { value in
                    if case .int(let raw) = value, let raw16 = Int16(exactly: raw) { return PostStatus(rawValue: raw16) != nil }
                    return false
                }, swiftTypeName: "PostStatus"),
                AttributeDescription("score", .decimal, defaultValue: .decimal(0)),
                AttributeDescription("link", .uri, optional: true),
                AttributeDescription("commentCount", .int64, defaultValue: .int(0), derivation: "comments.@count"),
                AttributeDescription("searchTitle", .string, optional: true, derivation: "lowercase:(title)"),
                AttributeDescription("renderedHTML", .string, optional: true, transient: true),
            ], relationships: [
                RelationshipDescription("author", destination: "Author", inverse: "posts", optional: false),
                RelationshipDescription("tags", destination: "Tag", inverse: "posts", toMany: true, maxCount: 10),
                RelationshipDescription("comments", destination: "Comment", inverse: "post", toMany: true, deleteRule: .cascade),
            ], indexes: [["publishedAt"]]),
            EntityDescription("Comment", class: Comment.self, attributes: [
                AttributeDescription("text", .string, minimum: 1),
                AttributeDescription("postedAt", .date),
            ], relationships: [
                RelationshipDescription("post", destination: "Post", inverse: "comments", optional: false),
                RelationshipDescription("reader", destination: "Reader", inverse: "comments"),
            ]),
            EntityDescription("Tag", class: Tag.self, attributes: [
                AttributeDescription("name", .string, minimum: 1, maximum: 40),
            ], relationships: [
                RelationshipDescription("posts", destination: "Post", inverse: "tags", toMany: true, deleteRule: .deny),
            ], unique: [["name"]]),
            EntityDescription("Member", class: Member.self, attributes: [
                AttributeDescription("name", .string),
            ], relationships: [
                RelationshipDescription("friends", destination: "Member", inverse: "friends", toMany: true),
                RelationshipDescription("spouse", destination: "Member", inverse: "spouse"),
            ]),
            EntityDescription("Canvas", class: Canvas.self, attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("color", .transformable, codec: .codable(RGBAColor.self), swiftTypeName: "RGBAColor"),
            ]),
        ],
        fetchRequestTemplates: [
            FetchRequestTemplate("postsByAuthorName", entity: "Post", predicate: "author.lastName ==[c] $NAME AND likes >= $MIN_LIKES",
                                 sort: ["publishedAt desc", "title"]),
            FetchRequestTemplate("taggedPosts", entity: "Post", predicate: "ANY tags.name IN $TAG_NAMES"),
        ])
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
