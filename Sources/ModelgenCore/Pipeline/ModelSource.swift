import Foundation

/// One model file's bytes and the path diagnostics name it by.
public struct ModelSource: Sendable {
    /// The path diagnostics name the file by (as given: relative paths stay relative).
    public var path: String
    /// The file's bytes.
    public var contents: Data

    /// A model file read into memory.
    public init(path: String, contents: Data) {
        self.path = path
        self.contents = contents
    }
}
