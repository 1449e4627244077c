import Foundation

/// An aggregate request whose groups come back as a row type of yours instead of `AggregateRow`s:
/// what the generated function of an aggregate template in the model file returns
/// (`try context.aggregate(LibraryModel.pagesPerGenre(minPages: 100))` gives `[LibraryModel.PagesPerGenreRow]`).
public struct TypedAggregateRequest<Result: ManagedObject, Row> {
    /// The request the store answers (change it as any `AggregateRequest`).
    public var request: AggregateRequest<Result>
    /// Makes a typed row of each group.
    public let makeRow: @Sendable (AggregateRow) -> Row

    /// A request whose rows `makeRow` types.
    public init(_ request: AggregateRequest<Result>, makeRow: @escaping @Sendable (AggregateRow) -> Row) {
        self.request = request
        self.makeRow = makeRow
    }
}

extension ManagedObjectContext {
    /// The groups of a typed aggregate request, as its rows (see `aggregate(_:)` for what is included).
    public func aggregate<Result: ManagedObject, Row>(_ request: TypedAggregateRequest<Result, Row>) throws -> [Row] {
        try aggregate(request.request).map(request.makeRow)
    }
}
