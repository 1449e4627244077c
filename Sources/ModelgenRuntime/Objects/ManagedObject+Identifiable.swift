/// Managed objects are `Identifiable` by their `ObjectID`, as SwiftData's models are by their
/// persistent identifier: `ForEach(results.objects) { book in … }` and `List(selection:)` work on them
/// directly, and the ID crosses actors (it is Sendable) where the object may not.
///
/// The ID of an object inserted and not yet saved is temporary; its first save replaces it with the
/// permanent one (as SwiftData's does). An entity with an attribute of its own named `id` keeps it:
/// `post.id` in code that knows the class reads the attribute, while `Identifiable` (SwiftUI, generic
/// code) uses the object ID, as Core Data's `NSManagedObject` does with its own identifier.
extension ManagedObject: Identifiable {
    /// The identity `Identifiable` uses: the object's `ObjectID`.
    public typealias ID = ObjectID
}

extension Identifiable where Self: ManagedObject {
    /// The object's `objectID` (see `ManagedObject`'s conformance to `Identifiable`).
    public var id: ObjectID { objectID }
}
