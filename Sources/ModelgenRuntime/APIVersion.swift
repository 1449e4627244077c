/// Generated code proves at compile time that the runtime it links against speaks its API
/// version: it declares a type conforming to `ModelgenRuntimeAPIVersion_1`. A runtime without
/// that protocol makes it one clear compiler error ("cannot find type
/// 'ModelgenRuntimeAPIVersion_1'"), not a hundred (as swift-protobuf's ProtobufAPIVersion does).
public protocol ModelgenRuntimeAPIVersion_1 {}

/// The check generated files declare: `typealias Version = _1` where `_1: ModelgenRuntimeAPIVersion_1`.
public protocol ModelgenRuntimeAPIVersionCheck {
    associatedtype Version
}
