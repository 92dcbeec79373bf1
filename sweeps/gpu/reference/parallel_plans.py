"""The parallel plans the reference trains with, built the way users build them (torch 2.11):
  fsdp2          fully_shard per decoder layer and on the root, over every rank
  fsdp2 + --shard-group S   HSDP: a (replicate, shard) mesh, shards of S ranks
  fsdp2 + --ep N expert parallelism: each MoE layer's experts split over N consecutive ranks
                 (expert_parallel.py), the experts container fully_shard over the ranks holding
                 the same experts (world / N of them), the rest over every rank: replay's
                 `--plan fsdp2 --ep N`
  ddp            DistributedDataParallel with its defaults (bucket_cap_mb 25, first bucket 1 MiB)
and the compute-only twin of each: the same model and per-rank work on a mesh of one rank (no
collective crosses ranks), what replay's compute-only pass stands for; with --ep, each rank's own
experts over the rows routing would send them (expert_parallel.py, group None)."""


def make_meshes(torch, world, shard_group, ep, compute_only):
    from torch.distributed.device_mesh import init_device_mesh

    shard = shard_group or world
    if world % shard:
        raise ValueError(f"--shard-group {shard} does not divide the world of {world} ranks")
    if world % ep:
        raise ValueError(f"--ep {ep} does not divide the world of {world} ranks")
    meshes = {"shard": shard}
    meshes["fsdp"] = (init_device_mesh("cuda", (world // shard, shard),
                                       mesh_dim_names=("replicate", "shard"))
                      if shard != world else init_device_mesh("cuda", (world,)))
    if ep > 1:
        # Consecutive ranks form an expert group; the ranks with one index in theirs hold the same
        # experts (replay's `expert` and `data_parallel` groups).
        meshes["moe"] = init_device_mesh("cuda", (world // ep, ep), mesh_dim_names=("dp", "ep"))
    if compute_only and world > 1:
        meshes["solo"] = init_device_mesh("cuda", (world, 1), mesh_dim_names=("all", "solo"))["solo"]
    return meshes


def grouped_moe(args):
    """With --experts grouped, the MoE block factory CausalLM takes: torchtitan's grouped experts
    (grouped_experts.py) in the family's block, wrapped by FSDP2 as the looped ones are (inside
    their decoder layer's unit). None otherwise: transformers' loop."""
    if getattr(args, "experts", "looped") != "grouped":
        return None

    def moe(c):
        if c.family == "mixtral":
            from catalog_model import MoeBlock
            return MoeBlock(c, grouped=True)
        from families import RoutedMoe
        return RoutedMoe(c, grouped=True)
    return moe


def build(torch, config, layers, args, meshes, rank, solo=False):
    """(module to call, the CausalLM inside it, param groups for the optimizer)."""
    from torch.distributed.fsdp import fully_shard

    from catalog_model import CausalLM

    moe, moe_mesh = grouped_moe(args), meshes.get("moe")
    if moe_mesh is not None:
        from expert_parallel import ExpertParallelMoe

        # The compute-only twin keeps this rank's experts and rows; no exchange leaves the rank.
        group = None if solo else moe_mesh["ep"].get_group()
        ep_rank = moe_mesh["ep"].get_local_rank()

        def moe(c):
            return ExpertParallelMoe(c, group, ep_rank, args.ep)

    torch.manual_seed(1234 + rank)
    with torch.device("cuda"):
        torch.set_default_dtype(torch.bfloat16)
        model = CausalLM(config, layers, moe)
        torch.set_default_dtype(torch.float32)
    for p in model.parameters():  # stacked experts start empty: random, never zeros
        if not torch.isfinite(p).all() or p.abs().sum() == 0:
            torch.nn.init.normal_(p, std=0.02)
    for layer in model.layers:
        layer.checkpointing = args.ac
    if args.plan == "ddp":
        if solo:
            return model, model, [{"params": list(model.parameters())}]
        from torch.nn.parallel import DistributedDataParallel

        ddp = DistributedDataParallel(model, device_ids=[torch.cuda.current_device()])
        return ddp, model, [{"params": list(ddp.parameters())}]
    mesh = meshes["solo"] if solo else meshes["fsdp"]
    for layer in model.layers:
        if moe_mesh is not None:
            fully_shard(layer.mlp.experts, mesh=mesh if solo else moe_mesh["dp"])
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    if moe_mesh is None:
        return model, model, [{"params": list(model.parameters())}]
    # A param group per mesh: each foreach list holds DTensors of one mesh.
    experts = {id(p) for layer in model.layers for p in layer.mlp.experts.parameters()}
    return model, model, [{"params": [p for p in model.parameters() if id(p) not in experts]},
                          {"params": [p for p in model.parameters() if id(p) in experts]}]


def ddp_buckets(module):
    """DDP's own account of its gradient buckets (sizes in bytes), after the rebuild that follows
    the first step: what replay's workloads/plan/parallel/ddp_buckets.cpp must reproduce."""
    try:
        data = module._get_ddp_logging_data()
    except Exception:  # not DDP, or a torch without it
        return None
    return {k: data[k] for k in data if "bucket" in k}
