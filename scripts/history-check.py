#!/usr/bin/env python3
"""Checks a history written by `modelgen-store-stress history` against the promises of
docs/concurrency.md ("Isolation, stated"), as Jepsen's Elle checks list-append histories.

    scripts/history-check.py DIR           check DIR/history-*.jsonl and DIR/final.json
    scripts/history-check.py --self-test   the checker on hand-written histories of each anomaly

What it infers, over the committed transactions (saved, or killed during the save and found applied):
- from each list's final order, write-write edges between consecutive appends; from each read of a
  list, a write-read edge from the append it saw last, and a read-write (anti-dependency) edge to
  the append after it; registers likewise from the unique values written;
- cycles among them, each named by Adya's and Elle's classes: G0 (write cycles), G1c (write and
  read edges), G-single (one anti-dependency: read skew), G2 (several: write skew);
- G1a (a read saw an element of a transaction that failed), lost updates (two committed
  transactions read one version of a register and both wrote it);
- the final state: every element of a saved transaction present once, none of a failed one, a
  transaction killed during its save (or whose connection was lost during it) applied whole or not
  at all, each token code once, no group over its maximum;
- the change streams: the run's follower heard exactly the store's history, in commit order; each
  client process heard each save once, each other process's saves in their commit order, and every
  saved transaction that began after its watcher started and was acknowledged a moment before it
  stopped listening (a save can take seconds: waits for locks, retries).

The anomalies the documentation allows for the run's merge policy are counted; any other fails the
run (exit status 1), printing the transactions that form it.
"""
import collections
import glob
import json
import os
import sys

# What docs/concurrency.md allows, per merge policy (reads are not validated at save: read skew and
# write skew can happen under every policy; only .error refuses a save whose objects changed since read).
ALLOWED = {
    "error": {"G-single", "G2"},
    "mergeByPropertyObjectTrump": {"G-single", "G2", "lost-update"},
    "mergeByPropertyStoreTrump": {"G-single", "G2", "lost-update", "dropped-write"},
    "overwrite": {"G-single", "G2", "lost-update"},
    "rollback": {"G-single", "G2", "lost-update", "dropped-write"},
}


def load(directory):
    transactions, listeners = {}, {}
    for path in sorted(glob.glob(os.path.join(directory, "history-*.jsonl"))):
        with open(path, encoding="utf-8") as file:
            for line in file:
                line = line.strip()
                if not line:
                    continue
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by a kill
                if "process" in event:
                    listener = listeners.setdefault(event["process"], {"process": event["process"], "heard": [], "start": None, "end": None})
                    if event["event"] == "heard":
                        listener["heard"].append(event["inserted"])
                    elif event["event"] == "listen-start":
                        listener["start"] = event["time"]
                    elif event["event"] == "listen-end":
                        listener["end"] = event["time"]
                    continue
                entry = transactions.setdefault(event["id"], {"id": event["id"], "ops": [], "outcome": None})
                if event["event"] == "begin":
                    entry["ops"] = event["ops"]
                    entry["start"] = event.get("start")
                elif event["event"] == "end":
                    # A lost connection leaves the save's outcome unknown, as a kill does.
                    entry["outcome"] = None if event["outcome"].startswith("unknown") else event["outcome"]
                    entry["inserted"] = event.get("inserted", [])
                    entry["acknowledged"] = event.get("end")
                elif event["event"] == "skipped":
                    entry["outcome"] = "skipped"
    with open(os.path.join(directory, "final.json"), encoding="utf-8") as file:
        final = json.load(file)
    final["listeners"] = list(listeners.values())
    return list(transactions.values()), final


