"""Merge vaced-conformance results.json files: a later run's result for a
test line replaces an earlier one's (same dir, name, np, args, env and
occurrence). Prints a Markdown table per directory and the lines that did
not pass."""
import json, sys, collections

ISSUE = ["pt2pt", "coll", "comm", "group", "datatype", "topo", "init", "errhan",
         "attr", "info", "basic", "rma", "io", "threads", "f77", "f90"]

merged = collections.OrderedDict()
for path in sys.argv[1:]:
    d = json.load(open(path))
    count = collections.Counter()
    for t in d["tests"]:
        k = (t["dir"], t["name"], t["np"], json.dumps(t["args"]), json.dumps(t["env"]))
        count[k] += 1
        merged[k + (count[k],)] = (t, path)

def row(ts):
    c = collections.Counter(t["state"] for t in ts)
    n = len(ts)
    built = n - c["not_built"]
    return n, built, c["passed"], c["failed"], c["timed_out"], c["not_built"]

by_top = collections.OrderedDict((d, []) for d in ISSUE)
by_sub = collections.defaultdict(list)
for (t, _) in merged.values():
    top = t["dir"].split("/")[0]
    if top in by_top:
        by_top[top].append(t)
        if "/" in t["dir"]:
            by_sub[t["dir"]].append(t)

print("| directory | listed | built | passed | failed | timed out | not built | pass % |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
tot = [0] * 6
for top, ts in by_top.items():
    r = row(ts)
    tot = [a + b for a, b in zip(tot, r)]
    print(f"| **{top}** | " + " | ".join(map(str, r)) + f" | {100 * r[2] / max(r[0], 1):.1f} |")
    for sub in sorted(s for s in by_sub if s.split('/')[0] == top):
        r = row(by_sub[sub])
        print(f"| &nbsp;&nbsp;{sub} | " + " | ".join(map(str, r)) + f" | {100 * r[2] / max(r[0], 1):.1f} |")
print(f"| **total (issue dirs)** | " + " | ".join(map(str, tot)) + f" | {100 * tot[2] / tot[0]:.1f} |")
print()
print("## Lines that did not pass")
print()
for (t, _) in merged.values():
    if t["dir"].split("/")[0] in by_top and t["state"] != "passed":
        args = " ".join(t["args"])
        why = t["reason"] or ""
        if t["missing"]:
            why = "missing " + ", ".join(t["missing"][:6])
        x = f" [xfail in MPICH: {t['xfail']}]" if t.get("xfail") else ""
        print(f"- {t['dir']}/{t['name']} {t['np']}{(' ' + args) if args else ''}: {t['state'].replace('_', ' ')} ({why}){x}")
