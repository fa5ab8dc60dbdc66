"""export_check: read back what `contend export` wrote and compare it with RUN/profile/.

usage: python3 export_check.py NAME RUN perfetto FILE.json
       python3 export_check.py NAME RUN otf2 DIR        (otf2-print and the otf2 module)
       python3 export_check.py NAME RUN simgrid DIR

Prints "PASS e2e/export/NAME-..." and "FAIL e2e/export/NAME-...: why" lines (tests/run.sh).
The expected counts come from the profile's own TSV files (docs/formats.md): messages
between two ranks of ranks.tsv that are not protocol records, phases of those ranks."""
import collections
import json
import os
import re
import subprocess
import sys


def tsv(path):
    """Rows of a contend TSV file as dicts (header line and comments skipped)."""
    rows, cols = [], None
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f):
            line = line.rstrip("\n")
            if i == 0 or line.startswith("#"):
                continue
            if cols is None:
                cols = line.split("\t")
                continue
            fields = line.split("\t")
            if len(fields) == len(cols):
                rows.append(dict(zip(cols, fields)))
    return rows


class Expect:
    def __init__(self, run):
        prof = os.path.join(run, "profile")
        self.hosts = {}
        for r in tsv(os.path.join(prof, "ranks.tsv")):
            self.hosts[int(r["rank"])] = r["host"]
        self.msgs = []
        for m in tsv(os.path.join(prof, "messages.tsv")):
            s, d = int(m["src"]), int(m["dst"])
            if s in self.hosts and d in self.hosts and s != d and m.get("proto") != "ctrl":
                self.msgs.append(m)
        self.phases = [p for p in tsv(os.path.join(prof, "phases.tsv")) if int(p["rank"]) in self.hosts]
        self.sends = collections.Counter(int(m["src"]) for m in self.msgs)
        self.recvs = collections.Counter(int(m["dst"]) for m in self.msgs)
        self.busy = collections.Counter(int(p["rank"]) for p in self.phases if p["kind"] == "busy")
        self.nph = collections.Counter(int(p["rank"]) for p in self.phases)
        self.bytes = sum(int(m["bytes"]) for m in self.msgs)


def out(name, ok, why):
    print(f"PASS e2e/export/{name}" if ok else f"FAIL e2e/export/{name}: {why}")