def check_streams(transactions, final):
    """The change streams' anomalies: the follower's against the history, each process's own."""
    anomalies = []
    history, heard = final.get("history"), final.get("heard")
    if history is not None and heard is not None and history != heard:
        first = next((i for i, (a, b) in enumerate(zip(history, heard)) if a != b), min(len(history), len(heard)))
        anomalies.append(("stream-follower", f"the follower heard {len(heard)} saves, the history has {len(history)}; "
                                             f"they differ from save {first}", []))
    # Saves are told apart by the elements they inserted: never deleted (a deleted member's key may be
    # given again) and never taken over (a new token whose code a saved one has takes that record over
    # under the merging policies, so the save inserts no token).
    def lasting(records):
        return [record for record in records if record.startswith("Element/")]

    position = {}  # an inserted record -> the history entry of its save
    for index, inserted in enumerate(final.get("historyInserted", [])):
        for record in lasting(inserted):
            position[record] = index
    source = {}  # a history entry -> the process that saved it (known for acknowledged saves)
    for t in transactions:
        if t["outcome"] == "ok" and lasting(t.get("inserted", [])):
            places = {position.get(record) for record in lasting(t["inserted"])}
            if "historyInserted" in final and (None in places or len(places) != 1):
                anomalies.append(("history-missing", f"{t['id']}'s save is not one entry of the store's history", [t["id"]]))
                continue
            source[places.pop() if places else None] = t["id"].split("-")[0]
    for listener in final.get("listeners", []):
        process = str(listener["process"])
        seen, last_by_source = set(), {}
        for inserted in listener["heard"]:
            inserted = lasting(inserted)
            if not inserted or inserted[0] not in position:
                continue
            index = position[inserted[0]]
            if index in seen:
                anomalies.append(("stream-duplicate", f"process {process} heard save {index} twice", []))
            seen.add(index)
            origin = source.get(index)
            if origin is not None:
                if index < last_by_source.get(origin, -1):
                    anomalies.append(("stream-order", f"process {process} heard process {origin}'s save {index} after a later one", []))
                last_by_source[origin] = max(index, last_by_source.get(origin, -1))
        if listener["start"] is None or listener["end"] is None or "historyInserted" not in final:
            continue
        for t in transactions:
            # Begun after the watcher read the history's newest token, so its token is later; told to
            # its process a second before the listener stopped, so heard by then (a look is every 50 ms).
            if t["outcome"] == "ok" and lasting(t.get("inserted", [])) and t.get("start") is not None \
                    and t.get("acknowledged") is not None \
                    and listener["start"] <= t["start"] and t["acknowledged"] <= listener["end"] - 1.0:
                index = position.get(lasting(t["inserted"])[0])
                if index is not None and index not in seen:
                    anomalies.append(("stream-missed", f"process {process} never heard {t['id']}'s save", [t["id"]]))
    return anomalies


