#!/usr/bin/env python3
"""Holds the JSON Schemas of Schemas/ to what modelgen accepts, with a real JSON Schema validator.

    scripts/check-schemas.py MODELGEN [SHARED]

- Every model file of the repository (and of SHARED/models, when given) that `MODELGEN validate`
  accepts must validate against Schemas/model.schema.json, each version of a version folder too.
- Every Xcode model of the repository's fixtures and of SHARED/realworld, imported with
  `MODELGEN import`, likewise.
- Every file of SHARED/models/invalid whose error is structural (a key, a type or a shape a schema
  can tell, listed in STRUCTURAL below) must be rejected by the schema.
- The files `MODELGEN init --generated committed` writes (a model, modelgen.yml) must validate against
  their schemas.

YAML is read as yaml-language-server reads it (YAML 1.2's core schema: `yes` and `2024-05-01` are
strings, `true` and `10` are not), since that is what editors check while typing.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
    import yaml
except ImportError as error:  # `make deps` installs both
    sys.exit(f"error: {error.name} is missing (pip install jsonschema pyyaml, or make deps)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Invalid-corpus files whose problem is visible to a schema, by file name.
STRUCTURAL = {
    "unknown-key.model.yaml": "an unknown key ('tomany')",
    "malformed.model.yaml": "not YAML",
}


class Core12Loader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's core schema instead of 1.1's implicit types."""


Core12Loader.yaml_implicit_resolvers = {}
for tag, pattern, first in [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
     "-+0123456789."),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
]:
    Core12Loader.add_implicit_resolver(tag, re.compile(pattern), list(first))


def load_schema(name):
    with open(os.path.join(ROOT, "Schemas", name), encoding="utf-8") as file:
        schema = json.load(file)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_errors(validator, path):
    """The schema's complaints about a YAML file, or a YAML error, as lines."""
    try:
        with open(path, encoding="utf-8-sig") as file:
            document = yaml.load(file, Loader=Core12Loader)
    except yaml.YAMLError as error:
        return [f"not YAML: {str(error).splitlines()[0]}"]
    return [f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
            for error in validator.iter_errors(document)]


def model_files(base):
    for folder, subfolders, files in os.walk(base):
        subfolders[:] = [name for name in subfolders if not name.startswith(".build") and name != "invalid"]
        for name in sorted(files):
            if name.endswith((".model.yaml", ".model.yml")):
                yield os.path.join(folder, name)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    modelgen = os.path.abspath(sys.argv[1])
    shared = sys.argv[2] if len(sys.argv) > 2 else None
    model = load_schema("model.schema.json")
    project = load_schema("modelgen.schema.json")
    load_schema("modelgen-config.schema.json")
    failures, checked = [], 0

    candidates = [path for folder in ("Examples", "Tests/Models", "Tests/Fixtures/Versions")
                  for path in model_files(os.path.join(ROOT, folder))]
    if shared and os.path.isdir(os.path.join(shared, "models")):
        candidates += sorted(os.path.join(shared, "models", name) for name in os.listdir(os.path.join(shared, "models"))
                             if name.endswith(".model.yaml"))
    imports = tempfile.TemporaryDirectory()
    xml = [os.path.join(ROOT, "Tests/Fixtures/CoreDataModels", name)
           for name in sorted(os.listdir(os.path.join(ROOT, "Tests/Fixtures/CoreDataModels")))]
    if shared and os.path.isdir(os.path.join(shared, "realworld")):
        xml += sorted(os.path.join(shared, "realworld", name) for name in os.listdir(os.path.join(shared, "realworld"))
                      if name.endswith(".xml"))
    for source in xml:
        target = os.path.join(imports.name, os.path.basename(source)[:-4] + ".model.yaml")
        if subprocess.run([modelgen, "import", source, "--output", target], capture_output=True).returncode == 0:
            candidates.append(target)
    for path in candidates:
        accepted = subprocess.run([modelgen, "validate", path], capture_output=True).returncode == 0
        if not accepted:
            continue
        checked += 1
        failures += [f"{path}: modelgen accepts it, the schema does not: {problem}"
                     for problem in schema_errors(model, path)[:1]]

    if shared and os.path.isdir(os.path.join(shared, "models", "invalid")):
        for name, reason in sorted(STRUCTURAL.items()):
            path = os.path.join(shared, "models", "invalid", name)
            checked += 1
            if not schema_errors(model, path):
                failures.append(f"{name}: the schema accepts it, but it is {reason}")

    with tempfile.TemporaryDirectory() as directory:
        run = subprocess.run([modelgen, "init", "--name", "Starter", "--generated", "committed", "--modelgen-path", ROOT],
                             cwd=directory, capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"modelgen init failed: {run.stderr.strip()}")
        else:
            for path, validator in [(os.path.join(directory, "modelgen.yml"), project)] + \
                    [(path, model) for path in model_files(directory)]:
                checked += 1
                failures += [f"modelgen init's {os.path.relpath(path, directory)}: {problem}"
                             for problem in schema_errors(validator, path)[:1]]

    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    print(f"schemas: {checked - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
