// Made by scripts/runtime-type-names.py (make runtime-names) from Sources/ModelgenRuntime; a test
// fails when it is out of date. Do not edit.

/// The public top-level types of ModelgenRuntime: names an entity or class may not take.
enum RuntimeTypeNames {
    static let all: Set<String> = [
        "AggregateColumn", "AggregateFunction", "AggregateRequest", "AggregateRow", "AggregateRowValue",
        "AttributeDescription", "AttributeType", "ChangeSet", "CompositeFields", "DeleteRule", "EntityDescription",
        "FetchPredicate", "FetchRequest", "FetchRequestTemplate", "FetchResultType", "FetchResultsCollection",
        "FetchedPropertyDescription", "HistoryTransaction", "InMemoryFetch", "InMemoryStore", "LiveProjection",
        "LiveResults", "Managed", "ManagedComposite", "ManagedContainer", "ManagedObject", "ManagedObjectContext",
        "ManagedObjectFetching", "ManagedObjectModel", "ManagedRawValue", "ManagedScalarValue",
        "ManagedTransformable", "ManagedValue", "ManagedValueTransformer", "MergeConflictError", "MergePolicy",
        "MigrationContext", "MigrationError", "MigrationPlan", "MigrationPolicy", "MigrationProgress",
        "MigrationStage", "ModelActor", "ModelVersionHistory", "ModelgenRuntimeAPIVersionCheck",
        "ModelgenRuntimeAPIVersion_1", "ModelgenRuntimeAPIVersion_2", "ObjectConflict", "ObjectID", "ObjectIDList",
        "ObjectList", "ObservationMode", "PersistentStore", "PredicateFunctions", "ProjectedProperty",
        "ProjectedRow", "ProjectionRequest", "PropertyConflict", "PropertyDescription", "QueryPlan", "QueryValue",
        "QueryingStore", "ReadConflictError", "RecordWrite", "RelationshipDescription", "ResultsDifference",
        "ResultsSection", "ResultsSnapshot", "RuntimeError", "SQLiteConfiguration", "SQLiteStore",
        "SQLiteStoreError", "SaveIsolation", "ScalarCell", "ScalarKind", "SlotValue", "SortDescriptor",
        "StoreChanges", "StoreCommitResult", "StoreConflict", "StoreDescription", "StoreQuery", "StoreReadSet",
        "StoreRow", "StoreValue", "ToManyDelta", "TransformableBox", "TypedAggregateRequest",
        "TypedProjectionRequest", "UniquenessViolationError", "UnsupportedPredicateError", "ValidationError",
        "ValueCodec",
    ]
}

/// The public properties of ModelgenRuntime's `ManagedObject`: names a modeled property may not take.
enum RuntimeMemberNames {
    static let all: Set<String> = [
        "description", "entity", "hasChanges", "isDeleted", "isFault", "isInserted", "isPartial", "isUpdated",
        "managedObjectContext", "objectID", "slotValue",
    ]
}
