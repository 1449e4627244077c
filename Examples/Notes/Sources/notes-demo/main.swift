import ModelgenRuntime
import NotesModel

// Insert, save, fetch with the generated template function, and show a validation error.
let container = try ManagedContainer(model: NotesModel.model, store: .inMemory)
let context = container.newContext()

let notebook = Notebook(context: context, title: "Ideas")
let first = Note(context: context, text: "Try modelgen on Linux", notebook: notebook)
first.pinned = true
_ = Note(context: context, text: "Buy milk", notebook: notebook)
try context.save()
print("saved \(notebook.notes.count) notes in '\(notebook.title)'")

let reader = container.newContext()
for note in try reader.fetch(NotesModel.pinnedNotes(word: "MODELGEN")) {
    print("pinned: \(note.text)")
}

_ = Note(context: context, text: "TODO: write docs", notebook: notebook)
do {
    try context.save()
} catch let error as ValidationError {
    print("refused: \(error.failures.map(\.description).joined(separator: "; "))")
}
