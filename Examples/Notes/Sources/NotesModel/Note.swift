import Foundation
import ModelgenRuntime

/// The user's side of an extension-mode entity: modelgen generates the properties
/// (text, createdAt, pinned, notebook) in an extension of this class.
public final class Note: ManagedObject {
    public override func awakeFromInsert() {
        super.awakeFromInsert()
        createdAt = Date()   // once, when the note is inserted
    }

    public override func validateForInsert() throws {
        try super.validateForInsert()
        if text.hasPrefix("TODO") && !pinned {
            throw ValidationError([.init(object: self, key: Note.Keys.pinned, message: "TODO notes must be pinned")])
        }
    }
}
