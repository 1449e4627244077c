@testable import ModelgenCore
import Testing

/// One test per validator rule: the model it refuses (with the diagnostic, on the line given by a marker)
/// and, beside it, the nearest model it accepts.
@Suite struct ValidatorRuleTests {
    struct Rule: CustomTestStringConvertible, Sendable {
        var name: String
        var refused: String
        var marker: String
        var severity: Severity = .error
        var message: String
        var accepted: String
        var testDescription: String { name }
    }

    /// Two related entities and a body to put under `Post:` (indented 4 spaces).
    static func blog(_ post: String, extra: String = "") -> String {
        """
        model: Blog
        entities:
          Author:
            attributes: { name: string }
            relationships:
              posts: { destination: Post, toMany: true, inverse: author }
          Post:
            relationships:
              author: { destination: Author, inverse: posts }
        \(post)
        \(extra)
        """
    }

    /// A model with composites `Address` (street, city, a nested `GeoPoint?`) and `GeoPoint`, the
    /// given extra composite text, and an entity `Shop` whose body is `shop` (indented 4 spaces).
    static func shop(_ shop: String, composites: String = "") -> String {
        """
        model: M
        composites:
          GeoPoint:
            attributes: { latitude: double, longitude: double }
          Address:
            attributes:
              street: string
              city: string?
              location: GeoPoint?
        \(composites)
        entities:
          Shop:
        \(shop)
        """
    }

