import Foundation

/// One model file's bytes and the path diagnostics name it by.
public struct ModelSource: Sendable {
    public var path: String
    public var contents: Data

    /// A model file read into memory.
    public init(path: String, contents: Data) {
        self.path = path
        self.contents = contents
    }
}
