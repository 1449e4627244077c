import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

/// The merge-policy matrix (ModelgenRuntimeTests.MergePolicyMatrixTests, written out there from Core
/// Data's documented policies) on every store kind, PostgreSQL included, with this suite's model:
/// a project's title and budget, its lead (to-one) and members (many-to-many).
@Suite struct MergePolicyStoreTests {
    enum Clash: String, CaseIterable { case sameAttribute, differentAttributes, toOneVsToOne, toManyVsToMany, deleteVsUpdate, updateVsDelete }

    struct Stored: Equatable, CustomStringConvertible {
        var title: String, budget: Int64, lead: String, members: Set<String>
        var description: String { "\(title) / \(budget) / led by \(lead) / \(members.sorted())" }
    }

    /// As set up: "Engine", budget 10, led by Ada, members Ada.
    static func expected(_ policy: MergePolicy, _ clash: Clash) -> (conflict: Bool, project: Stored?) {
        var project = Stored(title: "Engine", budget: 10, lead: "Ada", members: ["Ada"])
        switch clash {
        case .sameAttribute, .differentAttributes, .deleteVsUpdate: project.title = "Theirs"
        case .toOneVsToOne: project.lead = "Grace"
        case .toManyVsToMany: project.members.insert("Grace")
        case .updateVsDelete: break
        }
        if policy == .error && clash != .toManyVsToMany { return (true, clash == .updateVsDelete ? nil : project) }
        switch (clash, policy) {
        case (.sameAttribute, .mergeByPropertyObjectTrump), (.sameAttribute, .overwrite): project.title = "Mine"
        case (.differentAttributes, .mergeByPropertyObjectTrump), (.differentAttributes, .mergeByPropertyStoreTrump): project.budget = 99
        case (.differentAttributes, .overwrite): project.title = "Engine"; project.budget = 99
        case (.toOneVsToOne, .mergeByPropertyObjectTrump), (.toOneVsToOne, .overwrite): project.lead = "Kath"
        case (.toManyVsToMany, _): project.members.insert("Kath")
        case (.deleteVsUpdate, .mergeByPropertyObjectTrump), (.deleteVsUpdate, .overwrite), (.updateVsDelete, _): return (false, nil)
        default: break
        }
        return (false, project)
    }

    @Test(arguments: availableKinds, [MergePolicy.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback])
    func everyClashEndsAsCoreDataSays(_ kind: StoreKind, _ policy: MergePolicy) throws {
        for clash in Clash.allCases {
            let container = ManagedContainer(model: semanticsModel, store: try kind.makeStore().store)
            let setup = container.newContext()
            var people: [String: ManagedObject] = [:]
            for name in ["Ada", "Grace", "Kath"] {
                let person = try setup.insertObject(entityName: "Employee")
                try person.setValue(name, forKey: "name")
                try person.setValue("\(name.lowercased())@example.com", forKey: "email")
                people[name] = person
            }
            let project = try setup.insertObject(entityName: "Project")
            try project.setValue("Engine", forKey: "title")
            try project.setValue(Int64(10), forKey: "budget")
            try project.setValue(people["Ada"], forKey: "lead")
            try project.setValue([people["Ada"]!], forKey: "members")
            try setup.save()
            let ids = people.mapValues(\.objectID)

            let theirs = container.newContext(), mine = container.newContext()
            mine.mergePolicy = policy
            let their = try theirs.existingObject(with: project.objectID), my = try mine.existingObject(with: project.objectID)
            for object in [their, my] { _ = try object.value(forKey: "members") }
            func add(_ name: String, to object: ManagedObject, in context: ManagedObjectContext) throws {
                let members = try object.value(forKey: "members") as! [ManagedObject]
                try object.setValue(members + [try context.existingObject(with: ids[name]!)], forKey: "members")
            }
            switch clash {
            case .sameAttribute, .differentAttributes, .deleteVsUpdate: try their.setValue("Theirs", forKey: "title")
            case .toOneVsToOne: try their.setValue(try theirs.existingObject(with: ids["Grace"]!), forKey: "lead")
            case .toManyVsToMany: try add("Grace", to: their, in: theirs)
            case .updateVsDelete: theirs.delete(their)
            }
            try theirs.save()
            switch clash {
            case .sameAttribute, .updateVsDelete: try my.setValue("Mine", forKey: "title")
            case .differentAttributes: try my.setValue(Int64(99), forKey: "budget")
            case .toOneVsToOne: try my.setValue(try mine.existingObject(with: ids["Kath"]!), forKey: "lead")
            case .toManyVsToMany: try add("Kath", to: my, in: mine)
            case .deleteVsUpdate: mine.delete(my)
            }
            var conflict = false
            do { try mine.save() } catch is MergeConflictError { conflict = true }

            let reader = container.newContext()
            let stored = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Project")).first.map { p in
                Stored(title: try p.value(forKey: "title") as! String, budget: try p.value(forKey: "budget") as! Int64,
                       lead: try (p.value(forKey: "lead") as? ManagedObject)?.value(forKey: "name") as? String ?? "none",
                       members: Set(try (p.value(forKey: "members") as! [ManagedObject]).map { try $0.value(forKey: "name") as! String }))
            }
            let wanted = Self.expected(policy, clash)
            #expect(conflict == wanted.conflict && stored == wanted.project, "\(kind), \(policy), \(clash): \(conflict ? "conflict" : "saved"), \(stored.map { "\($0)" } ?? "gone")")
            // Both sides of the many-to-many agree.
            if let stored = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Project")).first {
                for person in try reader.fetch(FetchRequest<ManagedObject>(entityName: "Employee")) {
                    let inProject = try (stored.value(forKey: "members") as! [ManagedObject]).contains { $0 === person }
                    let projects = try person.value(forKey: "projects") as! [ManagedObject]
                    #expect(inProject == projects.contains { $0 === stored }, "\(kind), \(policy), \(clash)")
                }
            }
        }
    }
}