def check(transactions, final):
    """The anomalies found, as (kind, description, [transaction ids])."""
    anomalies = []
    policy = final.get("policy", "error")
    lists = {name: list(values) for name, values in final["lists"].items()}
    registers = final.get("registers", {})

    # Who appended, wrote or added what.
    appender, writer, adder = {}, {}, {}
    for t in transactions:
        for op in t["ops"]:
            if op[0] == "append":
                appender[op[2]] = t
            elif op[0] == "write":
                writer[(op[1], op[2])] = t
            elif op[0] == "add-member":
                adder[op[2]] = t

    # Which transactions committed: saved, or killed during the save and found applied (whole): its
    # appends in the store, or a value it wrote held by a register or read by another transaction.
    present = {value for values in lists.values() for value in values}
    observed = {(name, value): {None} for name, value in registers.items()}  # value -> who saw it (None: the store)
    for t in transactions:
        for op in t["ops"]:
            if op[0] == "read":
                observed.setdefault((op[1], op[2]), set()).add(t["id"])
    committed = set()
    for t in transactions:
        appends = [op[2] for op in t["ops"] if op[0] == "append"]
        if t["outcome"] == "ok":
            committed.add(t["id"])
            for value in appends:
                if value not in present:
                    anomalies.append(("lost-acknowledged", f"element {value} of a saved transaction is not in its list", [t["id"]]))
        elif t["outcome"] is None:  # killed during the save: unknown
            found = [value in present for value in appends]
            seen = any(observed.get((op[1], op[2]), set()) - {t["id"]} for op in t["ops"] if op[0] == "write")
            if found and all(found):
                committed.add(t["id"])
            elif any(found):
                anomalies.append(("half-applied", "a transaction killed during its save is partly in the store", [t["id"]]))
            elif seen:
                if found:
                    anomalies.append(("half-applied", "a transaction killed during its save wrote a register but not its appends", [t["id"]]))
                else:
                    committed.add(t["id"])
        else:
            for value in appends:
                if value in present:
                    anomalies.append(("aborted-write-applied", f"element {value} of a failed transaction ({t['outcome']}) is in the store", [t["id"]]))
    by_id = {t["id"]: t for t in transactions}

    # Each element once in its list, and only in the list it was appended to.
    for name, values in lists.items():
        for value, count in collections.Counter(values).items():
            if count > 1:
                anomalies.append(("duplicate", f"element {value} is {count} times in {name}", [appender[value]["id"]] if value in appender else []))
        for value in values:
            t = appender.get(value)
            if t is not None and not any(op[0] == "append" and op[1] == name and op[2] == value for op in t["ops"]):
                anomalies.append(("misplaced", f"element {value} is in {name}, not where it was appended", [t["id"]]))

    edges = collections.defaultdict(dict)  # from -> to -> kind

    def edge(a, b, kind):
        if a != b and a in committed and b in committed:
            edges[a].setdefault(b, kind)

    # Lists: ww between consecutive appends of the final order; wr and rw from each read.
    position = {name: {value: index for index, value in enumerate(values)} for name, values in lists.items()}
    for name, values in lists.items():
        for a, b in zip(values, values[1:]):
            if a in appender and b in appender:
                edge(appender[a]["id"], appender[b]["id"], "ww")
    for t in transactions:
        for i, op in enumerate(t["ops"]):
            if op[0] != "read-list":
                continue
            name, seen = op[1], list(op[2])
            # A read after the transaction's own appends sees them last (internal consistency), and only
            # what came before them tells what others had committed.
            own = [o[2] for o in t["ops"][:i] if o[0] == "append" and o[1] == name]
            if own:
                if seen[len(seen) - len(own):] != own:
                    anomalies.append(("internal", f"{t['id']} read {name} without its own appends at the end", [t["id"]]))
                    continue
                seen = seen[:len(seen) - len(own)]
            final_order = lists.get(name, [])
            for value in seen:
                source = appender.get(value)
                if source is not None and source["outcome"] not in ("ok", None):
                    anomalies.append(("G1a", f"{t['id']} read element {value} of a failed transaction", [t["id"], source["id"]]))
            if final_order[:len(seen)] != seen and t["id"] in committed:
                anomalies.append(("incompatible-order", f"{t['id']} read {name} as {seen}, not a prefix of its final order", [t["id"]]))
                continue
            if seen and seen[-1] in appender:
                edge(appender[seen[-1]]["id"], t["id"], "wr")
            if len(seen) < len(final_order) and final_order[len(seen)] in appender:
                edge(t["id"], appender[final_order[len(seen)]]["id"], "rw")

    # Registers: each value written once; a read-modify-write orders the two writes.
    readers = collections.defaultdict(list)  # (register, value read) -> transactions that read it and wrote
    for t in transactions:
        ops = t["ops"]
        for i, op in enumerate(ops):
            if op[0] == "read":
                name, value = op[1], op[2]
                own = [o[2] for o in ops[:i] if o[0] == "write" and o[1] == name]
                if own:  # a read after the transaction's own write sees that write
                    if value != own[-1]:
                        anomalies.append(("internal", f"{t['id']} read {name} = {value} after writing {own[-1]}", [t["id"]]))
                    continue
                source = writer.get((name, value))
                if source is not None:
                    if source["outcome"] not in ("ok", None):
                        anomalies.append(("G1a", f"{t['id']} read {name} = {value} written by a failed transaction", [t["id"], source["id"]]))
                    edge(source["id"], t["id"], "wr")
                wrote = next((o for o in ops[i + 1:] if o[0] == "write" and o[1] == name), None)
                if wrote is not None and t["id"] in committed:
                    readers[(name, value)].append(t)
    for (name, value), ts in readers.items():
        source = writer.get((name, value))
        for t in ts:
            if source is not None:
                edge(source["id"], t["id"], "ww")
        if len(ts) > 1:
            anomalies.append(("lost-update", f"{len(ts)} saved transactions read {name} = {value} and each wrote it", [t["id"] for t in ts]))
        for t in ts:
            for u in ts:
                if t is not u:
                    edge(t["id"], u["id"], "rw")
    for name, value in registers.items():
        source = writer.get((name, value))
        if value != 0 and source is None:
            anomalies.append(("unknown-value", f"{name} holds {value}, which no transaction wrote", []))
        elif source is not None and source["id"] not in committed:
            anomalies.append(("aborted-write-applied", f"{name} holds {value} from a transaction that did not save ({source['outcome']})", [source["id"]]))
    committed_writers = collections.defaultdict(set)  # register -> committed transactions that wrote it
    for u in transactions:
        if u["id"] in committed:
            for o in u["ops"]:
                if o[0] == "write":
                    committed_writers[o[1]].add(u["id"])
    for t in transactions:
        if t["outcome"] == "ok":
            for op in t["ops"]:
                if op[0] == "write" and registers.get(op[1]) != op[2]:
                    # Overwritten later is fine; gone without a later committed write is not.
                    if not committed_writers[op[1]] - {t["id"]}:
                        anomalies.append(("dropped-write", f"{t['id']} saved {op[1]} = {op[2]}, and the store holds {registers.get(op[1])}", [t["id"]]))

    # Tokens: one per code; groups: never over their maximum.
    for code, count in collections.Counter(code for code, _ in final.get("tokens", [])).items():
        if count > 1:
            anomalies.append(("duplicate-unique", f"token code {code} is stored {count} times", []))
    for name, members in final.get("groups", {}).items():
        if len(members) > final.get("maxMembers", 3):
            anomalies.append(("over-max", f"group {name} has {len(members)} members", [adder[m]["id"] for m in members if m in adder]))

    # Cycles: strongly connected components, then the shortest cycle through each, classified.
    anomalies += cycles(edges)
    anomalies += check_streams(transactions, final)
    allowed = set() if final.get("isolation") == "serializable" else ALLOWED.get(policy, set())
    return anomalies, allowed, committed


