/// Generated code proves at compile time that the runtime it links against speaks its API
/// version: it declares a type conforming to `ModelgenRuntimeAPIVersion_1`. A runtime without
/// that protocol makes it one clear compiler error ("cannot find type
/// 'ModelgenRuntimeAPIVersion_1'"), not a hundred (as swift-protobuf's ProtobufAPIVersion does).
public protocol ModelgenRuntimeAPIVersion_1 {}

/// Version 2: `@Managed` for every property kind (relationships, `ManagedRawValue` enums,
/// `ManagedTransformable` values), `Observable` objects, nested `Keys`. The runtime still speaks
/// version 1, so code generated before keeps compiling.
public protocol ModelgenRuntimeAPIVersion_2 {}

/// The check generated files declare: `typealias Version = _2` where `_2: ModelgenRuntimeAPIVersion_2`.
public protocol ModelgenRuntimeAPIVersionCheck {
    /// The `ModelgenRuntimeAPIVersion_N` protocol a generated file requires: compiling against a runtime without it is the one, clear error.
    associatedtype Version
}