def check_perfetto(name, x, path):
    try:
        with open(path, "rb") as f:
            d = json.loads(f.read().decode("utf-8"))
    except (ValueError, OSError) as err:
        out(f"{name}-json", False, f"not JSON: {err}")
        return
    out(f"{name}-json", True, "")
    ev = d["traceEvents"]
    kinds = collections.Counter((e["ph"], e["name"].split(" ")[0]) for e in ev)
    slices = kinds[("X", "busy")] + kinds[("X", "idle")]
    out(f"{name}-slices", slices == len(x.phases) and kinds[("X", "busy")] == sum(x.busy.values()),
        f"{slices} busy/idle slices, phases.tsv has {len(x.phases)}")
    sends = [e for e in ev if e["ph"] == "X" and e["name"].startswith("send")]
    recvs = [e for e in ev if e["ph"] == "X" and e["name"].startswith("recv")]
    out(f"{name}-messages", len(sends) == len(x.msgs) and len(recvs) == len(x.msgs),
        f"{len(sends)} sends, {len(recvs)} recvs, messages.tsv has {len(x.msgs)} between known ranks")
    per = collections.Counter(e["tid"] - 1 for e in sends)  # tid = rank + 1
    out(f"{name}-sends-per-rank", per == x.sends, f"{dict(per)} against {dict(x.sends)}")
    out(f"{name}-bytes", sum(e["args"]["bytes"] for e in sends) == x.bytes,
        f"{sum(e['args']['bytes'] for e in sends)} bytes against {x.bytes}")
    fs = collections.Counter(e["id"] for e in ev if e["ph"] == "s")
    ff = collections.Counter(e["id"] for e in ev if e["ph"] == "f")
    out(f"{name}-flows", fs == ff and len(fs) == len(x.msgs) and max(fs.values(), default=1) == 1,
        f"{len(fs)} flow starts, {len(ff)} ends, for {len(x.msgs)} messages")
    # every flow event sits on a message slice of the same pid, tid and ts (its binding)
    keys = {(e["pid"], e["tid"], e["ts"]) for e in sends + recvs}
    loose = [e for e in ev if e["ph"] in "sf" and (e["pid"], e["tid"], e["ts"]) not in keys]
    out(f"{name}-flow-binding", not loose, f"{len(loose)} flow events on no message slice")
    procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {e["tid"] - 1: e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    want = {r: h if h != "-" else "unknown" for r, h in x.hosts.items()}
    got = {r: procs.get(p) for r, p in threads.items()}
    out(f"{name}-tracks", got == want, f"rank -> host {got}, ranks.tsv says {want}")
    bad_ts = [e for e in ev if "ts" in e and not (isinstance(e["ts"], (int, float)) and e["ts"] >= 0)]
    out(f"{name}-timestamps", not bad_ts, f"{len(bad_ts)} events with a negative or non-numeric ts")
    counters = collections.Counter(e["name"].split(" ")[0] for e in ev if e["ph"] == "C")
    out(f"{name}-counters", counters["link"] > 0 or not x.msgs,
        f"no link throughput counter ({dict(counters)})")
    bad_c = [e for e in ev if e["ph"] == "C" and any(v < 0 for v in e["args"].values())]
    out(f"{name}-counter-values", not bad_c, f"{len(bad_c)} negative counter values")


def check_otf2_print(name, x, anchor):
    try:
        p = subprocess.run(["otf2-print", anchor], capture_output=True, text=True, timeout=300)
    except FileNotFoundError:
        print(f"SKIP e2e/export/{name}-otf2-print: skipped: no otf2-print (Debian otf2-tools)")
        return
    out(f"{name}-otf2-print-runs", p.returncode == 0 and not p.stderr.strip(),
        f"exit {p.returncode}: {p.stderr.strip()[:200]}")
    c = collections.Counter()
    for line in p.stdout.splitlines():
        m = re.match(r"^(ENTER|LEAVE|MPI_SEND|MPI_RECV)\s+(\d+)\s+\d+", line)
        if m:
            c[(m.group(1), int(m.group(2)))] += 1
    ok = all(c[("ENTER", r)] == x.nph[r] and c[("LEAVE", r)] == x.nph[r] and
             c[("MPI_SEND", r)] == x.sends[r] and c[("MPI_RECV", r)] == x.recvs[r] for r in x.hosts)
    out(f"{name}-otf2-print-counts", ok and sum(c.values()) == 2 * len(x.phases) + 2 * len(x.msgs),
        f"per rank (enter, send, recv) "
        f"{[(r, c[('ENTER', r)], c[('MPI_SEND', r)], c[('MPI_RECV', r)]) for r in sorted(x.hosts)]}, "
        f"profile {[(r, x.nph[r], x.sends[r], x.recvs[r]) for r in sorted(x.hosts)]}")


def check_otf2_module(name, x, anchor):
    try:
        import otf2
    except ImportError:
        print(f"SKIP e2e/export/{name}-otf2-python: skipped: no otf2 module (Debian python3-otf2)")
        return
    c = collections.Counter()
    nbytes, last, order_ok, comm_ok = 0, {}, True, True
    with otf2.reader.open(anchor) as t:
        locs = {loc.name: loc for loc in t.definitions.locations}
        hosts = {int(n.split()[-1]): loc.group.system_tree_parent.name for n, loc in locs.items()}
        want = {r: h if h != "-" else "unknown" for r, h in x.hosts.items()}
        out(f"{name}-otf2-python-locations", hosts == want, f"rank -> system tree node {hosts}, ranks.tsv {want}")
        res = t.definitions.clock_properties.timer_resolution
        out(f"{name}-otf2-python-clock", res == 1000000000, f"timer resolution {res}")
        for loc, ev in t.events:
            r = int(loc.name.split()[-1])
            kind = type(ev).__name__
            c[(kind, r)] += 1
            if ev.time < last.get(r, 0):
                order_ok = False
            last[r] = ev.time
            if kind == "MpiSend":
                nbytes += ev.msg_length
                comm_ok = comm_ok and ev.communicator is not None and ev.communicator.name.startswith("MPI")
    ok = all(c[("Enter", r)] == x.nph[r] and c[("Leave", r)] == x.nph[r] and
             c[("MpiSend", r)] == x.sends[r] and c[("MpiRecv", r)] == x.recvs[r] for r in x.hosts)
    out(f"{name}-otf2-python-counts", ok, f"{sorted(c.items())}")
    out(f"{name}-otf2-python-bytes", nbytes == x.bytes, f"{nbytes} bytes sent, messages.tsv {x.bytes}")
    out(f"{name}-otf2-python-order", order_ok, "a location's events go back in time")
    out(f"{name}-otf2-python-comm", comm_ok, "a send without a named communicator")


def check_simgrid(name, x, d):
    ranks = sorted(x.hosts)
    with open(os.path.join(d, "traces.txt")) as f:
        files = [l.strip() for l in f if l.strip()]
    out(f"{name}-sg-files", len(files) == len(ranks), f"{len(files)} trace files for {len(ranks)} ranks")
    c = collections.Counter()
    for i, fn in enumerate(files):
        with open(os.path.join(d, fn)) as f:
            lines = [l.split() for l in f]
        ok = lines and lines[0][1:] == ["init"] and lines[-1][1:] == ["finalize"] and all(l[0] == str(i) for l in lines)
        out(f"{name}-sg-rank{i}-form", bool(ok), "not 'i init' ... 'i finalize' with the rank's id on each line")
        for l in lines:
            c[(l[1], i)] += 1
    ok = all(c[("isend", i)] == x.sends[r] and c[("recv", i)] == x.recvs[r] for i, r in enumerate(ranks))
    out(f"{name}-sg-counts", ok, f"{sorted(c.items())}")
    with open(os.path.join(d, "hostfile")) as f:
        hf = [l.strip() for l in f]
    out(f"{name}-sg-hostfile", len(hf) == len(ranks), f"{len(hf)} hostfile lines")


def main():
    name, run, fmt, path = sys.argv[1:5]
    x = Expect(run)
    if fmt == "perfetto":
        check_perfetto(name, x, path)
    elif fmt == "otf2":
        check_otf2_print(name, x, os.path.join(path, "traces.otf2"))
        check_otf2_module(name, x, os.path.join(path, "traces.otf2"))
    elif fmt == "simgrid":
        check_simgrid(name, x, path)
    else:
        sys.exit(f"unknown format {fmt}")


if __name__ == "__main__":
    main()
