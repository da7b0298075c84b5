"""Faults at scale: N graphs converging and edited while the operator, the API server, etcd and
the webhook misbehave, then proof that nothing was lost.

One run on a fresh local control plane (with the LeaderWorkerSet controller: some graphs are
multinode), from a seeded schedule (`e2e.support.chaos.plan`; the seed is printed, `--seed`
replays the schedule):

* the operator SIGKILLed at `--kills` moments, each once it is ready with work in flight, and
  restarted at once; in the middle of the run a leader-elected pair whose leader is killed
  `--leader-kills` times (the standby takes over when the Lease expires);
* `--apiserver-restarts` API server restarts and `--compactions` etcd compactions (the API server
  restarted after each, so the operator's watches get 410 and relist);
* `--webhook-outages` webhook outages of `--outage-seconds`, with failurePolicy Fail then Ignore;
* user edits meanwhile (env changes, replica changes, services removed and added, graphs deleted
  and recreated under the same name, namespaces deleted and recreated), retried until the API
  server takes them.

Then it waits for the cluster to match the user's last word (graphs successful for their latest
generation, children exactly what the builders make of the last specs: no duplicate, no orphan,
none missing, none stale; models counting their pods; PVCs the ones first created), and counts
the operator's writes over `--steady-seconds`. Targets: 0 duplicates, 0 orphans, 0 lost updates,
0 crashes, 0 steady writes. This measures; it never asserts.

    python -m bench.chaos [--graphs 200] [--namespaces 10] [--kills 100] [--seed S] ...

Always starts its own local control plane (it restarts the API server). The last line is
`key=value` pairs.
"""

from __future__ import annotations

import argparse
import math
import random
import tempfile
import time
from pathlib import Path

import anyio
import kr8s.asyncio

from bench.converge import add_node_room
from dynamo_operator.settings import OperatorSettings
from e2e.localcluster.controlplane.ephemeral import local_cluster
from e2e.support.chaos import ChaosPlan, ChaosTarget, run_chaos
from e2e.support.chaos.plan import EditKind
from e2e.support.chaos.report import chaos_figures, format_figures
from e2e.support.conversion import crds_served
from manager.runtime.client import RestClient

SETTINGS = OperatorSettings(available_apis=frozenset({"lws"}))
PODS_PER_GRAPH = 8
"""Room for a graph's pods: four services, a multinode pair, replicas edited up to two, an
added service or two."""


def plan_of(args: argparse.Namespace) -> ChaosPlan:
    scale = args.graphs / 200
    edits: dict[EditKind, int] = {
        "env": max(2, round(20 * scale)),
        "replicas": max(2, round(20 * scale)),
        "service_removed": max(1, round(10 * scale)),
        "service_added": max(1, round(10 * scale)),
        "graph_recreated": max(1, round(10 * scale)),
        "namespace_deleted": args.namespace_deletions,
    }
    # Each kill waits for a ready operator (a few seconds on two loaded cores): spread them.
    window = args.window or max(120.0, 4.0 * args.kills)
    return ChaosPlan(
        graphs=args.graphs,
        namespaces=args.namespaces,
        operator_kills=args.kills,
        leader_kills=args.leader_kills,
        apiserver_restarts=args.apiserver_restarts,
        etcd_compactions=args.compactions,
        webhook_outages=args.webhook_outages,
        webhook_outage_seconds=args.outage_seconds,
        edits=edits,
        window_seconds=window,
    )


async def main_async(args: argparse.Namespace) -> str:
    plan = plan_of(args)
    print(f"seed={args.seed} plan={plan}", flush=True)
    with (
        local_cluster("bench-chaos-", with_lws=True) as cluster,
        crds_served(cluster.kubeconfig),
    ):
        api = await kr8s.asyncio.api(kubeconfig=str(cluster.kubeconfig))
        rest = RestClient.for_api(api)
        try:
            await add_node_room(rest, math.ceil(args.graphs * PODS_PER_GRAPH))
            target = ChaosTarget(rest, cluster.kubeconfig, cluster, args.log_dir, SETTINGS)
            started = time.monotonic()
            report = await run_chaos(
                target,
                plan,
                args.seed,
                concurrency=args.concurrency,
                reconverge_within=args.reconverge_within,
                steady_seconds=args.steady_seconds,
                say=lambda line: print(line, flush=True),
                keep_namespaces=True,  # the cluster goes anyway
            )
            print(f"run took {time.monotonic() - started:.0f}s; logs in {args.log_dir}")
            if report.fleet.crash_tails:
                print("crashes:", *report.fleet.crash_tails, sep="\n")
            if not report.end.is_clean():
                print(f"end state: {report.end.summary()}")
        finally:
            await rest.transport.aclose()
    return format_figures(chaos_figures(report))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=200)
    parser.add_argument("--namespaces", type=int, default=10)
    parser.add_argument("--kills", type=int, default=100, help="SIGKILLs of the single operator")
    parser.add_argument("--leader-kills", type=int, default=3)
    parser.add_argument("--apiserver-restarts", type=int, default=10)
    parser.add_argument("--compactions", type=int, default=1)
    parser.add_argument("--webhook-outages", type=int, default=2)
    parser.add_argument("--outage-seconds", type=float, default=20.0)
    parser.add_argument("--namespace-deletions", type=int, default=2)
    parser.add_argument("--window", type=float, default=0.0, help="seconds (default: from kills)")
    parser.add_argument("--seed", type=int, default=None, help="replay a run's schedule")
    parser.add_argument("--concurrency", type=int, default=16, help="graphs created at once")
    parser.add_argument("--steady-seconds", type=float, default=60.0)
    parser.add_argument("--reconverge-within", type=float, default=1800.0)
    parser.add_argument("--log-dir", default=None, help="operator logs (default: a temp dir)")
    args = parser.parse_args()
    args.seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    args.log_dir = Path(args.log_dir or tempfile.mkdtemp(prefix="bench-chaos-logs-"))
    args.log_dir.mkdir(parents=True, exist_ok=True)
    print(anyio.run(main_async, args))


if __name__ == "__main__":
    main()