    static let rules: [Rule] = [
        // Composites
        Rule(name: "composite names are Swift type names", refused: shop("    attributes: { a: string }", composites: "  point: {}"),
             marker: "point:", message: "must start with an upper-case letter",
             accepted: shop("    attributes: { a: string }", composites: "  Point: {}")),
        Rule(name: "a composite is not named like a class", refused: shop("    attributes: { a: string }", composites: "  Shop: {}"),
             marker: "  Shop: {}", message: "collides with the class of entity 'Shop'",
             accepted: shop("    attributes: { a: string }", composites: "  ShopInfo: {}")),
        Rule(name: "a composite does not contain itself",
             refused: shop("    attributes: { a: string }", composites: "  Tree:\n    attributes: { leaf: string, next: Tree? }"),
             marker: "leaf:", message: "composite 'Tree' contains itself (Tree.next)",
             accepted: shop("    attributes: { a: string }", composites: "  Tree:\n    attributes: { leaf: string, next: GeoPoint? }")),
        Rule(name: "composite fields are stored values",
             refused: shop("    attributes: { a: string }", composites: "  Bag:\n    attributes:\n      blob: { type: transformable }"),
             marker: "blob:", message: "a composite's fields hold stored scalar values",
             accepted: shop("    attributes: { a: string }", composites: "  Bag:\n    attributes:\n      blob: binary")),
        Rule(name: "composite fields take no transient",
             refused: shop("    attributes: { a: string }", composites: "  Bag:\n    attributes:\n      note: { type: string, transient: true }"),
             marker: "note:", message: "unknown key 'transient'",
             accepted: shop("    attributes: { a: string }", composites: "  Bag:\n    attributes:\n      note: { type: string, optional: true }")),
        Rule(name: "a composite's field defaults fit their bounds",
             refused: shop("    attributes: { a: string }", composites: "  Bag:\n    attributes:\n      size: { type: int16, default: 9, max: 5 }"),
             marker: "size:", message: "is above its max",
             accepted: shop("    attributes: { a: string }", composites: "  Bag:\n    attributes:\n      size: { type: int16, default: 5, max: 5 }")),
        Rule(name: "attribute types name a composite that exists", refused: shop("    attributes: { home: Adress }"),
             marker: "home:", message: "unknown attribute type 'Adress'; expected one of: string",
             accepted: shop("    attributes: { home: Address }")),
        Rule(name: "a composite attribute has no default of its own", refused: shop("    attributes: { home: { type: Address, default: x } }"),
             marker: "home:", message: "give the composite's fields defaults",
             accepted: shop("    attributes: { home: { type: Address, optional: true } }")),
        Rule(name: "a composite attribute is stored", refused: shop("    attributes: { home: { type: Address, transient: true } }"),
             marker: "home:", message: "composite attribute 'Shop.home' cannot be transient",
             accepted: shop("    attributes: { home: { type: Address } }")),
        Rule(name: "constraints name a composite's fields", refused: shop("    attributes: { home: Address }\n    unique: [home]"),
             marker: "unique:", message: "names composite attribute 'home'; name its fields, as in 'home.street'",
             accepted: shop("    attributes: { home: Address }\n    unique: [home.street]")),
        Rule(name: "indexes name fields that exist", refused: shop("    attributes: { home: Address }\n    indexes: [home.town]"),
             marker: "indexes:", message: "names unknown field 'home.town' of composite attribute 'home'",
             accepted: shop("    attributes: { home: Address }\n    indexes: [home.location.latitude]")),
        Rule(name: "predicates reach fields, not a composite as a whole",
             refused: shop("    attributes: { home: Address }", composites: "") + "\nfetchRequests:\n  f: { entity: Shop, predicate: 'home == $H' }",
             marker: "f:", message: "composite attribute 'home' is used by its fields, as in 'home.street'",
             accepted: shop("    attributes: { home: Address }", composites: "") + "\nfetchRequests:\n  f: { entity: Shop, predicate: 'home.location.latitude > $LAT' }"),
        Rule(name: "an optional composite compares with NIL",
             refused: shop("    attributes: { home: Address? }", composites: "") + "\nfetchRequests:\n  f: { entity: Shop, predicate: 'home == \"x\"' }",
             marker: "f:", message: "type mismatch: 'home' is composite (Address)",
             accepted: shop("    attributes: { home: Address? }", composites: "") + "\nfetchRequests:\n  f: { entity: Shop, predicate: 'home != nil AND home.location == nil' }"),
        Rule(name: "predicate keys of a composite are its fields",
             refused: shop("    attributes: { home: Address }", composites: "") + "\nfetchRequests:\n  f: { entity: Shop, predicate: 'home.town == $T' }",
             marker: "f:", message: "unknown field 'town' of composite 'Address' (attribute 'home')",
             accepted: shop("    attributes: { home: Address }", composites: "") + "\nfetchRequests:\n  f: { entity: Shop, predicate: 'home.city == $T' }"),
        // Names
        Rule(name: "entity names start upper-case", refused: "model: M\nentities:\n  item: { attributes: { a: string } }",
             marker: "item:", message: "must start with an upper-case letter",
             accepted: "model: M\nentities:\n  Item: { attributes: { a: string } }"),
        Rule(name: "entity names are not runtime types", refused: "model: M\nentities:\n  ManagedObject: { attributes: { a: string } }",
             marker: "ManagedObject:", message: "collides with a type of the runtime",
             accepted: "model: M\nentities:\n  ManagedThing: { attributes: { a: string } }"),
        Rule(name: "entity names are not the runtime types generated code names",
             refused: "model: M\nentities:\n  ManagedRawValue: { attributes: { a: string } }",
             marker: "ManagedRawValue:", message: "collides with a type of the runtime",
             accepted: "model: M\nentities:\n  RawValueHolder: { attributes: { a: string } }"),
        Rule(name: "no property is named Keys (the nested key constants)",
             refused: "model: M\nentities:\n  Item:\n    attributes: { Keys: string }",
             marker: "Keys:", message: "collides with the enum 'Keys' generated classes declare",
             accepted: "model: M\nentities:\n  Item:\n    attributes: { keys: string }"),
        Rule(name: "class names are not Swift types", refused: "model: M\nentities:\n  Item: { class: String, attributes: { a: string } }",
             marker: "Item:", message: "collides with a type",
             accepted: "model: M\nentities:\n  Item: { class: Thing, attributes: { a: string } }"),
        Rule(name: "two entities cannot share a class", refused: "model: M\nentities:\n  A: { class: Thing }\n  B: { class: Thing }",
             marker: "B:", message: "same class name 'Thing'",
             accepted: "model: M\nentities:\n  A: { class: Thing }\n  B: { class: OtherThing }"),
        Rule(name: "class names differ in more than case", refused: "model: M\nentities:\n  Item: { attributes: { a: string } }\n  ITEM: { attributes: { a: string } }",
             marker: "ITEM:", message: "class names 'Item' and 'ITEM' differ only in case",
             accepted: "model: M\nentities:\n  Item: { attributes: { a: string } }\n  ITEM: { class: UpperItem, attributes: { a: string } }"),
        Rule(name: "class names differ from the model type in more than case", refused: "model: Shop\nentities:\n  Shopmodel: { attributes: { a: string } }",
             marker: "Shopmodel:", message: "differs from the generated model type 'ShopModel' only in case",
             accepted: "model: Shop\nentities:\n  ShopModels: { attributes: { a: string } }"),
        Rule(name: "class names differ from generated key enums", refused: "model: M\nentities:\n  Item: { attributes: { a: string } }\n  ItemKeys: { attributes: { a: string } }",
             marker: "ItemKeys:", message: "the key-name constants generated for entity 'Item'",
             accepted: "model: M\nentities:\n  Item: { codegen: none, attributes: { a: string } }\n  ItemKeys: { attributes: { a: string } }"),
        Rule(name: "class names differ from the model type", refused: "model: Shop\nentities:\n  ShopModel: { attributes: { a: string } }",
             marker: "ShopModel:", message: "collides with the generated model type",
             accepted: "model: Shop\nentities:\n  ShopItem: { attributes: { a: string } }"),
        Rule(name: "model name is an identifier", refused: "model: My Model\nentities:\n  A:",
             marker: "model:", message: "not a Swift identifier",
             accepted: "model: MyModel\nentities:\n  A:"),
        Rule(name: "imports are module names", refused: "model: M\noptions: { imports: [Foundation, 'not a module'] }\nentities:\n  A:",
             marker: "options", message: "not a module name",
             accepted: "model: M\noptions: { imports: [Foundation, Mod.Sub] }\nentities:\n  A:"),
        Rule(name: "attribute names start lower-case", refused: "model: M\nentities:\n  A:\n    attributes: { Name: string }",
             marker: "attributes", message: "must start with a lower-case letter",
             accepted: "model: M\nentities:\n  A:\n    attributes: { name: string }"),
        Rule(name: "attribute names are identifiers", refused: "model: M\nentities:\n  A:\n    attributes: { 'first-name': string }",
             marker: "attributes", message: "not a Swift identifier",
             accepted: "model: M\nentities:\n  A:\n    attributes: { firstName: string, for: string, default: string }"),
        Rule(name: "property names are not runtime members", refused: "model: M\nentities:\n  A:\n    attributes:\n      objectID: string",
             marker: "objectID", message: "collides with the runtime's own member",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      externalID: string"),
        Rule(name: "relationship names are not runtime members",
             refused: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      entity: { destination: Post, inverse: none }"),
             marker: "entity:", message: "collides with the runtime's own member",
             accepted: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      post: { destination: Post, inverse: none }")),
        Rule(name: "a property name is used once per entity",
             refused: blog("    attributes: { author: string }"), marker: "attributes: { author", message: "declared twice",
             accepted: blog("    attributes: { authorName: string }")),

        // Entities and inheritance
        Rule(name: "parent exists", refused: "model: M\nentities:\n  Child: { parent: Parnt }\n  Parent:",
             marker: "Child:", message: "unknown entity 'Parnt'",
             accepted: "model: M\nentities:\n  Child: { parent: Parent }\n  Parent:"),
        Rule(name: "an entity is not its own parent", refused: "model: M\nentities:\n  A: { parent: A }",
             marker: "A:", message: "names itself as its parent",
             accepted: "model: M\nentities:\n  A:"),
        Rule(name: "inheritance has no cycles", refused: "model: M\nentities:\n  A: { parent: C }\n  B: { parent: A }\n  C: { parent: B }",
             marker: "B:", message: "inheritance cycle: ",
             accepted: "model: M\nentities:\n  A:\n  B: { parent: A }\n  C: { parent: B }"),
        Rule(name: "entities are declared once", refused: "model: M\nentities:\n  A:\n  A2: { class: A }",
             marker: "A2:", message: "same class name",
             accepted: "model: M\nentities:\n  A:\n  A2:"),
        Rule(name: "subentities do not redeclare inherited properties",
             refused: "model: M\nentities:\n  Base:\n    attributes: { name: string }\n  Mid: { parent: Base }\n  Leaf:\n    parent: Mid\n    attributes: { name: string, extra: string }",
             marker: "extra", message: "inherited from 'Base'",
             accepted: "model: M\nentities:\n  Base:\n    attributes: { name: string }\n  Mid: { parent: Base }\n  Leaf:\n    parent: Mid\n    attributes: { nickname: string }"),
        Rule(name: "uniqueness constraints name attributes",
             refused: "model: M\nentities:\n  A:\n    attributes: { email: string }\n    unique: [[emial]]",
             marker: "unique", message: "unknown attribute 'emial'",
             accepted: "model: M\nentities:\n  A:\n    attributes: { email: string }\n    unique: [[email]]"),
        Rule(name: "uniqueness constraints use stored attributes only",
             refused: "model: M\nentities:\n  A:\n    attributes: { email: { type: string, transient: true } }\n    unique: [[email]]",
             marker: "unique", message: "transient attribute 'email'",
             accepted: "model: M\nentities:\n  A:\n    attributes: { email: { type: string } }\n    unique: [[email]]"),
        Rule(name: "uniqueness constraints do not name relationships", refused: blog("    attributes: { title: string }\n    unique: [[author]]"),
             marker: "unique", message: "only attributes can be used",
             accepted: blog("    attributes: { title: string }\n    unique: [[title]]")),
        Rule(name: "indexes may use to-one relationships, not to-many", refused: blog("    attributes: { title: string }", extra: "  Extra:\n    parent: Author\n    indexes: [[posts]]"),
             marker: "indexes", message: "names relationship 'posts'",
             accepted: blog("    attributes: { title: string }\n    indexes: [[author, title]]")),
        Rule(name: "a property appears once per constraint", refused: "model: M\nentities:\n  A:\n    attributes: { a: string }\n    unique: [[a, a]]",
             marker: "unique", message: "appears twice",
             accepted: "model: M\nentities:\n  A:\n    attributes: { a: string, b: string }\n    unique: [[a, b]]"),
        Rule(name: "constraints are not empty", refused: "model: M\nentities:\n  A:\n    attributes: { a: string }\n    unique: [[]]",
             marker: "unique", message: "empty uniqueness constraint",
             accepted: "model: M\nentities:\n  A:\n    attributes: { a: string }\n    unique: [a]"),

        // Attributes
        Rule(name: "optional numbers get a warning", refused: "model: M\nentities:\n  A:\n    attributes:\n      weight: double?",
             marker: "weight", severity: .warning, message: "optional numeric",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      weight: { type: double, default: 0 }\n      note: string?\n      cache: { type: double, optional: true, transient: true }"),
        Rule(name: "swiftType applies to strings, integers, transformables and undefined",
             refused: "model: M\nentities:\n  A:\n    attributes:\n      at: { type: date, swiftType: MyDate }",
             marker: "at:", message: "'swiftType' applies to string, integer, transformable and undefined",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      status: { type: int16, swiftType: Status, default: 0 }\n      kind: { type: string, swiftType: Kind, default: draft }"),
        Rule(name: "swiftType is a Swift type", refused: "model: M\nentities:\n  A:\n    attributes:\n      tags: { type: transformable, swiftType: '[String' }",
             marker: "tags:", message: "is not a Swift type name",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      tags: { type: transformable, swiftType: '[String: Set<Int>]' }"),
        Rule(name: "transformable needs swiftType", refused: "model: M\nentities:\n  A:\n    attributes:\n      color: transformable",
             marker: "color", message: "needs 'swiftType'",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      color: { type: transformable, swiftType: RGBColor }"),
        Rule(name: "transformer only on transformable", refused: "model: M\nentities:\n  A:\n    attributes:\n      name: { type: string, transformer: T }",
             marker: "name:", message: "'transformer' applies to transformable",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      rect: { type: transformable, swiftType: Rect, transformer: RectTransformer }"),
        Rule(name: "externalStorage only on binary", refused: "model: M\nentities:\n  A:\n    attributes:\n      name: { type: string, externalStorage: true }",
             marker: "name:", message: "'externalStorage' applies to binary",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      photo: { type: binary, externalStorage: true }"),
        Rule(name: "regex only on strings", refused: "model: M\nentities:\n  A:\n    attributes:\n      n: { type: int32, regex: '[0-9]+', default: 0 }",
             marker: "n:", message: "'regex' applies to string",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      n: { type: string, regex: '[0-9]+' }"),
        Rule(name: "regex compiles", refused: "model: M\nentities:\n  A:\n    attributes:\n      n: { type: string, regex: '[0-9' }",
             marker: "n:", message: "does not compile",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      n: { type: string, regex: '[0-9]' }"),
        Rule(name: "default matches regex", refused: "model: M\nentities:\n  A:\n    attributes:\n      code: { type: string, regex: '[A-Z]{3}', default: abcd }",
             marker: "code:", message: "does not match its regex",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      code: { type: string, regex: '[A-Z]{3}', default: ABC }"),
        Rule(name: "min is at most max", refused: "model: M\nentities:\n  A:\n    attributes:\n      r: { type: int16, min: 5, max: 1, default: 3 }",
             marker: "r:", message: "greater than max",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      r: { type: int16, min: 1, max: 5, default: 3 }"),
        Rule(name: "default within bounds", refused: "model: M\nentities:\n  A:\n    attributes:\n      r: { type: double, min: 0, max: 5, default: 7.5 }",
             marker: "r:", message: "above its max",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      r: { type: double, min: 0, max: 5, default: 2.5 }"),
        Rule(name: "string default within length bounds", refused: "model: M\nentities:\n  A:\n    attributes:\n      s: { type: string, min: 3, default: ab }",
             marker: "s: { type", message: "below its min 3 characters",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      s: { type: string, min: 3, default: abc }"),
        Rule(name: "date bounds are ordered", refused: "model: M\nentities:\n  A:\n    attributes:\n      d: { type: date, min: '2025-01-01', max: '2024-01-01' }",
             marker: "d:", message: "greater than max",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      d: { type: date, min: '2024-01-01', max: '2025-01-01' }"),
        Rule(name: "derived attributes are not transient",
             refused: blog("    attributes:\n      title: string\n      low: { type: string, derived: 'lowercase:(title)', transient: true }"),
             marker: "low:", message: "cannot be transient",
             accepted: blog("    attributes:\n      title: string\n      low: { type: string, derived: 'lowercase:(title)' }")),
        Rule(name: "derivation key paths resolve", refused: blog("    attributes:\n      title: string\n      low: { type: string, derived: 'lowercase:(titel)' }"),
             marker: "low:", message: "unknown key 'titel'",
             accepted: blog("    attributes:\n      title: string\n      authorName: { type: string, derived: 'author.name' }")),
        Rule(name: "derivation types fit the attribute",
             refused: "model: M\nentities:\n  A:\n    attributes:\n      n: { type: string, derived: 'bs.@count' }\n    relationships:\n      bs: { destination: B, toMany: true, inverse: a }\n  B:\n    relationships:\n      a: { destination: A, inverse: bs }",
             marker: "n:", message: "gives int64",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      n: { type: int32, derived: 'bs.@count', default: 0 }\n      t: { type: date, derived: 'now()' }\n    relationships:\n      bs: { destination: B, toMany: true, inverse: a }\n  B:\n    relationships:\n      a: { destination: A, inverse: bs }"),
        Rule(name: "string derivation functions take strings",
             refused: "model: M\nentities:\n  A:\n    attributes:\n      n: { type: int16, default: 0 }\n      s: { type: string, derived: 'uppercase:(n)' }",
             marker: "s: { type", message: "needs a string",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      n: string\n      s: { type: string, derived: 'uppercase:(n)' }"),
        Rule(name: "derivations cross to-many only with an aggregate",
             refused: blog("    attributes: { title: string }", extra: "  Stats:\n    parent: Author\n    attributes:\n      titles: { type: string, derived: 'posts.title' }"),
             marker: "titles:", message: "crosses a to-many relationship",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "  Stats:\n    parent: Author\n    attributes:\n      total: { type: int64, default: 0, derived: 'posts.@sum.likes' }")),
        Rule(name: "derivation functions are known", refused: "model: M\nentities:\n  A:\n    attributes:\n      s: string\n      t: { type: string, derived: 'reverse:(s)' }",
             marker: "t:", message: "unknown derivation function",
             accepted: "model: M\nentities:\n  A:\n    attributes:\n      s: string\n      t: { type: string, derived: 'canonical:(s)' }"),

        // Relationships
        Rule(name: "destination exists", refused: "model: M\nentities:\n  Post:\n    relationships:\n      author: { destination: Auhtor, inverse: none }\n  Author:",
             marker: "author:", message: "unknown entity 'Auhtor'",
             accepted: "model: M\nentities:\n  Post:\n    relationships:\n      author: { destination: Author, inverse: none }\n  Author:"),
        Rule(name: "missing inverse is a warning", refused: "model: M\nentities:\n  Folder:\n    relationships:\n      files: { destination: File, toMany: true }\n  File:",
             marker: "files:", severity: .warning, message: "has no inverse",
             accepted: "model: M\nentities:\n  Folder:\n    relationships:\n      files: { destination: File, toMany: true, inverse: none }\n  File:"),
        Rule(name: "inverse exists", refused: "model: M\nentities:\n  A:\n    relationships:\n      b: { destination: B, inverse: aa }\n  B:\n    relationships:\n      a: { destination: A, inverse: b }",
             marker: "b: { destination: B", message: "inverse 'aa'",
             accepted: "model: M\nentities:\n  A:\n    relationships:\n      b: { destination: B, inverse: a }\n  B:\n    relationships:\n      a: { destination: A, inverse: b }"),
        Rule(name: "inverse is a relationship", refused: "model: M\nentities:\n  A:\n    relationships:\n      b: { destination: B, inverse: name }\n  B:\n    attributes: { name: string }",
             marker: "b: { destination: B", message: "is an attribute, not a relationship",
             accepted: "model: M\nentities:\n  A:\n    relationships:\n      b: { destination: B, inverse: none }\n  B:\n    attributes: { name: string }"),
        Rule(name: "inverse points back", refused: "model: M\nentities:\n  A:\n    relationships:\n      b: { destination: B, inverse: c }\n  B:\n    relationships:\n      c: { destination: C, inverse: none }\n  C:",
             marker: "b: { destination: B", message: "not back to 'A'",
             accepted: "model: M\nentities:\n  A:\n    relationships:\n      b: { destination: B, inverse: c }\n  B:\n    relationships:\n      c: { destination: A, inverse: b }\n  C:"),
        Rule(name: "inverses name each other",
             refused: "model: M\nentities:\n  A:\n    relationships:\n      b: { destination: B, inverse: a }\n      b2: { destination: B, inverse: none }\n  B:\n    relationships:\n      a: { destination: A, inverse: b2 }",
             marker: "b: { destination: B", message: "inverse mismatch",
             accepted: "model: M\nentities:\n  A:\n    relationships:\n      b: { destination: B, inverse: a }\n      b2: { destination: B, inverse: none }\n  B:\n    relationships:\n      a: { destination: A, inverse: b }"),
        Rule(name: "inverses point back to the declaring entity or an ancestor",
             refused: "model: M\nentities:\n  Person:\n    relationships:\n      comments: { destination: Comment, toMany: true, inverse: reader }\n  Reader: { parent: Person }\n  Comment:\n    relationships:\n      reader: { destination: Reader, inverse: comments }",
             marker: "comments: { destination", message: "not back to 'Person'",
             accepted: "model: M\nentities:\n  Person:\n    relationships:\n      comments: { destination: Comment, toMany: true, inverse: reader }\n  Reader: { parent: Person }\n  Comment:\n    relationships:\n      reader: { destination: Person, inverse: comments }"),
        Rule(name: "ordered only on to-many", refused: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      post: { destination: Post, ordered: true, inverse: none }"),
             marker: "post: { destination: Post, ordered", message: "'ordered' applies to to-many",
             accepted: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      posts: { destination: Post, toMany: true, ordered: true, inverse: none }")),
        Rule(name: "counts only on to-many", refused: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      post: { destination: Post, min: 1, inverse: none }"),
             marker: "post: { destination: Post, min", message: "to-many relationship",
             accepted: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      post: { destination: Post, optional: false, inverse: none }")),
        Rule(name: "min count at most max count", refused: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      posts: { destination: Post, toMany: true, min: 3, max: 2, inverse: none }"),
             marker: "posts: { destination: Post, toMany: true, min", message: "greater than max",
             accepted: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      posts: { destination: Post, toMany: true, min: 1, max: 2, inverse: none }")),
        Rule(name: "noAction gets a warning", refused: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      post: { destination: Post, deleteRule: noAction, inverse: none }"),
             marker: "deleteRule", severity: .warning, message: "noAction",
             accepted: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      post: { destination: Post, deleteRule: deny, inverse: none }")),
        Rule(name: "delete rules are known", refused: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      post: { destination: Post, deleteRule: cascde, inverse: none }"),
             marker: "deleteRule", message: "unknown delete rule 'cascde'",
             accepted: blog("    attributes: { title: string }", extra: "  Note:\n    relationships:\n      post: { destination: Post, deleteRule: cascade, inverse: none }")),

        // Fetched properties, fetch requests, predicates, configurations
        // Computed properties (dependent keys)
        Rule(name: "computed dependencies name properties",
             refused: blog("    attributes: { title: string }\n    computed:\n      heading: { type: String, dependsOn: [titel] }"),
             marker: "heading:", message: "'Post' has no attribute or relationship 'titel'",
             accepted: blog("    attributes: { title: string }\n    computed:\n      heading: { type: String, dependsOn: [title, author.name] }")),
        Rule(name: "computed dependencies cross to-one relationships only",
             refused: blog("    attributes: { title: string }\n    computed:\n      siblings: { type: Int, dependsOn: [author.posts.title] }"),
             marker: "siblings:", message: "'posts' is a to-many relationship; depend on 'author.posts' itself",
             accepted: blog("    attributes: { title: string }\n    computed:\n      siblings: { type: Int, dependsOn: [author.posts] }")),
        Rule(name: "nothing follows an attribute in a dependency",
             refused: blog("    attributes: { title: string }\n    computed:\n      heading: { type: String, dependsOn: [title.count] }"),
             marker: "heading:", message: "'title' is an attribute of 'Post', so nothing follows it",
             accepted: blog("    attributes: { title: string }\n    computed:\n      heading: { type: String, dependsOn: [title] }")),
        Rule(name: "computed properties do not depend on themselves",
             refused: blog("    attributes: { title: string }\n    computed:\n      a: { type: String, dependsOn: [b] }\n      b: { type: String, dependsOn: [a] }"),
             marker: "a: {", message: "computed property 'Post.a' depends on itself",
             accepted: blog("    attributes: { title: string }\n    computed:\n      a: { type: String, dependsOn: [b] }\n      b: { type: String, dependsOn: [title] }")),
        Rule(name: "computed properties say what they depend on",
             refused: blog("    attributes: { title: string }\n    computed:\n      heading: { type: String }"),
             marker: "heading:", message: "missing required key 'dependsOn'",
             accepted: blog("    attributes: { title: string }\n    computed:\n      heading: { type: String, dependsOn: [title] }")),
        Rule(name: "computed names are unique in the entity",
             refused: blog("    attributes: { title: string }\n    computed:\n      title: { type: String, dependsOn: [author] }"),
             marker: "      title:", message: "property 'title' is declared twice",
             accepted: blog("    attributes: { title: string }\n    computed:\n      heading: { type: String, dependsOn: [author] }")),
        Rule(name: "fetched properties use only $FETCH_SOURCE",
             refused: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "  Fan:\n    parent: Author\n    fetchedProperties:\n      liked: { destination: Post, predicate: 'author == $FETCH_SOURCE AND likes > $MIN' }"),
             marker: "liked:", message: "only $FETCH_SOURCE",
             accepted: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "  Fan:\n    parent: Author\n    fetchedProperties:\n      liked: { destination: Post, predicate: 'author == $FETCH_SOURCE AND likes > 100', sort: [likes desc] }")),
        Rule(name: "$FETCH_SOURCE matches the owner",
             refused: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "  Tag:\n    fetchedProperties:\n      posts: { destination: Post, predicate: 'author == $FETCH_SOURCE' }"),
             marker: "posts: { destination: Post, predicate", message: "type mismatch",
             accepted: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "  Tag:\n    fetchedProperties:\n      posts: { destination: Post, predicate: 'likes > 1' }")),
        // SUBQUERY
        Rule(name: "SUBQUERY takes a to-many relationship",
             refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  f: { entity: Post, predicate: 'SUBQUERY(author, $a, $a.name == $N).@count > 0' }"),
             marker: "  f:", message: "SUBQUERY needs a to-many relationship first; 'author' is a 'Author' object",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  f: { entity: Author, predicate: 'SUBQUERY(posts, $p, $p.title == $T).@count > 0' }")),
        Rule(name: "SUBQUERY's key paths are checked on its elements",
             refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  f: { entity: Author, predicate: 'SUBQUERY(posts, $p, $p.titel == \"x\").@count > 0' }"),
             marker: "  f:", message: "unknown key 'titel' on entity 'Post'",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  f: { entity: Author, predicate: 'SUBQUERY(posts, $p, title == \"x\" AND $p.author.name != nil).@count > 0' }")),
        Rule(name: "only .@count follows SUBQUERY",
             refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  f: { entity: Author, predicate: 'SUBQUERY(posts, $p, $p.title == \"x\").@sum > 0' }"),
             marker: "  f:", message: "only .@count can follow",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  f: { entity: Author, predicate: 'SUBQUERY(posts, $p, $p.title == \"x\").@count > 0' }")),
        Rule(name: "key paths on variables start at SUBQUERY variables",
             refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  f: { entity: Post, predicate: '$X.title == \"a\"' }"),
             marker: "  f:", message: "key paths start at SUBQUERY variables and $FETCH_SOURCE",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  f: { entity: Post, predicate: 'title == $X' }")),
        Rule(name: "$FETCHED_PROPERTY is read in fetched properties only",
             refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  f: { entity: Post, predicate: 'title == $FETCHED_PROPERTY.userInfo.t' }"),
             marker: "  f:", message: "key paths start at SUBQUERY variables and $FETCH_SOURCE",
             accepted: blog("    attributes: { title: string }\n    fetchedProperties:\n      same: { destination: Post, predicate: 'title == $FETCHED_PROPERTY.userInfo.t', userInfo: { t: x } }")),
        Rule(name: "$FETCHED_PROPERTY names a userInfo entry",
             refused: blog("    attributes: { title: string }\n    fetchedProperties:\n      same: { destination: Post, predicate: 'title == $FETCHED_PROPERTY.userInfo.t' }"),
             marker: "same:", severity: .warning, message: "has no userInfo entry 't'",
             accepted: blog("    attributes: { title: string }\n    fetchedProperties:\n      same: { destination: Post, predicate: 'title == $FETCHED_PROPERTY.userInfo.t', userInfo: { t: x } }")),
        Rule(name: "$FETCHED_PROPERTY is read through its userInfo",
             refused: blog("    attributes: { title: string }\n    fetchedProperties:\n      same: { destination: Post, predicate: 'title == $FETCHED_PROPERTY.name' }"),
             marker: "same:", message: "$FETCHED_PROPERTY is read as $FETCHED_PROPERTY.userInfo.<key>",
             accepted: blog("    attributes: { title: string }\n    fetchedProperties:\n      same: { destination: Post, predicate: 'title == $FETCHED_PROPERTY.userInfo.name', userInfo: { name: x } }")),
        Rule(name: "fetch requests name an entity", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  all: { entity: Pots }"),
             marker: "all:", message: "unknown entity 'Pots'",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  all: { entity: Post }")),
        Rule(name: "fetch request names are function names", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  AllPosts: { entity: Post }"),
             marker: "AllPosts:", message: "lower-camel Swift identifier",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  allPosts: { entity: Post }")),
        Rule(name: "undefined attributes are transient", refused: blog("    attributes: { title: string, brush: { type: undefined, swiftType: Brush } }"),
             marker: "undefined,", message: "undefined attribute 'Post.brush' must be 'transient: true'",
             accepted: blog("    attributes: { title: string, brush: { type: undefined, swiftType: Brush, transient: true } }")),
        Rule(name: "undefined attributes name their Swift type", refused: blog("    attributes: { title: string, brush: { type: undefined, transient: true } }"),
             marker: "undefined,", message: "undefined attribute 'Post.brush' needs 'swiftType'",
             accepted: blog("    attributes: { title: string, brush: { type: undefined, transient: true, swiftType: Brush } }")),
        Rule(name: "CAST makes dates and numbers only", refused: blog("    attributes: { title: string, at: date }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'at > CAST(1, \"NSString\")' }"),
             marker: "CAST(1", message: "CAST to 'NSString' is not supported (NSDate, NSNumber)",
             accepted: blog("    attributes: { title: string, at: date }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'at > CAST(1, \"NSDate\")' }")),
        Rule(name: "a CAST date compares with dates", refused: blog("    attributes: { title: string, at: date }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'title == CAST(1, \"NSDate\")' }"),
             marker: "title ==", message: "type mismatch: 'title' is string but 'CAST(1, \"NSDate\")' is date",
             accepted: blog("    attributes: { title: string, at: date }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'at == CAST(1, \"NSDate\")' }")),
        Rule(name: "predicates nest at most 100 levels", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, predicate: '\(String(repeating: "(", count: 20_000))title == \"x\"\(String(repeating: ")", count: 20_000))' }"),
             marker: "q:", message: "nested more than 100 levels deep",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, predicate: '\(String(repeating: "(", count: 99))NOT title == \"x\"\(String(repeating: ")", count: 99))' }")),
        Rule(name: "a swiftName names the function of a template named otherwise", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  AllPosts: { entity: Post, swiftName: fetchRequest }"),
             marker: "fetchRequest }", message: "swiftName 'fetchRequest' collides with a member of the generated model type",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  AllPosts: { entity: Post, swiftName: allPosts }")),
        Rule(name: "two templates make two functions", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  all: { entity: Post }\n  All: { entity: Post, swiftName: all }"),
             marker: "all }", message: "fetch requests 'all' and 'All' both generate the function 'all'",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  all: { entity: Post }\n  All: { entity: Post, swiftName: allOfThem }")),
        Rule(name: "$FETCH_SOURCE only in fetched properties", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  mine: { entity: Post, predicate: 'author == $FETCH_SOURCE' }"),
             marker: "mine:", message: "$FETCH_SOURCE exists only",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  mine: { entity: Post, predicate: 'author == $AUTHOR' }")),
        Rule(name: "a variable has one type", refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'title == $X OR likes == $X' }"),
             marker: "q:", message: "'$X' is string",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'title == $X OR title BEGINSWITH $X' }")),
        Rule(name: "variable types are inferable", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, predicate: '$A == $B' }"),
             marker: "q:", message: "cannot infer",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'title == $A' }")),
        Rule(name: "predicate operand types match", refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'likes == \"x\"' }"),
             marker: "q:", message: "type mismatch",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'likes == 3 AND likes < 2.5 AND author.name ==[cd] \"x\"' }")),
        Rule(name: "to-many key paths need ANY, ALL or NONE", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Author, predicate: 'posts.title == \"x\"' }"),
             marker: "q:", message: "write ANY, ALL or NONE",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Author, predicate: 'ANY posts.title == \"x\" AND posts.@count > 1 AND NONE posts.title IN $T AND posts CONTAINS $P' }")),
        Rule(name: "ANY needs a to-many key path", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'ANY title == \"x\"' }"),
             marker: "q:", message: "ANY needs a key path through a to-many",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'title == \"x\"' }")),
        Rule(name: "string operators compare strings", refused: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'likes BEGINSWITH \"1\"' }"),
             marker: "q:", message: "BEGINSWITH compares strings",
             accepted: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'author.name BEGINSWITH[c] \"1\"' }")),
        Rule(name: "[c] applies to strings", refused: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'likes ==[c] 3' }"),
             marker: "q:", message: "apply to strings only",
             accepted: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'likes == 3' }")),
        Rule(name: "BETWEEN takes two bounds", refused: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'likes BETWEEN {1, 2, 3}' }"),
             marker: "q:", message: "two bounds",
             accepted: blog("    attributes: { likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'likes BETWEEN {1, 3} OR likes BETWEEN $RANGE' }")),
        Rule(name: "predicates use stored properties", refused: blog("    attributes: { cache: { type: string, optional: true, transient: true } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'cache == nil' }"),
             marker: "q:", message: "transient attribute 'cache'",
             accepted: blog("    attributes: { cache: { type: string, optional: true } }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'cache == nil' }")),
        Rule(name: "key paths stop at attributes", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'title.length > 3' }"),
             marker: "q:", message: "continues past attribute",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, predicate: 'author.name == \"a\"' }")),
        Rule(name: "sort keys resolve", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, sort: [titl desc] }"),
             marker: "q:", message: "unknown key 'titl'",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Post, sort: [title desc, author.name] }")),
        Rule(name: "sort keys have an order", refused: blog("    attributes: { data: binary }", extra: "fetchRequests:\n  q: { entity: Post, sort: [data] }"),
             marker: "q:", message: "has no order",
             accepted: blog("    attributes: { data: binary, at: date }", extra: "fetchRequests:\n  q: { entity: Post, sort: [at] }")),
        Rule(name: "sort keys do not cross to-many", refused: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Author, sort: [posts.title] }"),
             marker: "q:", message: "crosses to-many",
             accepted: blog("    attributes: { title: string }", extra: "fetchRequests:\n  q: { entity: Author, sort: [name] }")),
        Rule(name: "configurations name entities", refused: blog("    attributes: { title: string }", extra: "configurations:\n  Cloud: [Post, Autor]"),
             marker: "Cloud:", message: "unknown entity 'Autor'",
             accepted: blog("    attributes: { title: string }", extra: "configurations:\n  Cloud: [Post, Author]")),
        Rule(name: "configurations list an entity once", refused: blog("    attributes: { title: string }", extra: "configurations:\n  Cloud: [Post, Post]"),
             marker: "Cloud:", message: "listed twice",
             accepted: blog("    attributes: { title: string }", extra: "configurations:\n  Cloud: [Post]")),
        Rule(name: "Default is the implicit configuration", refused: blog("    attributes: { title: string }", extra: "configurations:\n  Default: [Post]"),
             marker: "Default:", message: "implicit configuration",
             accepted: blog("    attributes: { title: string }", extra: "configurations:\n  Local: [Post]")),
        // Aggregate templates (groupBy, columns, having)
        Rule(name: "sums add numbers",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [author.name], columns: { n: 'sum:(title)' } }"),
             marker: "  f:", message: "sum:() adds numbers, but 'title' is string",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [author.name], columns: { n: 'sum:(likes)' } }")),
        Rule(name: "columns use the aggregate functions",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, columns: { n: 'median:(likes)' } }"),
             marker: "  f:", message: "column 'n' is one of average:(…), count(), max:(…), min:(…), sum:(…)",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, columns: { n: 'max:(likes)' } }")),
        Rule(name: "columns stay on to-one key paths",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [author], columns: { n: 'sum:(author.posts.likes)' } }"),
             marker: "  f:", message: "an aggregate's key path crosses to-many relationship 'posts'",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, groupBy: [posts.title, posts], columns: { n: count() } }")),
        Rule(name: "group keys through to-many relationships end at groupable values",
             refused: blog("    attributes: { title: string, body: binary, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, groupBy: [posts.body] }"),
             marker: "  f:", message: "cannot group by 'posts.body'",
             accepted: blog("    attributes: { title: string, body: binary, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, groupBy: [posts.likes] }")),
        Rule(name: "a group key has no direction",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [title desc] }"),
             marker: "  f:", message: "a group key path has no direction",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [title], sort: [title desc] }")),
        Rule(name: "having names keys and columns",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [title], columns: { n: count() }, having: 'total > 3' }"),
             marker: "  f:", message: "'total' is neither",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [title], columns: { n: count() }, having: 'n > 3' }")),
        Rule(name: "having compares like types",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [title], columns: { n: count() }, having: 'n == TRUE' }"),
             marker: "  f:", message: "type mismatch",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [title], columns: { n: count() }, having: 'n == 3 OR title BEGINSWITH $P' }")),
        Rule(name: "an aggregate sorts by keys and columns",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [author.name], sort: [title] }"),
             marker: "  f:", message: "sorts its groups by their keys and columns (author.name)",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [author.name], sort: [author.name desc] }")),
        Rule(name: "groups have no limit",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [title], limit: 5 }"),
             marker: "  f:", message: "which have no limit",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [title] }")),
        Rule(name: "having needs groups",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, predicate: 'likes > 1', having: 'likes > 2' }"),
             marker: "  f:", message: "having filters groups",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, predicate: 'likes > 2' }")),
        Rule(name: "row properties are distinct",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [author.name], columns: { authorName: count() } }"),
             marker: "  f:", message: "both become the row property 'authorName'",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [author.name], columns: { names: count() } }")),
        Rule(name: "columns do not take the row struct's own names",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, columns: { hashValue: count() } }"),
             marker: "  f:", message: "column name 'hashValue' is taken in the generated row struct",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, columns: { init: count() } }")),
        Rule(name: "column names are lower-camel identifiers",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, columns: { Total: count() } }"),
             marker: "  f:", message: "column name 'Total' must be a lower-camel Swift identifier",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, columns: { total: count() } }")),
        Rule(name: "projected key paths stay on to-one relationships",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 }, extra: { type: transformable, swiftType: Extra, optional: true } }", extra: "fetchRequests:\n  f: { entity: Post, properties: [title, author.posts.title] }"),
             marker: "  f:", message: "a projected key path crosses to-many relationship 'posts'",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 }, extra: { type: transformable, swiftType: Extra, optional: true } }", extra: "fetchRequests:\n  f: { entity: Post, properties: [title, author.name, author] }")),
        Rule(name: "projected values have a row type",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 }, extra: { type: transformable, swiftType: Extra, optional: true } }", extra: "fetchRequests:\n  f: { entity: Post, properties: [extra] }"),
             marker: "  f:", message: "cannot project 'extra'",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 }, extra: { type: transformable, swiftType: Extra, optional: true } }", extra: "fetchRequests:\n  f: { entity: Post, properties: [likes] }")),
        Rule(name: "a projected key path has no direction",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 }, extra: { type: transformable, swiftType: Extra, optional: true } }", extra: "fetchRequests:\n  f: { entity: Post, properties: [title desc] }"),
             marker: "  f:", message: "a projected key path has no direction",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 }, extra: { type: transformable, swiftType: Extra, optional: true } }", extra: "fetchRequests:\n  f: { entity: Post, properties: [title] }")),
        Rule(name: "projected key paths make distinct row properties",
             refused: blog("    attributes: { title: string, authorName: string? }", extra: "fetchRequests:\n  f: { entity: Post, properties: [author.name, authorName] }"),
             marker: "  f:", message: "'authorName' becomes the row property 'authorName', which 'author.name' has",
             accepted: blog("    attributes: { title: string, authorName: string? }", extra: "fetchRequests:\n  f: { entity: Post, properties: [author.name, title] }")),
        Rule(name: "a first member of an unordered relationship has an order",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [name, { first: posts.title }] }"),
             marker: "  f:", message: "to-many relationship 'posts' is unordered; give its members an order with 'by'",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [name, { first: posts.title, by: [likes desc, title] }] }")),
        Rule(name: "a first member crosses a to-many relationship",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, properties: [{ first: author.name }] }"),
             marker: "  f:", message: "'first: author.name' crosses no to-many relationship",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, properties: [{ first: author.posts.title, by: [title] }] }")),
        Rule(name: "a first member's order names keys of the members",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ first: posts.title, by: [name] }] }"),
             marker: "  f:", message: "unknown key 'name' on entity 'Post'",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ first: posts.title, by: [title] }] }")),
        Rule(name: "a first member's name is a lower-camel identifier",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ first: posts.title, by: [title], as: Top }] }"),
             marker: "  f:", message: "'as: Top' must be a lower-camel Swift identifier",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ first: posts.title, by: [title], as: top }] }")),
        Rule(name: "first members of one key path take names",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ first: posts.title, by: [title] }, { first: posts.title, by: [title desc] }] }"),
             marker: "  f:", message: "or name a first member with 'as'",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ first: posts.title, by: [title] }, { first: posts.title, by: [title desc], as: last }] }")),
        Rule(name: "a first member crosses one to-many relationship",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ first: posts.author.posts.title, by: [title] }] }"),
             marker: "  f:", message: "a projected key path crosses to-many relationship 'posts'",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ first: posts.author.name, by: [title] }, { first: posts, by: [title] }] }")),
        Rule(name: "a first member names its key path",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ by: [title] }] }"),
             marker: "  f:", message: "missing required key 'first'",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Author, properties: [{ first: posts.likes, by: [title] }] }")),
        Rule(name: "a template asks for groups or for projected values",
             refused: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, groupBy: [title], properties: [likes] }"),
             marker: "  f:", message: "asks for groups (groupBy, columns) and for values of each record (properties)",
             accepted: blog("    attributes: { title: string, likes: { type: int64, default: 0 } }", extra: "fetchRequests:\n  f: { entity: Post, properties: [title, likes], predicate: 'likes > $MIN', limit: 5, sort: [likes desc] }")),
    ]

    @Test(arguments: rules)
    func refusesTheModelTheRuleForbids(rule: Rule) {
        expectDiagnostic(rule.refused, rule.severity, onLineWith: rule.marker, rule.message)
    }

    @Test(arguments: rules)
    func acceptsTheNeighbouringModel(rule: Rule) {
        expectClean(rule.accepted)
    }

    @Test func strictTurnsWarningsIntoErrors() {
        let yaml = "model: M\nentities:\n  A:\n    attributes:\n      weight: double?"
        #expect(!check(yaml).hasErrors)
        let strict = check(yaml, strict: true)
        #expect(strict.hasErrors)
        #expect(strict.diagnostics.first?.message.hasSuffix("[--strict]") == true)
    }

    @Test func selfInverseRelationshipsAreValid() {
        expectClean("model: M\nentities:\n  Person:\n    relationships:\n      friends: { destination: Person, toMany: true, inverse: friends }\n      spouse: { destination: Person, inverse: spouse }")
    }

    /// Large models are checked in chunks on all cores (entities, and fetch requests with their
    /// predicates): the diagnostics, in their order, and the inferred template variables are those of
    /// checking everything in turn, with errors in many chunks and function names colliding across them.
    @Test func checkingInChunksFindsWhatCheckingInTurnFinds() throws {
        var yaml = "model: Chunks\nentities:\n"
        for i in 0..<90 {
            yaml += "  E\(i):\n    attributes:\n      name: { type: string, default: \(i % 7 == 0 ? "12" : "x") }\n      count: int32\n"
            // One regex cache serves every chunk: a pattern that does not compile is reported at each
            // attribute using it, and a default is matched against the pattern its own attribute has.
            yaml += "      code: { type: string, regex: '\(i % 5 == 0 ? "[unclosed" : "^[a-z]+$")', default: \(i % 4 == 0 ? "A1" : "ab") }\n"
            yaml += "    relationships:\n      next: { destination: E\((i + 1) % 90), inverse: \(i % 11 == 0 ? "nope" : "previous") }\n"
            yaml += "      previous: { destination: E\((i + 89) % 90), inverse: next }\n"
        }
        yaml += "fetchRequests:\n"
        for i in 0..<90 {
            let predicate = i % 5 == 0 ? "count == 'text'" : i % 3 == 0 ? "missing > $MIN" : "name BEGINSWITH $PREFIX AND count > $MIN_\(i)"
            yaml += "  query\(i): { entity: E\(i), predicate: \"\(predicate)\", sort: [\(i % 4 == 0 ? "next" : "name")]\(i % 9 == 0 ? ", swiftName: shared" : "") }\n"
        }
        let parsed = ModelParser.parse(text: yaml, path: "Chunks.model.yaml")
        let model = try #require(parsed.model)
        let chunked = ModelValidator.validate(model, inChunks: true)
        let inTurn = ModelValidator.validate(model, inChunks: false)
        #expect(chunked.diagnostics == inTurn.diagnostics)
        #expect(chunked.templateVariables == inTurn.templateVariables)
        #expect(chunked.diagnostics.count > 60, "errors in many chunks: \(chunked.diagnostics.count)")
        #expect(chunked.diagnostics.contains { $0.id == .nameCollision }, "function names collide across chunks")
        #expect(chunked.templateVariables["query1"]?.map(\.name) == ["PREFIX", "MIN_1"])
        let regexErrors = chunked.diagnostics.filter { $0.message.contains("regex") }.map(\.location.line)
        #expect(regexErrors.count == 18 + 18, "18 patterns that do not compile; 18 defaults that do not match a pattern that does: \(regexErrors.count)")
    }
    /// A model built in code (YAML cannot repeat a key) may name two entities alike: the second is
    /// refused at its name, with a note at the first, and a third is refused too; the class-name table
    /// is not confused by the repeated entities.
    @Test func entitiesNamedTwiceInACodeBuiltModelAreRefused() throws {
        let parsed = ModelParser.parse(text: "model: M\nentities:\n  Item: {}\n  Other: {}\n  Third: {}\n  Last: {}\n", path: "M.model.yaml")
        var model = try #require(parsed.model)
        model.entities[1].name = Located("Item", at: model.entities[1].name.location)
        model.entities[2].name = Located("Item", at: model.entities[2].name.location)
        let found = ModelValidator.validate(model).diagnostics.filter { $0.id == .duplicateDeclaration }
        #expect(found.map(\.message) == ["entity 'Item' is declared twice", "entity 'Item' is declared twice"])
        #expect(found.map(\.location.line) == [4, 5])
        #expect(found.allSatisfy { $0.notes.first?.location?.line == 3 })
        #expect(!ModelValidator.validate(model).diagnostics.contains { $0.id == .nameCollision })
    }
}

