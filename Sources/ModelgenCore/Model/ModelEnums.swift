/// How modelgen writes an entity's class (Xcode's Codegen setting).
public enum CodegenMode: String, CaseIterable, Sendable, Hashable {
    /// modelgen writes the whole class (Xcode: Class Definition).
    case `class`
    /// The user declares the class; modelgen writes an extension with the modeled properties (Xcode: Category/Extension).
    case `extension`
    /// No Swift for the class; the entity is still in the model description (Xcode: Manual/None).
    case none
}

/// How generated classes declare their modeled properties.
public enum PropertyStyle: String, CaseIterable, Sendable, Hashable {
    /// `@Managed(slot: 3) var title: String` (the default).
    case managed
    /// Computed accessors over the same slots (`get { managedValue(at: 3) }`): same behaviour, less
    /// compile time (figures in docs/performance.md). Extension-mode files always use this form.
    case accessors
}

/// The access level of generated declarations.
public enum AccessLevel: String, CaseIterable, Sendable, Hashable {
    /// Visible in the module (Swift's default).
    case `internal`
    /// Visible in the package's modules.
    case `package`
    /// Visible to every module that imports the generated code's module.
    case `public`
}

/// What happens to related objects when an object is deleted.
public enum DeleteRule: String, CaseIterable, Sendable, Hashable {
    /// Remove the deleted object from the inverse relationship (the default).
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Refuse the delete (the save fails) while related objects exist.
    case deny
    /// Do nothing: related objects may keep a reference to the deleted object.
    case noAction
}
