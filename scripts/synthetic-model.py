#!/usr/bin/env python3
"""Writes a valid synthetic model of N entities to stdout (make tsan: large enough, over 64 KB, for
the parser to read its entities on a second thread while composing, EntityReadAhead)."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
lines = ["model: Synthetic", "entities:"]
for i in range(n):
    lines += [f"  E{i}:", "    attributes:"]
    lines += [f"      a{k}: {{ type: int32, default: 0, min: 0, max: 9 }}" for k in range(8)]
    lines += ["      name: { type: string, regex: '^[a-z]+$' }", "    relationships:",
              f"      up: {{ destination: E{(i + 1) % n}, inverse: down }}",
              f"      down: {{ destination: E{(i + n - 1) % n}, toMany: true, inverse: up }}"]
print("\n".join(lines))
