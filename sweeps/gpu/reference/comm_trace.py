"""The collectives of one profiled step, read from its torch.profiler Chrome trace: every NCCL
kernel with the collective that launched it (kind, bytes in nccl-tests' convention as replay's
op records count them, group size), and how much of the NCCL kernels' time no compute kernel of
this rank overlapped (the trace's view of exposed communication)."""

import bisect
import json
import statistics

# record_param_comms' "Collective name" -> replay's kind (collective_kind_name).
KINDS = {"_allgather_base": "all_gather", "all_gather_into_tensor": "all_gather",
         "allgather_into_tensor_coalesced": "all_gather", "allgather": "all_gather",
         "_reduce_scatter_base": "reduce_scatter", "reduce_scatter_tensor": "reduce_scatter",
         "reduce_scatter_tensor_coalesced": "reduce_scatter", "reduce_scatter": "reduce_scatter",
         "allreduce": "all_reduce", "allreduce_coalesced": "all_reduce",
         "all_to_all": "all_to_all", "all_to_allv": "all_to_all", "alltoall": "all_to_all",
         "alltoall_base": "all_to_all", "broadcast": "broadcast", "barrier": "barrier"}
KERNEL_KINDS = (("AllGather", "all_gather"), ("ReduceScatter", "reduce_scatter"),
                ("AllReduce", "all_reduce"), ("SendRecv", "all_to_all"), ("Broadcast", "broadcast"))
DTYPE_BYTES = {"BFloat16": 2, "Half": 2, "Float": 4, "Long": 8, "Int": 4, "Double": 8,
               "Float8_e4m3fn": 1, "Float8_e5m2": 1, "Byte": 1, "Char": 1, "Bool": 1}


def _is_nccl(name):
    return name.startswith(("ncclDevKernel", "ncclKernel"))


def _union(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def _overlap(a, b):
    """Length of the intersection of two sorted disjoint interval lists."""
    i = j = 0
    total = 0.0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0.0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def _bytes(kind, args):
    size = DTYPE_BYTES.get(str(args.get("dtype", "")), 2)
    out_n, in_n = args.get("Out msg nelems"), args.get("In msg nelems")
    n = out_n if kind == "all_gather" else in_n
    return int(n) * size if isinstance(n, (int, float)) else None


def collectives(trace_path):
    """{kernels: [{kind, bytes, group_size, us}], nccl_ms, compute_ms, exposed_ms, by_kind}"""
    with open(trace_path) as f:
        events = json.load(f).get("traceEvents", [])
    comms = {}  # tid -> sorted [(start, end, args)] of record_param_comms
    launches = {}  # correlation -> (tid, ts) of the runtime call that launched a kernel
    kernels, compute = [], []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat, name, args = e.get("cat", ""), e.get("name", ""), e.get("args", {})
        if name == "record_param_comms":
            comms.setdefault(e.get("tid"), []).append((e["ts"], e["ts"] + e.get("dur", 0), args))
        elif cat == "cuda_runtime" or cat == "cuda_driver":
            if "correlation" in args:
                launches[args["correlation"]] = (e.get("tid"), e["ts"])
        elif cat == "kernel" and _is_nccl(name):
            kernels.append(e)
        elif cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            compute.append((e["ts"], e["ts"] + e.get("dur", 0)))
    for spans in comms.values():
        spans.sort(key=lambda s: s[0])
    out = []
    for k in kernels:
        kind = next((v for key, v in KERNEL_KINDS if key in k["name"]), "other")
        info = {"kind": kind, "bytes": None, "group_size": None, "us": float(k.get("dur", 0)),
                "kernel": k["name"].split("(")[0]}
        tid_ts = launches.get(k.get("args", {}).get("correlation"))
        if tid_ts and tid_ts[0] in comms:
            spans = comms[tid_ts[0]]
            i = bisect.bisect_right([s[0] for s in spans], tid_ts[1]) - 1
            # The innermost record_param_comms around the launch: the latest one still open.
            while i >= 0 and spans[i][1] < tid_ts[1]:
                i -= 1
            if i >= 0:
                args = spans[i][2]
                info["kind"] = KINDS.get(str(args.get("Collective name", "")), info["kind"])
                info["bytes"] = _bytes(info["kind"], args)
                info["group_size"] = args.get("Group size")
        out.append(info)
    nccl = _union((k["ts"], k["ts"] + k.get("dur", 0)) for k in kernels)
    busy = _union(compute)
    nccl_us = sum(e - s for s, e in nccl)
    by_kind = {}
    for k in out:
        by_kind[k["kind"]] = by_kind.get(k["kind"], 0.0) + k["us"] / 1e3
    return {"kernels": out, "nccl_ms": nccl_us / 1e3, "compute_ms": sum(e - s for s, e in busy) / 1e3,
            "exposed_ms": (nccl_us - _overlap(nccl, busy)) / 1e3, "by_kind_ms": by_kind}


def grouped(kernels):
    """Kernels by (kind, bytes): count and median / total time, the per-collective table rows."""
    groups = {}
    for k in kernels:
        groups.setdefault((k["kind"], k["bytes"]), []).append(k["us"])
    return [{"kind": kind, "bytes": b, "count": len(us), "median_us": statistics.median(us),
             "total_ms": sum(us) / 1e3}
            for (kind, b), us in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0))]
