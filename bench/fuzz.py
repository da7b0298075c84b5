"""Long fuzz run: 100,000+ mutated inputs through the CLI, the validators and render, and the
webhook server over a real socket; counts crashes, hangs and peak memory.

Seeds are the example and fixture graphs; each case applies a few random mutations (a value of
another type or shape, a deleted or added field, a key known to the builders, deep nesting, a
string known to have broken something: ``A=1``, ``1.5.3Gi``, ``\\r``, ``-tp 0``...). Targets:

- ``cli``: the mutated document as YAML text, further damaged (tags, aliases, alias bombs,
  duplicate keys, truncation, flipped bytes), through ``validate`` and ``render`` in process:
  the exit code must be 0, 1 or 2, every message one printable line, and ``render`` must
  succeed on whatever ``validate`` accepts;
- ``objects``: the mutated dict through ``validate_create``/``validate_update``; whatever is
  allowed must render and serialise to YAML and JSON;
- ``http``: AdmissionReviews of mutated objects (some gzipped, some cut, some garbage) posted
  to the webhook app on a real socket: the answer must be 200 with a well-formed review
  echoing the uid, or 400/408 with a reason;
- ``convert``: ConversionReviews posted to the same app's ``/convert``: objects of both versions
  mutated from the same seeds (the conversion fixtures' pairs, every seed that converts), wrong
  kinds and versions, damaged residue annotations, non-list ``objects``, deep nesting, huge
  strings, gzipped, cut or garbage bodies. The answer must be 400/408 with a reason, or 200 with
  a review echoing the uid whose result is ``Success`` (as many objects as sent, each at the
  desired version, its kind and metadata but labels and annotations unchanged, as the API server
  requires; an object valid at its version, per ``validate_create``, converts back to itself
  exactly) or ``Failed`` with a message naming the review's field or the object (its kind, and
  its name or ``(unnamed)``); a valid object must never fail, and ``internal error`` (the
  library raised something other than ``ConversionError``) is a crash.

A crash is any exception or broken expectation; a hang is a case that takes longer than
``--hang-seconds``. Samples of each are written under ``--save``. The last line is ``key=value``
pairs for scripts.

    python -m bench.fuzz [--cases 100000] [--seed 12] [--hang-seconds 5] [--save DIR]
                         [--target cli|objects|http|convert ...]  (default: all, mixed)
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import gzip
import http.client
import io
import json
import random
import resource
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import orjson
import yaml

import dynamo_operator.validation
from bench.conversion import stored_graph
from dynamo_operator import ALL_OPTIONAL_APIS, OperatorSettings, render_objects
from dynamo_operator.conversion import (
    ALPHA_API_VERSION,
    BETA_API_VERSION,
    PRESERVED_ANNOTATIONS,
    ConversionError,
    convert,
)
from dynamo_operator.validation import UnknownKindError, validate_create, validate_update
from e2e.support.admission_reviews import admission_review
from manager.app import cli
from manager.runtime import AppServer, configure_logging
from webhooks import MAX_BODY_BYTES, build_app

REPOSITORY = Path(__file__).resolve().parent.parent
SEED_FILES = sorted(
    [
        *(REPOSITORY / "examples").glob("*.yaml"),
        *(REPOSITORY / "tests" / "fixtures" / "graphs").glob("*.yaml"),
        *(REPOSITORY / "tests" / "fixtures" / "invalid").glob("*.yaml"),
    ]
)
CONVERSION_FIXTURES = REPOSITORY / "tests" / "fixtures" / "conversion"
TARGET_SHARES = {"cli": 0.35, "objects": 0.35, "http": 0.15, "convert": 0.15}
PATHS = {
    "DynamoGraphDeployment": "/validate-nvidia-com-v1alpha1-dynamographdeployment",
    "DynamoComponentDeployment": "/validate-nvidia-com-v1alpha1-dynamocomponentdeployment",
    "DynamoModel": "/validate-nvidia-com-v1alpha1-dynamomodel",
}
SETTINGS = OperatorSettings(available_apis=ALL_OPTIONAL_APIS, ingress_controller_class_name="c")

# Strings and field names that broke something once, or that the builders read.
BAD_STRINGS = [
    "A=1", "1.5.3Gi", "-1", "abc", "\r", "\x00", "\x1b[31m", "8080:80", "2001-02-30", "0",
    "true", "x" * 300, "Gi", "1e999", "nvidia.com/gpu", "python3 -m dynamo.sglang", "-tp", "",
    "sh", "-c", "=", "../../etc", "DynamoComponentDeployment", "s3://b/k", "lora", "Memory",
]  # fmt: skip
FIELD_NAMES = [
    "env", "envs", "command", "args", "volumes", "volumeMounts", "replicas", "nodeCount",
    "multinode", "gpu", "cpu", "memory", "size", "sharedMemory", "resources", "requests",
    "limits", "custom", "gpuType", "mainContainer", "extraPodSpec", "containers", "ports",
    "livenessProbe", "readinessProbe", "startupProbe", "httpGet", "port", "labels",
    "annotations", "imagePullSecrets", "tolerations", "name", "image", "backendFramework",
    "componentType", "dynamoNamespace", "pvcs", "services", "autoscaling", "ingress",
    "modelRef", "modelType", "source", "uri", "metadata", "kind", "apiVersion",
]  # fmt: skip
YAML_FRAGMENTS = [
    "!!int abc", "!!float x", "!!bool maybe", "!!binary '//79'", "!!set {a, b}",
    "!!omap [{a: 1}]", "!!timestamp 2001-02-30", ".nan", "-.inf", "=", "&a [*a]", "*missing",
    "!custom x", "{a: 1, a: 2}", "[" * 200 + "]" * 200, "'unterminated", "\t", "{? [1]: 2}",
    "!!python/object:os.system x", "<<: {}", "8080:80",
]  # fmt: skip
ALIAS_BOMB = "".join(
    [
        "bomb0: &b0 [x, x, x, x, x, x, x, x, x, x]\n",
        *(f"bomb{n}: &b{n} [{', '.join([f'*b{n - 1}'] * 10)}]\n" for n in range(1, 8)),
    ]
)


class Hang(Exception):
    """A case ran past --hang-seconds."""


class Broken(Exception):
    """An expectation of a target does not hold."""


def load_seeds() -> list[dict[str, Any]]:
    seeds: list[dict[str, Any]] = []
    for path in SEED_FILES:
        seeds.extend(doc for doc in yaml.safe_load_all(path.read_text()) if isinstance(doc, dict))
    return seeds


# --- mutation ----------------------------------------------------------------------------------


def random_scalar(rng: random.Random) -> Any:
    return rng.choice(
        [
            None, True, False, rng.randint(-5, 5), rng.choice([2**31, 2**63, -(2**31) - 1]),
            rng.random() * 1e6, 1e308, rng.choice(BAD_STRINGS),
            "".join(rng.choice("aZ09-_./: \t") for _ in range(rng.randint(0, 12))),
        ]
    )  # fmt: skip


def random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth >= 3 or roll < 0.55:
        return random_scalar(rng)
    if roll < 0.75:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {
        rng.choice(FIELD_NAMES + BAD_STRINGS): random_value(rng, depth + 1)
        for _ in range(rng.randint(0, 3))
    }


def nested(levels: int) -> Any:
    value: Any = "leaf"
    for level in range(levels):
        value = {"a": value} if level % 2 else [value]
    return value


def slots(document: Any, limit: int = 2000) -> list[tuple[Any, Any]]:
    """(container, key) of every value, breadth first, up to ``limit``."""
    found: list[tuple[Any, Any]] = []
    pending = [document]
    while pending and len(found) < limit:
        current = pending.pop(0)
        items = current.items() if isinstance(current, dict) else enumerate(current)
        for key, value in items:
            found.append((current, key))
            if isinstance(value, dict | list):
                pending.append(value)
    return found


def values_by_key(seeds: list[dict[str, Any]]) -> dict[Any, list[Any]]:
    """Every value the seeds hold, by the key it is under: splicing one keeps a document
    plausible, so that many mutated documents stay valid and reach the builders."""
    found: dict[Any, list[Any]] = {}
    for seed in seeds:
        for container, key in slots(seed):
            found.setdefault(key, []).append(container[key])
    return found


def mutate(
    document: dict[str, Any], rng: random.Random, splices: dict[Any, list[Any]]
) -> dict[str, Any]:
    document = copy.deepcopy(document)
    for _ in range(rng.randint(1, 4)):
        places = slots(document)
        if not places:
            break
        container, key = rng.choice(places)
        value = container[key]
        operation = rng.randrange(12)
        if operation >= 9 and key in splices:  # a plausible value from another seed
            container[key] = copy.deepcopy(rng.choice(splices[key]))
        elif operation == 0:
            container[key] = random_value(rng)
        elif operation == 1 and isinstance(container, dict):
            del container[key]
        elif operation == 2 and isinstance(value, dict):
            value[rng.choice(FIELD_NAMES)] = random_value(rng)
        elif operation == 3:
            scalar = not isinstance(value, dict | list | str)
            container[key] = str(value) if scalar else rng.choice(BAD_STRINGS)
        elif operation == 4:
            container[key] = nested(rng.choice([2, 50, 99, 101, 300, 1500]))
        elif operation == 5 and isinstance(value, list) and value:
            value.append(rng.choice(value))  # shared, not copied: it may nest deeply
        elif operation == 6:
            container[key] = rng.choice([[value], {"x": value}, [], {}])
        elif operation == 7 and isinstance(value, int | float) and not isinstance(value, bool):
            container[key] = rng.choice([0, -1, 2**31, 2**31 - 1, 0.5, -(10**20)])
        else:
            container[key] = rng.choice(BAD_STRINGS)
    if rng.random() < 0.05:
        document["kind"] = rng.choice([*PATHS, "Secret", "Pod", None])
        if document["kind"] == "Secret":
            document["type"] = "kubernetes.io/dockerconfigjson"
            document[rng.choice(["data", "stringData"])] = random_value(rng)
    return document


def damage_text(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(0, 3)):
        roll = rng.random()
        if roll < 0.4 and lines:
            index = rng.randrange(len(lines))
            key = lines[index].split(":", 1)[0] if ":" in lines[index] else "k"
            lines[index] = f"{key}: {rng.choice(YAML_FRAGMENTS)}"
        elif roll < 0.5:
            lines.append(ALIAS_BOMB)
        elif roll < 0.65 and lines:
            lines.insert(rng.randrange(len(lines)), rng.choice(lines))  # duplicate a line
        elif roll < 0.8 and lines:
            lines = lines[: rng.randrange(len(lines) + 1)]
        elif lines:
            index = rng.randrange(len(lines))
            line = lines[index]
            if line:
                at = rng.randrange(len(line))
                lines[index] = (
                    line[:at] + rng.choice("\t:-[]{}&*!|>'\"#%@`\x00\r ") + line[at + 1 :]
                )
    return "\n".join(lines) + "\n"


# --- targets -----------------------------------------------------------------------------------


class CommandRunner:
    """``validate -f -`` and ``render -f -`` in process, parsed once."""

    def __init__(self) -> None:
        self.arguments = {}
        for command in ("validate", "render"):
            parser, _ = cli.build_parser([command])
            self.arguments[command] = parser.parse_args([command, "-f", "-"])

    def run(self, command: str, text: str) -> tuple[int, str, str]:
        arguments = self.arguments[command]
        stdout, stderr = io.StringIO(), io.StringIO()
        saved = sys.stdin
        sys.stdin = io.StringIO(text)
        try:
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                code: int = arguments.func(arguments)
        finally:
            sys.stdin = saved
        return code, stdout.getvalue(), stderr.getvalue()


def check_cli(runner: CommandRunner, text: str, stats: Counter[str]) -> None:
    code, _, err = runner.run("validate", text)
    stats[f"validate_exit_{code}"] += 1
    render_code, _, render_err = runner.run("render", text)
    if code not in (0, 1, 2) or render_code not in (0, 1, 2):
        raise Broken(f"exit codes {code}/{render_code}")
    for line in (err + render_err).splitlines():
        if not line.isprintable() or "Traceback" in line:
            raise Broken(f"unprintable or traceback line: {line[:200]!r}")
    # One line per problem or skipped document, each naming the command (a bundle may hold
    # several of either).
    if code == 2 and not err.strip():
        raise Broken("bad input reported with no message")
    for line in err.splitlines():
        if not line.startswith("dynamo-operator validate"):
            raise Broken(f"a message line not naming the command: {line[:200]!r}")
    if code == 0 and render_code != 0:
        raise Broken(f"validate accepted what render refused: {render_err[:300]}")


def check_objects(document: dict[str, Any], old: dict[str, Any], stats: Counter[str]) -> None:
    try:
        result = validate_create(document)
        validate_update(document, old)
    except UnknownKindError:
        stats["objects_unknown_kind"] += 1
        return
    if not result.allowed:
        stats["objects_denied"] += 1
        return
    stats["objects_rendered"] += 1
    rendered = render_objects([document], SETTINGS, default_namespace="default")
    yaml.safe_dump_all(rendered.objects)
    json.dumps(rendered.objects)


class WebhookTarget:
    """The webhook app behind the operator's AppServer (connection guard included), plain HTTP
    on 127.0.0.1 in a thread of its own; cases are posted over one keep-alive connection."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._ready = threading.Event()
        self.port = 0
        threading.Thread(target=self._serve, daemon=True).start()
        if not self._ready.wait(30):
            raise RuntimeError("webhook app did not start")
        self._connection = self._connect()

    def _serve(self) -> None:
        server = AppServer(build_app(dynamo_operator.validation), host="127.0.0.1", port=0)

        async def main() -> None:
            async with anyio.create_task_group() as task_group:
                await task_group.start(server.run)
                self.port = server.port
                self._ready.set()

        anyio.run(main, backend="asyncio")

    def _connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        try:
            return self._exchange(path, body, headers)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server may close a kept-alive connection between requests; a client sends
            # again on a new one. Failing on a fresh connection is a finding.
            self._reconnect()
            return self._exchange(path, body, headers)

    def _exchange(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        try:
            self._connection.request("POST", path, body=body, headers=headers)
            response = self._connection.getresponse()
            answer = response.read()
            if response.getheader("Connection", "").lower() == "close":
                self._reconnect()
            return response.status, answer
        except TimeoutError:
            self._reconnect()
            raise Hang("no answer within the timeout") from None
        except (Hang, http.client.HTTPException, ConnectionError):
            self._reconnect()
            raise

    def _reconnect(self) -> None:
        self._connection.close()
        self._connection = self._connect()

    def check(self, document: Any, old: Any, rng: random.Random, stats: Counter[str]) -> None:
        kind = document.get("kind") if isinstance(document, dict) else None
        kind = kind if isinstance(kind, str) else None
        path = PATHS.get(kind or "", rng.choice(list(PATHS.values())))
        uid = f"fuzz-{rng.getrandbits(32)}"
        review = admission_review(
            document,
            old=old,
            kind=kind or "x",
            operation=rng.choice(["CREATE", "UPDATE", "DELETE", "CONNECT", "PATCH"]),
            uid=uid,
            name="fuzz",
        )
        try:
            body = json.dumps(review).encode()
        except (RecursionError, ValueError):
            body = b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"'
        headers = {"Content-Type": "application/json"}
        roll = rng.random()
        if roll < 0.05:
            body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
        elif roll < 0.08:
            body, headers["Content-Encoding"] = body[:50], "gzip"  # not gzip at all
        elif roll < 0.12:
            body = body[: rng.randrange(len(body) + 1)]
        status, answer = self.post(path, body, headers)
        stats[f"http_{status}"] += 1
        if status in (400, 408):
            if not answer.strip():
                raise Broken(f"{status} without a reason")
            return
        if status != 200:
            raise Broken(f"HTTP {status}: {answer[:200]!r}")
        response = json.loads(answer)["response"]
        if response["uid"] != uid or not isinstance(response["allowed"], bool):
            raise Broken(f"malformed answer {answer[:200]!r}")
        stats["http_allowed" if response["allowed"] else "http_denied"] += 1
        if not response["allowed"] and not response["status"]["message"]:
            raise Broken("a denial without a message")


# --- the conversion webhook --------------------------------------------------------------------

VERSIONS = (ALPHA_API_VERSION, BETA_API_VERSION)
WRONG_VERSIONS: list[Any] = [
    "nvidia.com/v1", "nvidia.com/v1beta2", "NVIDIA.com/v1beta1", "v1", "apps/v1", "", " ", None,
    1, [], {}, ["nvidia.com/v1beta1"], "nvidia.com/v1alpha1\\x00", "x" * 300,
]  # fmt: skip
WRONG_KINDS: list[Any] = [
    "DynamoModel", "DynamoComponent", "DynamoWorkerMetadata", "Pod", "Secret", "", None, 7,
    ["DynamoGraphDeployment"], {"kind": "DynamoGraphDeployment"}, "dynamographdeployment",
    "DynamoGraphDeployments", "DynamoGraphDeploymentScalingAdapter", "DynamoComponentDeployment",
]  # fmt: skip
NOT_OBJECTS: list[Any] = [None, "x", 1, 1.5, True, [], [{}], ""]
SCALING_ADAPTER = {
    "apiVersion": ALPHA_API_VERSION,
    "kind": "DynamoGraphDeploymentScalingAdapter",
    "metadata": {"name": "chat-decode", "namespace": "inference"},
    "spec": {"replicas": 3, "dgdRef": {"name": "chat", "serviceName": "VllmDecodeWorker"}},
    "status": {"replicas": 3, "selector": "app=x", "lastScaleTime": "2026-01-01T00:00:00Z"},
}
DEEP = "\x00deep\x00"
"""A string replaced, in the JSON text, by nesting deeper than any JSON library recurses."""


def conversion_pairs(seeds: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(v1alpha1, v1beta1) forms of the same objects: the conversion fixtures' pairs, then every
    seed that converts, a stored graph (status, managedFields) and a scaling adapter."""
    pairs = []
    for alpha_file in sorted(CONVERSION_FIXTURES.glob("*.v1alpha1.yaml")):
        beta_file = alpha_file.with_name(alpha_file.name.replace("v1alpha1", "v1beta1"))
        pairs.append(
            (yaml.safe_load(alpha_file.read_text()), yaml.safe_load(beta_file.read_text()))
        )
    for seed in [*seeds, stored_graph(0), SCALING_ADAPTER]:
        with contextlib.suppress(ConversionError):
            pairs.append((seed, convert(seed, BETA_API_VERSION)))
    return pairs


@dataclasses.dataclass
class ConversionCase:
    uid: str
    review: Any
    """What was sent, as the server decodes it (None when the body is not such JSON)."""
    plain: bytes
    """The body before compression or cutting: what a sample saves."""
    body: bytes
    headers: dict[str, str]


class ConversionTarget:
    """ConversionReviews posted to ``/convert`` of the ``http`` target's app and socket."""

    def __init__(self, webhook: WebhookTarget, seeds: list[dict[str, Any]]) -> None:
        self.webhook = webhook
        self.pairs = conversion_pairs(seeds)
        self.seed_objects = [obj for pair in self.pairs for obj in pair]
        self.splices = values_by_key(self.seed_objects)
        self.residues = [
            value
            for _, beta in self.pairs
            for key, value in ((beta.get("metadata") or {}).get("annotations") or {}).items()
            if key in PRESERVED_ANNOTATIONS
        ]

    # -- the case -----------------------------------------------------------------------------

    def case(self, rng: random.Random) -> ConversionCase:
        first, desired = self._object(rng)
        count = rng.choices([1, 0, rng.randint(2, 5)], weights=[75, 3, 22])[0]
        objects: Any = [first] + [self._object(rng)[0] for _ in range(count - 1)]
        objects = objects[:count]
        roll = rng.random()
        if roll < 0.12:
            desired = rng.choice([*VERSIONS, *WRONG_VERSIONS])
        if rng.random() < 0.03:
            objects = rng.choice([{}, "x", None, 1, {"0": first}, first])
        elif isinstance(objects, list) and objects and rng.random() < 0.03:
            objects[rng.randrange(len(objects))] = rng.choice(NOT_OBJECTS)
        uid = f"fuzz-{rng.getrandbits(32)}"
        request: dict[str, Any] = {"uid": uid, "desiredAPIVersion": desired, "objects": objects}
        review: Any = {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": request,
        }
        self._damage_review(review, rng)
        sent_uid = request.get("uid")  # perhaps damaged: the server echoes what it was sent
        plain, wire = self._encode(review, rng)
        body, headers = plain, {"Content-Type": "application/json"}
        roll = rng.random()
        if roll < 0.05:
            body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
        elif roll < 0.07:
            body, headers["Content-Encoding"] = body[:50], "gzip"  # not gzip at all
        elif roll < 0.11:
            body, wire = body[: rng.randrange(len(body))], None  # strictly shorter: not JSON
        elif roll < 0.12:
            body, wire = rng.randbytes(rng.randrange(2000)), None
        elif roll < 0.125:
            headers["Content-Type"] = rng.choice(["text/plain", "application/yaml", ""])
        uid = sent_uid if isinstance(sent_uid, str) else ""
        return ConversionCase(uid, wire, plain, body, headers)

    def _object(self, rng: random.Random) -> tuple[Any, str]:
        """One object mutated from a seed at either version, and the other version."""
        pair = rng.choice(self.pairs)
        side = rng.randrange(2)
        obj: Any = pair[side]
        obj = mutate(obj, rng, self.splices) if rng.random() < 0.7 else copy.deepcopy(obj)
        roll = rng.random()
        if roll < 0.04:
            obj["kind"] = rng.choice(WRONG_KINDS)
        elif roll < 0.07:
            obj["apiVersion"] = rng.choice(WRONG_VERSIONS)
        elif roll < 0.1:
            obj.pop(rng.choice(["apiVersion", "kind", "metadata"]), None)
        elif roll < 0.2:
            self._damage_metadata(obj, rng)
        elif roll < 0.22:
            self._place(obj, rng, DEEP)
        elif roll < 0.225:
            self._place(obj, rng, "x" * rng.choice([10**5, 10**6, 2_900_000, 3_200_000]))
        return obj, VERSIONS[1 - side]

    def _damage_metadata(self, obj: dict[str, Any], rng: random.Random) -> None:
        metadata = obj.get("metadata")
        if not isinstance(metadata, dict) or rng.random() < 0.1:
            obj["metadata"] = rng.choice([*NOT_OBJECTS, {}])
            return
        roll = rng.random()
        if roll < 0.2:
            metadata.pop("name", None)
            metadata.pop(rng.choice(["namespace", "uid"]), None)
        elif roll < 0.3:
            metadata["name"] = rng.choice([*NOT_OBJECTS, "x" * 1000, "\x1b[31m"])
        elif roll < 0.4:
            metadata["annotations"] = rng.choice([*NOT_OBJECTS, {}, {"a": 1}])
        else:
            annotations = metadata.setdefault("annotations", {})
            if isinstance(annotations, dict):
                annotations[rng.choice(PRESERVED_ANNOTATIONS)] = self._residue(rng)

    def _residue(self, rng: random.Random) -> Any:
        """A residue annotation: another object's, mutated, or not one at all."""
        if not self.residues or rng.random() < 0.2:
            return rng.choice([random_value(rng), *BAD_STRINGS, "{}", "[]", "null", '{"v":2}'])
        residue = rng.choice(self.residues)
        if rng.random() < 0.2:
            return residue
        try:
            decoded = json.loads(residue)
        except ValueError:
            return residue
        if isinstance(decoded, dict) and rng.random() < 0.8:
            with contextlib.suppress(RecursionError):
                return json.dumps(mutate(decoded, rng, {}))
        return residue[: rng.randrange(len(residue) + 1)]

    def _place(self, obj: dict[str, Any], rng: random.Random, value: Any) -> None:
        container, key = rng.choice(slots(obj) or [(obj, "spec")])
        container[key] = value

    def _damage_review(self, review: dict[str, Any], rng: random.Random) -> None:
        roll = rng.random()
        request = review["request"]
        if roll < 0.005:
            review["kind"] = rng.choice(WRONG_KINDS)
        elif roll < 0.01:
            review["apiVersion"] = rng.choice(["apiextensions.k8s.io/v1beta1", *WRONG_VERSIONS])
        elif roll < 0.015:
            request["uid"] = rng.choice([*NOT_OBJECTS, ""])
        elif roll < 0.02:
            del request[rng.choice(["uid", "desiredAPIVersion", "objects"])]
        elif roll < 0.022:
            review["request"] = rng.choice(NOT_OBJECTS)
        elif roll < 0.025:
            review["response"] = {"uid": request["uid"], "result": {"status": "Success"}}

    def _encode(self, review: Any, rng: random.Random) -> tuple[bytes, Any]:
        """The body, and the review as the server decodes it (orjson: ints beyond 64 bits
        become floats) or None when it will not decode."""
        try:
            text = json.dumps(review)
        except (RecursionError, TypeError, ValueError):
            return b'{"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"', None
        if json.dumps(DEEP) in text:
            depth = rng.choice([100, 500, 1000, 1023, 1025, 5000, 100_000])
            text = text.replace(json.dumps(DEEP), "[" * depth + "]" * depth)
        plain = text.encode()
        try:
            return plain, orjson.loads(plain)
        except orjson.JSONDecodeError:
            return plain, None

    # -- the check ----------------------------------------------------------------------------

    def check(self, case: ConversionCase, stats: Counter[str]) -> None:
        try:
            status, answer = self.webhook.post("/convert?timeout=30s", case.body, case.headers)
        except (ConnectionError, http.client.HTTPException):
            if len(case.body) > MAX_BODY_BYTES:  # refused before it was read: closed unread
                stats["convert_oversize_reset"] += 1
                return
            raise
        stats[f"convert_http_{status}"] += 1
        if status in (400, 408):
            if not answer.strip() or b"Traceback" in answer:
                raise Broken(f"{status} without a reason, or with a traceback: {answer[:300]!r}")
            return
        if status != 200:
            raise Broken(f"HTTP {status}: {answer[:300]!r}")
        review = orjson.loads(answer)
        response = review["response"]
        well_formed = (
            review["apiVersion"] == "apiextensions.k8s.io/v1"
            and review["kind"] == "ConversionReview"
            and response["uid"] == case.uid
        )
        if not well_formed or case.review is None:
            raise Broken(f"malformed answer, or an answer to an unreadable body: {answer[:300]!r}")
        request = case.review["request"]
        if response["result"]["status"] == "Success":
            stats["convert_success"] += 1
            self._check_converted(request, response["convertedObjects"], stats)
        elif response["result"]["status"] == "Failed":
            stats["convert_failed"] += 1
            self._check_failure(request, response["result"]["message"], stats)
        else:
            raise Broken(f"result neither Success nor Failed: {answer[:300]!r}")

    def _check_converted(
        self, request: dict[str, Any], converted: list[Any], stats: Counter[str]
    ) -> None:
        objects, desired = request["objects"], request["desiredAPIVersion"]
        if len(converted) != len(objects):
            raise Broken(f"{len(objects)} objects sent, {len(converted)} converted")
        for sent, out in zip(objects, converted, strict=True):
            if out["apiVersion"] != desired or out["kind"] != sent["kind"]:
                raise Broken(f"converted to {out['apiVersion']} {out['kind']}, asked {desired}")
            if _fixed_metadata(out) != _fixed_metadata(sent):
                raise Broken("metadata other than labels and annotations changed")
            if _validity(sent) != "valid":
                stats["convert_success_not_valid"] += 1
            elif not _residue_of(sent) or sent in self.seed_objects:
                if _converted(out, sent["apiVersion"]) != sent:
                    raise Broken("a valid object does not convert back to itself")
                stats["convert_roundtrip_exact"] += 1
            else:
                # A residue annotation the conversion did not write for this object (edited
                # since, or copied from another) is consumed, best effort: the way back may
                # differ from the input, but once converted the object must be a fixed point.
                back = _converted(out, sent["apiVersion"])
                if _converted(_converted(back, desired), sent["apiVersion"]) != back:
                    raise Broken("a converted object does not round-trip after the first trip")
                stats["convert_roundtrip_stable_foreign_residue"] += 1

    def _check_failure(self, request: dict[str, Any], message: Any, stats: Counter[str]) -> None:
        if not isinstance(message, str) or not message or "Traceback" in message:
            raise Broken(f"a Failed result without a clear message: {message!r}"[:300])
        if message.startswith("internal error"):
            raise Broken(_library_crash(request) or message)
        if message.startswith("request."):
            stats["convert_failed_request"] += 1
            return
        objects = request.get("objects")
        named = (
            [obj for obj in objects if _names(message, obj)] if isinstance(objects, list) else []
        )
        if not named:
            raise Broken(f"a failure naming no object it was sent: {message[:300]!r}")
        desired = request.get("desiredAPIVersion")
        if desired in VERSIONS and all(_validity(obj) == "valid" for obj in named):
            raise Broken(f"a valid object failed to convert: {message[:300]!r}")
        stats["convert_failed_object"] += 1


def _fixed_metadata(obj: dict[str, Any]) -> Any:
    """What the API server requires a conversion to keep: metadata but labels and annotations."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        return metadata or {}
    return {key: value for key, value in metadata.items() if key not in ("labels", "annotations")}


def _residue_of(obj: dict[str, Any]) -> bool:
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    return any(key in annotations for key in PRESERVED_ANNOTATIONS)


def _converted(obj: dict[str, Any], api_version: str) -> dict[str, Any]:
    """``obj`` at ``api_version``: a ConversionError here, on what the conversion itself
    produced from a valid object, is a finding."""
    try:
        return convert(obj, api_version)
    except ConversionError as error:
        raise Broken(f"a valid object converted, but not on the next trip: {error}") from None


def _validity(obj: Any) -> str:
    """``valid`` when ``validate_create`` allows the object at its version."""
    if not isinstance(obj, dict) or obj.get("apiVersion") not in VERSIONS:
        return "invalid"
    try:
        return "valid" if validate_create(obj).allowed else "invalid"
    except UnknownKindError:
        return "unknown"


def _names(message: str, obj: Any) -> bool:
    """Whether a Failed message starts by naming ``obj``: its kind, and its name or
    ``(unnamed)``."""
    if not isinstance(obj, dict):
        return False
    kind = obj.get("kind")
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    kind_text = kind[:63] if isinstance(kind, str) and kind else "object"
    name_text = name[:253] if isinstance(name, str) and name else "(unnamed)"
    return message.startswith(f"{kind_text} ") and name_text in message


def _library_crash(request: dict[str, Any]) -> str | None:
    """The library's own exception for the first object it raises something else than
    ConversionError on, to report instead of the server's ``internal error``."""
    objects = request.get("objects")
    for obj in objects if isinstance(objects, list) else []:
        try:
            convert(obj, request.get("desiredAPIVersion"))  # type: ignore[arg-type]
        except ConversionError:
            continue
        except Exception as error:
            return f"convert raised {type(error).__name__}: {str(error)[:300]}"
    return None


# --- the run -----------------------------------------------------------------------------------


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--hang-seconds", type=float, default=5.0)
    parser.add_argument("--save", type=Path, default=Path("/tmp/dynamo-operator-fuzz"))
    parser.add_argument(
        "--target",
        action="append",
        choices=list(TARGET_SHARES),
        help="run only this target (repeatable); default: all, mixed by TARGET_SHARES",
    )
    options = parser.parse_args()
    shares = {name: TARGET_SHARES[name] for name in options.target or TARGET_SHARES}

    configure_logging("error", stream=io.StringIO())  # the server's warnings are expected here
    rng = random.Random(options.seed)
    seeds = load_seeds()
    splices = values_by_key(seeds)
    runner = CommandRunner()
    webhook = WebhookTarget(options.hang_seconds)
    conversion = ConversionTarget(webhook, seeds)
    stats: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    findings: Counter[str] = Counter()
    options.save.mkdir(parents=True, exist_ok=True)
    targets: list[str] = rng.choices(list(shares), weights=list(shares.values()), k=options.cases)
    started = time.perf_counter()

    for number, target in enumerate(targets, start=1):
        if target == "convert":
            document = old = {}
            sample: Any = conversion.case(rng)
        else:
            document = mutate(rng.choice(seeds), rng, splices)
            old = mutate(rng.choice(seeds), rng, splices)
            sample = document
        if target == "cli":
            documents = [document, *([old] if rng.random() < 0.3 else [])]
            sample = damage_text("".join("---\n" + _dump(doc) for doc in documents), rng)
        stats[f"{target}_cases"] += 1
        try:
            with deadline(options.hang_seconds):
                if target == "cli":
                    check_cli(runner, sample, stats)
                elif target == "objects":
                    check_objects(document, old, stats)
                elif target == "convert":
                    conversion.check(sample, stats)
                else:
                    webhook.check(document, old, rng, stats)
        except Hang as hang:
            problems["hangs"] += 1
            _save(options.save, f"hang-{target}-{number}", sample, hang)
        except Exception as error:  # every failure is a finding to report
            problems["crashes"] += 1
            problems[f"crash_{target}_{type(error).__name__}"] += 1
            findings[f"{target}: {_finding(error)}"] += 1
            _save(options.save, f"crash-{target}-{number}", sample, error)
        if number % 10_000 == 0:
            print(f"{number} cases, {dict(problems) or 'no problems'}", file=sys.stderr)

    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures = {
        "cases": options.cases,
        "crashes": problems["crashes"],
        "hangs": problems["hangs"],
        "peak_rss_mb": round(peak_mb, 1),
        "seconds": round(seconds, 1),
        "cases_per_second": round(options.cases / seconds),
        **{key: value for key, value in sorted(stats.items())},
        **{key: value for key, value in sorted(problems.items()) if key.startswith("crash_")},
    }
    for finding, count in findings.most_common():
        print(f"{count:>7}  {finding}", file=sys.stderr)
    print(" ".join(f"{key}={value}" for key, value in figures.items()))


def _finding(error: BaseException) -> str:
    """The kind of a failure, without the case's data: its type and its message's first words
    (the library's own exception's too, when it is what broke)."""
    parts = str(error).split(": ")
    words = parts[:3] if parts[0].startswith("convert raised") else parts[:1]
    return f"{type(error).__name__}: {': '.join(words)[:100]}"


def _dump(document: Any) -> str:
    try:
        return yaml.safe_dump(document, sort_keys=False)
    except (RecursionError, yaml.YAMLError):
        return "deep: " + "[" * 2000 + "]" * 2000 + "\n"


def _save(directory: Path, name: str, sample: Any, error: BaseException) -> None:
    if len(list(directory.glob(f"{name.split('-')[0]}-*"))) >= 50:
        return  # a few samples of each are enough to reproduce
    if isinstance(sample, ConversionCase):
        sample = sample.plain[:200_000].decode("utf-8", "replace")
    try:
        text = sample if isinstance(sample, str) else json.dumps(sample)[:200_000]
    except (RecursionError, ValueError):
        text = "<too deeply nested to write>"
    (directory / f"{name}.txt").write_text(f"# {type(error).__name__}: {error}\n{text}")


if __name__ == "__main__":
    main()
