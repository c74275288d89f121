#!/usr/bin/env python3
"""Join the local SASS rows (scripts/h2h_local_probe.py, this folder) with the GPU rows of the same
cases and print one markdown table: per case, warpforge's element and packed loop and Triton's
loop, each as its time over Triton's (GPU), the loop body's opcode counts and ptxas's static stall
cycles (`loop_stalls`). usage: python3 compare.py LOCAL.jsonl GPU.jsonl"""
import json, sys

local = [json.loads(l) for l in open(sys.argv[1])]
gpu = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[2])}
OPS = ("SHFL", "SEL", "PRMT", "SHF", "LOP3", "IMAD")


def body(k):
    b = (k or {}).get("body") or {}
    return "/".join(str(b.get(o, 0)) for o in OPS)


def stalls(k):
    s = (k or {}).get("loop_stalls")
    return f"{s['stall_cycles']} ({s['instructions']})" if s else "-"


print("| case | element / Triton | packed / Triton | loop body " + "/".join(OPS) + ": element; packed; Triton |"
      " stall cycles (instructions): element; packed; Triton |")
print("|---|---|---|---|---|")
for r in local:
    g = gpu.get(r["id"], {})
    t = r.get("triton_loop")
    print(f"| {r['name']} | {g.get('ratio_wf_over_triton', '-')} | {g.get('ratio_packed_over_triton', '-')} | "
          f"{body(r.get('wf_loop'))}; {body(r.get('wf_loop_packed'))}; {body(t)} | "
          f"{stalls(r.get('wf_loop'))}; {stalls(r.get('wf_loop_packed'))}; {stalls(t)} |")