def cycles(edges):
    index, low, stack, on, components, counter = {}, {}, [], set(), [], [0]
    nodes = set(edges) | {b for targets in edges.values() for b in targets}

    def connect(v):
        work = [(v, iter(edges.get(v, {})))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, children = work[-1]
            advanced = False
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges.get(w, {}))))
                    advanced = True
                    break
                elif w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.add(w)
                    if w == node:
                        break
                if len(component) > 1:
                    components.append(component)

    for v in sorted(nodes):
        if v not in index:
            connect(v)
    found = []
    for component in components:
        cycle = shortest_cycle(edges, component)
        kinds = [edges[a][b] for a, b in zip(cycle, cycle[1:] + cycle[:1])]
        rw = kinds.count("rw")
        if rw == 0:
            name = "G0" if all(k == "ww" for k in kinds) else "G1c"
        else:
            name = "G-single" if rw == 1 else "G2"
        found.append((name, " → ".join(f"{a} ({k})" for a, k in zip(cycle, kinds)) + f" → {cycle[0]}", cycle))
    return found


def shortest_cycle(edges, component):
    """A shortest cycle inside a strongly connected component, preferring fewer anti-dependencies."""
    best = None
    for start in sorted(component)[:50]:
        parents, queue = {start: None}, collections.deque([start])
        while queue:
            node = queue.popleft()
            for nxt in edges.get(node, {}):
                if nxt not in component:
                    continue
                if nxt == start:
                    path, walk = [], node
                    while walk is not None:
                        path.append(walk)
                        walk = parents[walk]
                    path.reverse()
                    if best is None or len(path) < len(best):
                        best = path
                    queue.clear()
                    break
                if nxt not in parents:
                    parents[nxt] = node
                    queue.append(nxt)
    return best or sorted(component)[:1]


def report(directory):
    transactions, final = load(directory)
    anomalies, allowed, committed = check(transactions, final)
    counts = collections.Counter(kind for kind, _, _ in anomalies)
    outcomes = collections.Counter((t["outcome"] or "unknown (killed)").split(":")[0] for t in transactions)
    faults = f"{final.get('kills', 0)} kills"
    if final.get("terminations"):
        faults += f", {final['terminations']} server processes terminated"
    if final.get("restarts"):
        faults += f", {final['restarts']} server restarts"
    heard = sum(len(listener["heard"]) for listener in final.get("listeners", []))
    print(f"{final.get('store', 'sqlite')}, policy {final.get('policy')}{', serializable saves' if final.get('isolation') == 'serializable' else ''}"
          f"{' (broken store mode)' if final.get('broken') else ''}: "
          f"{len(transactions)} transactions ({', '.join(f'{v} {k}' for k, v in sorted(outcomes.items()))}), "
          f"{len(committed)} committed, {faults}; change streams: {len(final.get('listeners', []))} processes heard {heard} saves, "
          f"the follower {len(final.get('heard') or [])} of {len(final.get('history') or [])}")
    print("anomalies: " + (", ".join(f"{k} {v}{' (allowed)' if k in allowed else ''}" for k, v in sorted(counts.items())) or "none"))
    forbidden = [a for a in anomalies if a[0] not in allowed]
    for kind, text, _ in forbidden[:10]:
        print(f"error: {kind}: {text}", file=sys.stderr)
    if len(forbidden) > 10:
        print(f"error: … and {len(forbidden) - 10} more", file=sys.stderr)
    return 1 if forbidden else 0


