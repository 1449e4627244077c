/// A store that loads objects as it reads its rows: for each row, before decoding it, the store asks
/// for the row's object, writes the object's plain stored attributes straight into its slots, and
/// hands over the rest of the row; and it reads a to-many relationship's members with their rows in
/// one statement. The context uses a store this way only through this protocol (never by its type);
/// a store without it answers with rows (`QueryingStore.fetch(_:each:)`), loaded by the context.
protocol DirectLoadingStore: QueryingStore {
    /// `fetch(_:each:)` loading objects from the statement: `objects` gives each row's object and
    /// whether the row loads it; `body` gets the row, that object, and whether its plain attributes
    /// were written into its slots (then the row's values of them are not to be read). False when the
    /// query cannot run in the store.
    func fetch(_ query: StoreQuery, objects: ((ObjectID) -> (object: ManagedObject, loadsHere: Bool))?,
               each body: (StoreRow, _ object: ManagedObject?, _ plainLoaded: Bool) throws -> Void) throws -> Bool

    /// The members of relationship `slot` of the records `ids`, link by link in each owner's order:
    /// the owner's key, the member, and the first time a member comes, its row and (with `objects`)
    /// its object and whether its plain attributes were written into it. False, calling `member` for
    /// none, when the relationship's members are not read with their rows.
    func forEachMember(of ids: [ObjectID], relationship slot: Int,
                       objects: ((ObjectID) -> (object: ManagedObject, loadsHere: Bool))?,
                       _ member: (_ ownerKey: Int64, _ member: ObjectID, _ row: StoreRow?, _ object: ManagedObject?, _ plainLoaded: Bool) throws -> Void) throws -> Bool
}

extension SQLiteStore: DirectLoadingStore {}
