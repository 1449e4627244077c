#!/usr/bin/env python3
"""Writes Tests/Fixtures/Versions/Storefront.modelversions: a model history of the shape real Core Data
apps keep (a shop's 101 versions, 64 entities growing to 80 and more, one change per version, the
optional scalars Xcode models are full of), for the version-history bench and tests. Deterministic:
the same files every run (random.Random(61)).

    scripts/history-fixture.py [VERSIONS]
"""
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "Tests", "Fixtures", "Versions", "Storefront.modelversions")
VERSIONS = int(sys.argv[1]) if len(sys.argv) > 1 else 101
NOUNS = ["Order", "Product", "Customer", "Coupon", "Refund", "Shipment", "Review", "Category", "Tag", "Note",
         "Tax", "Fee", "Address", "Payment", "Variation", "Attribute", "Stock", "Site", "Plugin", "Report",
         "Lead", "Invoice", "Receipt", "Warehouse", "Supplier", "Bundle", "Gift", "Wishlist", "Cart", "Session"]
WORDS = ["total", "count", "status", "date", "amount", "price", "weight", "rating", "name", "code", "kind",
         "level", "limit", "share", "rank", "score", "stock", "width", "height", "depth", "sale", "regular", "tax"]
SCALARS = ["int16?", "int32?", "int64?", "double?", "bool?", "string?", "date?", "decimal?"]

rng = random.Random(61)


class Entity:
    def __init__(self, name):
        self.name = name
        self.attributes = []   # [name, type, extra]
        self.relationships = []  # [name, destination, toMany, inverse]

    def fresh(self, base):
        taken = {a[0] for a in self.attributes} | {r[0] for r in self.relationships}
        name, n = base, 2
        while name in taken:
            name, n = f"{base}{n}", n + 1
        return name


def attribute_name(entity):
    return entity.fresh(rng.choice(WORDS) + rng.choice(["", "Value", "Id", "At", "Count"]))


def new_entity(entities):
    taken = {e.name for e in entities}
    base = rng.choice(NOUNS)
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    entity = Entity(name)
    entity.attributes.append([entity.fresh("identifier"), "int64", "default: 0"])
    for _ in range(rng.randint(3, 9)):
        entity.attributes.append([attribute_name(entity), rng.choice(SCALARS + ["string"]), ""])
    return entity


def relate(entities, entity):
    other = rng.choice([e for e in entities if e is not entity])
    to_many = entity.fresh(other.name[0].lower() + other.name[1:] + "s")
    back = other.fresh(entity.name[0].lower() + entity.name[1:])
    entity.relationships.append([to_many, other.name, True, back])
    other.relationships.append([back, entity.name, False, to_many])


def text(entities):
    lines = ["# A shop's model, one of the versions scripts/history-fixture.py writes (a history of the shape real",
             "# Core Data apps keep). Released versions never change: the next version is a new file.",
             "model: Storefront", "entities:"]
    for entity in entities:
        lines.append(f"  {entity.name}:")
        lines.append("    attributes:")
        for name, kind, extra in entity.attributes:
            if extra:
                optional = kind.endswith("?")
                lines.append(f"      {name}: {{ type: {kind.rstrip('?')}{', optional: true' if optional else ''}, {extra} }}")
            else:
                lines.append(f"      {name}: {kind}")
        if entity.relationships:
            lines.append("    relationships:")
            for name, destination, to_many, inverse in entity.relationships:
                many = ", toMany: true, deleteRule: cascade" if to_many else ""
                lines.append(f"      {name}: {{ destination: {destination}{many}, inverse: {inverse} }}")
    return "\n".join(lines) + "\n"


entities = []
for _ in range(64):
    entities.append(new_entity(entities))
for entity in list(entities[1:]):
    if rng.random() < 0.6:
        relate(entities, entity)

os.makedirs(FOLDER, exist_ok=True)
for name in os.listdir(FOLDER):
    os.remove(os.path.join(FOLDER, name))
for version in range(1, VERSIONS + 1):
    if version > 1:
        roll = rng.random()
        if roll < 0.2:
            entity = new_entity(entities)
            entities.append(entity)
            relate(entities, entity)
        elif roll < 0.35:
            entity = rng.choice(entities)
            candidates = [a for a in entity.attributes if a[1] == "string?" and not a[2]]
            if candidates:
                candidates[0][1], candidates[0][2] = "string", "default: ''"
            else:
                entity.attributes.append([attribute_name(entity), "string?", ""])
        elif roll < 0.42:
            entity = rng.choice(entities)
            plain = [a for a in entity.attributes if not a[2]]
            if plain:
                old = plain[0]
                old[2] = f"renamingIdentifier: {old[0]}"
                old[0] = entity.fresh(old[0] + "Value")
            else:
                entity.attributes.append([attribute_name(entity), rng.choice(SCALARS), ""])
        else:
            entity = rng.choice(entities)
            entity.attributes.append([attribute_name(entity), rng.choice(SCALARS), ""])
    with open(os.path.join(FOLDER, f"v{version}.model.yaml"), "w", encoding="utf-8") as file:
        file.write(text(entities))
    # A rename is released once: the next version keeps the new name without the identifier.
    for entity in entities:
        for attribute in entity.attributes:
            if attribute[2].startswith("renamingIdentifier"):
                attribute[2] = ""
print(f"wrote {VERSIONS} versions, {len(entities)} entities in the last, into {os.path.relpath(FOLDER, ROOT)}")