def self_test():
    """Hand-written histories, each with one anomaly the checker must name."""
    def t(id, outcome, *ops):
        return {"id": id, "outcome": outcome, "ops": [list(op) for op in ops]}

    def saved(id, inserted, start=None, acknowledged=None):
        return {"id": id, "outcome": "ok", "ops": [], "inserted": inserted, "start": start,
                "acknowledged": acknowledged if acknowledged is not None else start}

    def listener(process, heard, start=None, end=None):
        return {"process": process, "heard": heard, "start": start, "end": end}

    def final(lists, registers=None, policy="error", **extra):
        return dict({"lists": lists, "registers": registers or {}, "policy": policy, "groups": {}, "tokens": []}, **extra)

    cases = [
        ("a clean history", [t("T1", "ok", ("append", "L", 1)), t("T2", "ok", ("read-list", "L", [1]), ("append", "L", 2))],
         final({"L": [1, 2]}), set()),
        ("G0: appends ordered one way in L and the other in M",
         [t("T1", "ok", ("append", "L", 1), ("append", "M", 4)), t("T2", "ok", ("append", "L", 2), ("append", "M", 3))],
         final({"L": [1, 2], "M": [3, 4]}), {"G0"}),
        ("G1a: a read of an element whose save failed",
         [t("T1", "conflict", ("append", "L", 1)), t("T2", "ok", ("read-list", "L", [1]))], final({"L": []}), {"G1a", "incompatible-order"}),
        ("G1c: each saw the other's append",
         [t("T1", "ok", ("append", "L", 1), ("read-list", "M", [2])), t("T2", "ok", ("append", "M", 2), ("read-list", "L", [1]))],
         final({"L": [1], "M": [2]}), {"G1c"}),
        ("G-single: read skew", [t("T1", "ok", ("read-list", "L", []), ("read-list", "M", [2])),
                                 t("T2", "ok", ("append", "L", 1), ("append", "M", 2))],
         final({"L": [1], "M": [2]}), {"G-single"}),
        ("G2: write skew", [t("T1", "ok", ("read-list", "L", []), ("append", "M", 2)), t("T2", "ok", ("read-list", "M", []), ("append", "L", 1))],
         final({"L": [1], "M": [2]}), {"G2"}),
        ("own appends read at the end are not anomalies", [t("T1", "ok", ("append", "L", 1)),
                                                           t("T2", "ok", ("append", "L", 2), ("read-list", "L", [1, 2]))],
         final({"L": [1, 2]}), set()),
        ("internal: a read that misses its own append", [t("T1", "ok", ("append", "L", 1), ("read-list", "L", []))],
         final({"L": [1]}), {"internal"}),
        ("lost update", [t("T1", "ok", ("read", "K", 0), ("write", "K", 10)), t("T2", "ok", ("read", "K", 0), ("write", "K", 20))],
         final({}, {"K": 20}), {"lost-update", "G2"}),
        ("an acknowledged append lost", [t("T1", "ok", ("append", "L", 1))], final({"L": []}), {"lost-acknowledged"}),
        ("a killed transaction half applied", [t("T1", None, ("append", "L", 1), ("append", "M", 2))], final({"L": [1], "M": []}), {"half-applied"}),
        ("a killed save found applied by the register it wrote", [t("T1", None, ("read", "K", 0), ("write", "K", 10)),
                                                                   t("T2", "ok", ("read", "K", 0), ("write", "K", 20))],
         final({}, {"K": 10}), {"lost-update", "G2"}),
        ("a killed save's own read of its write is no evidence", [t("T1", None, ("read", "K", 0), ("write", "K", 10), ("read", "K", 10)),
                                                                  t("T2", "ok", ("read", "K", 0), ("write", "K", 20))],
         final({}, {"K": 20}), set()),
        ("a killed save that wrote a register but lost its append", [t("T1", None, ("append", "L", 1), ("read", "K", 0), ("write", "K", 10))],
         final({"L": []}, {"K": 10}), {"half-applied", "aborted-write-applied"}),
        ("a failed transaction's element stored", [t("T1", "conflict", ("append", "L", 1))], final({"L": [1]}), {"aborted-write-applied"}),
        ("a group over its maximum", [], dict(final({}), groups={"G": [1, 2, 3, 4]}, maxMembers=3), {"over-max"}),
        ("a unique code twice", [], dict(final({}), tokens=[[1, 5], [1, 6]]), {"duplicate-unique"}),
        ("the follower missed a save", [], dict(final({}), history=["+a", "+b"], heard=["+a"]), {"stream-follower"}),
        ("the follower heard saves out of order", [], dict(final({}), history=["+a", "+b"], heard=["+b", "+a"]), {"stream-follower"}),
        ("a process heard a save twice", [saved("7-0-1", ["Element/p1"])],
         dict(final({}), historyInserted=[["Element/p1"]], listeners=[listener(8, [["Element/p1"], ["Element/p1"]])]), {"stream-duplicate"}),
        ("a process heard another's saves out of order", [saved("7-0-1", ["Element/p1"]), saved("7-0-2", ["Element/p2"])],
         dict(final({}), historyInserted=[["Element/p1"], ["Element/p2"]], listeners=[listener(8, [["Element/p2"], ["Element/p1"]])]), {"stream-order"}),
        ("a process never heard a save made while it listened", [saved("7-0-1", ["Element/p1"], start=10)],
         dict(final({}), historyInserted=[["Element/p1"]], listeners=[listener(8, [], start=0, end=100)]), {"stream-missed"}),
        ("a save acknowledged after the listener stopped is not required", [saved("7-0-1", ["Element/p1"], start=10, acknowledged=99.5)],
         dict(final({}), historyInserted=[["Element/p1"]], listeners=[listener(8, [], start=0, end=100)]), set()),
        ("a save begun before the listener's watcher started is not required", [saved("7-0-1", ["Element/p1"], start=4.9, acknowledged=5.1)],
         dict(final({}), historyInserted=[["Element/p1"]], listeners=[listener(8, [], start=5, end=100)]), set()),
        ("a slow save acknowledged while the listener listened is required", [saved("7-0-1", ["Element/p1"], start=10, acknowledged=97)],
         dict(final({}), historyInserted=[["Element/p1"]], listeners=[listener(8, [], start=0, end=100)]), {"stream-missed"}),
        ("a saved transaction missing from the history", [saved("7-0-1", ["Element/p1"])],
         dict(final({}), historyInserted=[["Element/p2"]]), {"history-missing"}),
        ("a process that heard everything once, in order", [saved("7-0-1", ["Element/p1"], start=10), saved("7-0-2", ["Element/p2"], start=11)],
         dict(final({}), historyInserted=[["Element/p1"], ["Element/p2"]], listeners=[listener(8, [["Element/p1"], ["Element/p2"]], start=0, end=100)]), set()),
    ]
    failures = 0
    for name, transactions, state, expected in cases:
        found = {kind for kind, _, _ in check(transactions, state)[0]}
        if found != expected:
            failures += 1
            print(f"self-test FAILED: {name}: expected {sorted(expected)}, found {sorted(found)}", file=sys.stderr)
    # The allowed set decides: a lost update passes under mergeByPropertyObjectTrump, fails under error.
    lost = [t("T1", "ok", ("read", "K", 0), ("write", "K", 10)), t("T2", "ok", ("read", "K", 0), ("write", "K", 20))]
    if "lost-update" in check(lost, final({}, {"K": 20}))[1] or "lost-update" not in check(lost, final({}, {"K": 20}, policy="mergeByPropertyObjectTrump"))[1]:
        failures += 1
        print("self-test FAILED: the policies' allowed anomalies", file=sys.stderr)
    # A serializable save allows nothing: write skew passes under .error, fails under serializable.
    skew = [t("T1", "ok", ("read-list", "L", []), ("append", "M", 2)), t("T2", "ok", ("read-list", "M", []), ("append", "L", 1))]
    if "G2" not in check(skew, final({"L": [1], "M": [2]}))[1] or "G2" in check(skew, final({"L": [1], "M": [2]}, isolation="serializable"))[1]:
        failures += 1
        print("self-test FAILED: serializable saves allow no anomaly", file=sys.stderr)
    print(f"history-check self-test: {len(cases) + 2 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(self_test() if sys.argv[1] == "--self-test" else report(sys.argv[1]))
