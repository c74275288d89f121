"""The bench rows the thirteenth pass's offline replays read (floor/floor_offline.py,
trip_not_kept/trip_offline.py)."""
import glob, json, os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def load_rows():
    """Every conversion row with Triton's time and timed candidates: the H100
    bench rows of the eleventh pass (Triton's tests, parts 0-6) and the
    twelfth (part 7, the corpus)."""
    R = os.path.join(ROOT, "results", "resources")
    files = sorted(glob.glob(f"{R}/eleventh/bench_triton_lowerings/bench_tl_*.jsonl"))
    files += sorted(glob.glob(f"{R}/twelfth/bench_triton_lowerings_part7/*.jsonl"))
    files += sorted(glob.glob(f"{R}/twelfth/bench_corpus/*.jsonl"))
    out = []
    for f in files:
        for line in open(f):
            r = json.loads(line)
            if r.get("triton") and r["candidates"]:
                r["candidates"] = [c for c in r["candidates"] if c.get("ns")]
                out.append(r)
    return out


def ranked_candidates(r):
    """A row's candidates in the form the search ranks plans by: packed where
    it was timed, else the element form."""
    forms = {}
    for c in r["candidates"]:
        forms.setdefault(c["form"], []).append(c)
    return forms["packed" if "packed" in forms else "elements"]
