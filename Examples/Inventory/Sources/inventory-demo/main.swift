import Inventory
import ModelgenRuntime

let container = try ManagedContainer(model: InventoryModel.model, store: .inMemory)
let context = container.newContext()
let depot = Warehouse(context: context, name: "Depot")
for (sku, quantity) in [("ABC-0001", 3), ("ABC-0002", 40), ("XYZ-0003", 1)] {
    let item = Item(context: context, sku: sku, warehouse: depot)
    item.quantity = Int32(quantity)
}
try context.save()
let reader = container.newContext()   // objects live as long as their context: keep it while using them
let low = try reader.fetch(InventoryModel.lowStock(limit: 5))
print("low stock: \(low.map(\.sku).joined(separator: ", ")) (reorder: \(low.allSatisfy(\.needsReorder)))")
