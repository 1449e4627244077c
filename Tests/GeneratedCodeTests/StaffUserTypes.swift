import Foundation
import ModelgenRuntime

// Staff: the user's side of the generated code (Examples/Staff/Staff.model.yaml).

/// `level: { type: int16, swiftType: Level }`.
enum Level: Int16, Sendable {
    case junior = 1, senior, lead
}

// The computed properties' values (`computed:` in the model); the generated properties call these
// after registering their dependencies with observation.
extension StaffMember {
    func computeFullName() -> String { "\(firstName) \(lastName)" }
}

extension Employee {
    func computeTitle() -> String { "\(fullName), \(department?.name ?? "no department")" }
}

extension Department {
    func computeHeadcount() -> Int { members.count }
}
