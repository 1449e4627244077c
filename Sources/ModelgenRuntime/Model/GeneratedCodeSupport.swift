import Foundation

/// A named value transformer for a transformable attribute (`transformer: RectTransformer` in the model):
/// turns the attribute's values into stored data and back.
public protocol ManagedValueTransformer: SendableMetatype {
    /// The Swift type of the attribute's values.
    associatedtype Value
    /// The data stored for a value.
    static func encode(_ value: Value) throws -> Data
    /// The value stored data holds.
    static func decode(_ data: Data) throws -> Value
}

extension ValueCodec {
    /// The codec of a named value transformer.
    public static func transformer<T: ManagedValueTransformer>(_ type: T.Type) -> ValueCodec {
        ValueCodec(
            encode: { value in
                guard let typed = value as? T.Value else {
                    throw RuntimeError.typeMismatch(expected: "\(T.Value.self)", found: "\(Swift.type(of: value))")
                }
                return try T.encode(typed)
            },
            decode: { data in try T.decode(data) })
    }

    /// For generated descriptions of enum attributes: whether a stored value is a raw value the type accepts.
    public static func acceptsRawValue<T: RawRepresentable & SendableMetatype>(of type: T.Type) -> @Sendable (StoreValue) -> Bool
    where T.RawValue: ManagedValue {
        { value in
            let slot = SlotValue(value)
            switch (slot, T.RawValue.self) {
            case (.int(let v), is Int16.Type): return Int16(exactly: v).flatMap { T(rawValue: $0 as! T.RawValue) } != nil
            case (.int(let v), is Int32.Type): return Int32(exactly: v).flatMap { T(rawValue: $0 as! T.RawValue) } != nil
            case (.int, _), (.string, _): return T(rawValue: T.RawValue.fromSlot(slot)) != nil
            default: return false
            }
        }
    }
}

extension ManagedObjectModel {
    /// The model of a generated model file. Its descriptions come from a model file modelgen validated,
    /// so the runtime refuses them only when generated code and runtime disagree: that stops the program
    /// with the runtime's reason and the fix (regenerate), instead of a `try!` in generated code.
    @_spi(Generated) public static func generated(name: String, entities: [EntityDescription], fetchRequestTemplates: [FetchRequestTemplate],
                                 configurations: [String: [String]]) -> ManagedObjectModel {
        do {
            return try ManagedObjectModel(name: name, entities: entities, fetchRequestTemplates: fetchRequestTemplates,
                                          configurations: configurations)
        } catch {
            preconditionFailure("ModelgenRuntime: the generated model '\(name)' does not match this runtime (\(error)); run `modelgen generate` again")
        }
    }

    /// The fetch request of a generated typed template function: every variable the template names is a
    /// parameter of the function, so only a model file edited by hand can make this fail (it stops the program).
    @_spi(Generated) public func generatedFetchRequest<Result: ManagedObject>(fromTemplate name: String, variables: [String: Any?]) -> FetchRequest<Result> {
        generated(fromTemplate: name) { try fetchRequest(fromTemplate: name, variables: variables) }
    }

    /// The request of a generated aggregate template function, whose rows `makeRow` types (as above,
    /// it fails only for a model file edited by hand).
    @_spi(Generated) public func generatedAggregateRequest<Result: ManagedObject, Row>(
        fromTemplate name: String, variables: [String: Any?], makeRow: @escaping @Sendable (AggregateRow) -> Row
    ) -> TypedAggregateRequest<Result, Row> {
        generated(fromTemplate: name) { TypedAggregateRequest(try aggregateRequest(fromTemplate: name, variables: variables), makeRow: makeRow) }
    }

    /// The request of a generated projection template function, whose rows `makeRow` types (as above,
    /// it fails only for a model file edited by hand).
    @_spi(Generated) public func generatedProjectionRequest<Result: ManagedObject, Row>(
        fromTemplate name: String, variables: [String: Any?], makeRow: @escaping @Sendable (ProjectedRow) -> Row
    ) -> TypedProjectionRequest<Result, Row> {
        generated(fromTemplate: name) { TypedProjectionRequest(try projectionRequest(fromTemplate: name, variables: variables), makeRow: makeRow) }
    }

    /// What `make` builds from the template `name`; a failure stops the program naming the fix.
    private func generated<Request>(fromTemplate name: String, _ make: () throws -> Request) -> Request {
        do {
            return try make()
        } catch {
            preconditionFailure("ModelgenRuntime: fetch request template '\(name)' of model '\(self.name)': \(error); run `modelgen generate` again")
        }
    }
}
