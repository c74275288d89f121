#!/usr/bin/env python3
"""Two warpforge builds against one Triton run, case by case, in h2h's harness
(../shared/tools/h2h/h2h.py, imported from the first folder, so its kernels, addressing and timing are
h2h's own): for every case, Triton's loop once, then build A's and build B's loops, back to back,
so that the two builds see the same GPU state and share Triton's time.

Both folders come from ../shared/tools/h2h/prep.py over the same inputs (one per warpforge
binary), with h2h's scripts copied into FOLDER_A; their cases must have the same ids and names.
Writes one h2h row per case for each build (OUT_A, OUT_B: h2h.py's jsonl, Triton's result the same
in both), each case's rows as soon as it is timed (a run stopped early, by SIGTERM as `timeout` sends or
otherwise, keeps what it timed, and writes the cases it never reached with "error": "missing"), for scripts/h2h_compare.py OUT_A OUT_B. H2H_ITERS and h2h's other switches apply;
H2H_PAIR_REP=MS sets do_bench's measuring time per timing (h2h's is 200 ms).

usage: h2h_pair.py FOLDER_A FOLDER_B OUT_A.jsonl OUT_B.jsonl
       (on the GPU machine; the child mode `--child FOLDER_A FOLDER_B START` is internal)
"""
import concurrent.futures as cf, json, os, signal, subprocess, sys, tempfile


def load_h2h(folder):
    sys.path.insert(0, folder)
    import h2h  # noqa: E402  (h2h.py copied into FOLDER_A)
    rep = os.environ.get("H2H_PAIR_REP")
    if rep:  # do_bench's rep (ms) for every timing, in place of h2h's 200
        bench = h2h.triton.testing.do_bench
        h2h.triton.testing.do_bench = lambda f, **kw: bench(f, **dict(kw, rep=int(rep)))
    return h2h


def cases_of(folder):
    return json.load(open(os.path.join(folder, "cases.json")))


def child(fa, fb, start):
    """Cases[start:], one JSON line each; a crash (Triton aborts on layouts it rejects) ends the
    process and the parent goes on after the case."""
    h2h = load_h2h(fa)
    ca, cb = cases_of(fa), cases_of(fb)
    hdr = {f: {c["header"]: open(os.path.join(f, c["header"])).read() for c in cs} for f, cs in ((fa, ca), (fb, cb))}
    for a, b in list(zip(ca, cb))[start:]:
        out = {"id": a["id"]}
        for side, f, c in (("triton", None, a), ("a", fa, a), ("b", fb, b)):
            try:
                if side == "triton":
                    out[side] = h2h.run_triton(c)
                else:
                    cub = os.path.join(f, c["id"] + ".cubin")
                    out[side] = (h2h.run_wf(c, cub, hdr[f][c["header"]]) if os.path.exists(cub)
                                 else {"error": "nvcc failed"})
            except Exception as e:
                out[side] = {"error": repr(e)[:300]}
        print(json.dumps(out), flush=True)


def row(c, tri, wf):
    r = {"id": c["id"], "file": c["file"], "name": c["name"], "shape": c["shape"], "dtype": c["dtype"],
         "elem": c["elem"], "warps": c["warps"], "wf_plan": c["wf_plan"], "triton": tri, "warpforge": wf}
    t, w, wp = tri.get("ns_rt"), wf.get("ns_rt"), wf.get("ns_rt_packed")
    if t and w:
        r["ratio_wf_over_triton"] = round(w / t, 3)
    if t and wp and wf.get("packed_loop_ok"):
        r["ratio_packed_over_triton"] = round(wp / t, 3)
    return r


def main():
    if sys.argv[1] == "--child":
        return child(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]), int(sys.argv[4]))
    fa, fb, oa, ob = (os.path.abspath(p) for p in sys.argv[1:5])
    ca, cb = cases_of(fa), cases_of(fb)
    if [(c["id"], c["name"]) for c in ca] != [(c["id"], c["name"]) for c in cb]:
        sys.exit("the two folders' cases differ: prep.py both over the same inputs")
    h2h = load_h2h(fa)
    with cf.ThreadPoolExecutor(os.cpu_count() or 8) as ex:
        jobs = [(f, c) for f, cs in ((fa, ca), (fb, cb)) for c in cs]
        for (f, _), (i, cub, err) in zip(jobs, ex.map(h2h.compile_wf, jobs)):
            if cub is None:
                print(f"nvcc failed for {f} {i}: {err[-500:]}", file=sys.stderr)
    # each case's rows are written as its child reports it, so a run stopped early (a device
    # call's time limit) keeps every case it timed; on SIGTERM or an early end the cases never
    # reached are written too, marked "missing"
    index = {a["id"]: i for i, a in enumerate(ca)}
    got, start = {}, 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    p = None
    with open(oa, "w") as fa_out, open(ob, "w") as fb_out:

        def emit(g):
            a, b = ca[index[g["id"]]], cb[index[g["id"]]]
            missing = {"error": "missing"}
            fa_out.write(json.dumps(row(a, g.get("triton", missing), g.get("a", missing))) + "\n")
            fb_out.write(json.dumps(row(b, g.get("triton", missing), g.get("b", missing))) + "\n")
            fa_out.flush()
            fb_out.flush()

        try:
            while start < len(ca):
                with tempfile.TemporaryFile("w+") as errf:  # a file, so a chatty child never blocks
                    p = subprocess.Popen([sys.executable, __file__, "--child", fa, fb, str(start)],
                                         stdout=subprocess.PIPE, stderr=errf, text=True)
                    for line in p.stdout:
                        at = line.find('{"id"')  # a result line, even after output with no newline
                        try:
                            r = json.loads(line[at:]) if at >= 0 else None
                        except ValueError:
                            r = None
                        if r is None or r.get("id") not in index or r["id"] in got:
                            continue
                        got[r["id"]] = r
                        emit(r)
                        start = max(start, index[r["id"]] + 1)
                    p.wait()
                    errf.seek(0)
                    err = errf.read()
                if start < len(ca) and ca[start]["id"] not in got:
                    if p.returncode == 0:
                        break  # the child ended well without reaching the next case: no retry loop
                    crash = {"error": "crashed: " + err.strip()[-300:]}
                    got[ca[start]["id"]] = dict(id=ca[start]["id"], triton=crash, a=crash, b=crash)
                    emit(got[ca[start]["id"]])
                    start += 1
        finally:
            if p is not None and p.poll() is None:
                p.kill()
            for a in ca:
                if a["id"] not in got:
                    emit({"id": a["id"]})


if __name__ == "__main__":
    main()
