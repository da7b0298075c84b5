"""What a bench phase cost the API server, from its own `/metrics` and `/debug/pprof`.

`bench.converge` reads these before and after each phase (floor, operator run):

* owner reads: GETs of our kinds (`apiserver_request_total`, group nvidia.com). Neither the
  operator nor the bench reads one by one, so these are the garbage collector's reads of owners
  it has not yet seen through its own watch.
* conversions: calls to the conversion webhook (`apiserver_crd_conversion_webhook_duration_
  seconds`) and the seconds the API server waited on them. The API server keeps a watch cache
  per served version of a custom resource, each decoding every write from etcd into its
  version: with v1alpha1 stored, every write of a graph or a component is converted once for
  the v1beta1 cache (which the collector's watch reads), one webhook call at a time.
* watch-cache restarts: how often a watch cache of our kinds was (re)initialized
  (`apiserver_watch_cache_initializations_total`, group nvidia.com) and the objects it listed
  to do so (`apiserver_init_events_total`): the v1beta1 cache lists every stored object again
  through the webhook, one conversion each, when its etcd watch is lost; and LISTs of our kinds
  (`apiserver_request_total`, verb LIST): a client's relist, read from that cache or, when the
  cache is not fresh enough, from etcd, converting each object.
* consistency checks (`apiserver_storage_consistency_checks_total`, group nvidia.com): every
  5 to 7.5 minutes each watch cache compares itself with a LIST from etcd (the API server's
  `DetectCacheInconsistency`, on by default since Kubernetes 1.34), and the v1beta1 cache's LIST
  converts every stored graph and component through the webhook, one call each: at 2,000 graphs
  10,000 calls a check, the conversions beyond one a write that earlier runs could not name.

`--apiserver-profile` also records the API server's CPU profile (`/debug/pprof/profile`, in
turns of `PROFILE_SECONDS`) through each phase into the log directory, as
`apiserver-<namespace>-<turn>.pb.gz`; `go tool pprof -top -cum <files>` sums a phase's. The
local control plane serves `/debug/pprof` with `LOCAL_CLUSTER_PROFILING=1` in the environment.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import anyio

from manager.runtime.client.rest import RestClient

__all__ = ["PROFILE_SECONDS", "Counters", "counters", "record_profiles"]

PROFILE_SECONDS = 30
OWNER_READ_PREFIX = "apiserver_request_total{"
CONVERSION_PREFIX = "apiserver_crd_conversion_webhook_duration_seconds_"
CACHE_INITS_PREFIX = "apiserver_watch_cache_initializations_total{"
INIT_EVENTS_PREFIX = "apiserver_init_events_total{"
CONSISTENCY_CHECKS_PREFIX = "apiserver_storage_consistency_checks_total{"
OUR_GROUP = 'group="nvidia.com"'


@dataclass(frozen=True)
class Counters:
    owner_reads: float = 0.0
    conversions: float = 0.0
    conversion_seconds: float = 0.0
    cache_inits: float = 0.0
    init_events: float = 0.0
    lists: float = 0.0
    consistency_checks: float = 0.0

    def since(self, before: Counters, graphs: int) -> dict[str, float]:
        """Per graph, and the mean wait on the webhook, since `before`."""
        conversions = self.conversions - before.conversions
        waited = self.conversion_seconds - before.conversion_seconds
        return {
            "owner_reads_per_graph": (self.owner_reads - before.owner_reads) / graphs,
            "conversions_per_graph": conversions / graphs,
            "conversion_ms": 1000 * waited / conversions if conversions else 0.0,
            "watch_cache_inits": self.cache_inits - before.cache_inits,
            "watch_cache_init_objects_per_graph": (self.init_events - before.init_events) / graphs,
            "lists_of_ours": self.lists - before.lists,
            "consistency_checks_of_ours": self.consistency_checks - before.consistency_checks,
        }


def parse(text: str) -> Counters:
    owner_reads = conversions = conversion_seconds = 0.0
    cache_inits = init_events = lists = consistency_checks = 0.0
    for line in text.splitlines():
        if line.startswith(OWNER_READ_PREFIX):
            if OUR_GROUP in line and 'verb="GET"' in line:
                owner_reads += _value(line)
            elif OUR_GROUP in line and 'verb="LIST"' in line:
                lists += _value(line)
        elif line.startswith(CACHE_INITS_PREFIX):
            cache_inits += _value(line) if OUR_GROUP in line else 0.0
        elif line.startswith(INIT_EVENTS_PREFIX):
            init_events += _value(line) if OUR_GROUP in line else 0.0
        elif line.startswith(CONSISTENCY_CHECKS_PREFIX):
            consistency_checks += _value(line) if OUR_GROUP in line else 0.0
        elif line.startswith(CONVERSION_PREFIX + "count{"):
            conversions += _value(line)
        elif line.startswith(CONVERSION_PREFIX + "sum{"):
            conversion_seconds += _value(line)
    return Counters(
        owner_reads,
        conversions,
        conversion_seconds,
        cache_inits,
        init_events,
        lists,
        consistency_checks,
    )


def _value(line: str) -> float:
    return float(line.rsplit(" ", 1)[1])


async def counters(rest: RestClient) -> Counters:
    response = await rest.transport.request("GET", "/metrics")
    return parse(response.body.decode())


async def record_profiles(rest: RestClient, directory: Path, label: str) -> None:
    """CPU profiles of the API server, one per `PROFILE_SECONDS`, until cancelled (the turn
    cut short is lost)."""
    for turn in itertools.count():
        response = await rest.transport.request(
            "GET",
            "/debug/pprof/profile",
            params={"seconds": str(PROFILE_SECONDS)},
            request_timeout=PROFILE_SECONDS + 30.0,
        )
        if response.status != 200:
            hint = " (LOCAL_CLUSTER_PROFILING=1?)" if response.status == 404 else ""
            print(f"apiserver profile: HTTP {response.status}{hint}, not recorded", flush=True)
            return
        path = anyio.Path(directory / f"apiserver-{label}-{turn:03d}.pb.gz")
        await path.write_bytes(response.body)
