"""Every command the README shows is run by CI, from the entry point a user types.

``COMMANDS`` lists each command of the README (its shell blocks, the command-line synopsis, the
commands written inline) with what runs it: ``.ci/run`` itself, a script it runs, or a test. A
command the README gains without an entry here fails the first test (make CI run it, then say
where); an entry whose runner no longer holds the command fails the second. The console-script
commands and the benchmarks are run below: each benchmark starts and explains itself, and those
that need no cluster run briefly and print their figures as ``key=value`` on their last line.
``GAPS`` are the commands nothing runs yet, each with why.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from .scripts import ROOT

README = ROOT / "README.md"
CONSOLE_SCRIPT = Path(sys.executable).with_name("dynamo-operator")
EXAMPLE = ROOT / "examples" / "vllm-disagg.yaml"
GENERATED_CRDS = ROOT / "deploy" / "helm" / "dynamo-operator-crds" / "generated"
THIS_TEST = "tests/hack/test_readme_commands.py"


@dataclass(frozen=True)
class Runner:
    """Where CI runs a command: `path` (from the root) holds each of `needles`."""

    path: str
    needles: tuple[str, ...]
    how: str = ""


def run_by(path: str, *needles: str, how: str = "") -> Runner:
    return Runner(path, needles, how)


HELM_INSTALL_CRDS = run_by("e2e/support/helm_install.py", '"install", "dynamo-operator-crds"')
HELM_INSTALL = run_by(
    "hack/kind/charts.sh",
    "upgrade --install dynamo-operator ",
    "--set controllerManager.manager.image.repository=",
    how="hack/test-kind; e2e/support/helm_install.py on the real node in hack/test",
)
HELM_UPGRADE = run_by("e2e/install/test_upgrade.py", '"upgrade", RELEASE, str(OPERATOR_CHART)')
HELM_UNINSTALL = run_by("e2e/install/test_install.py", '"uninstall", RELEASE')
APPLY_CRDS = run_by(
    "hack/demo",
    "apply --server-side --force-conflicts -f deploy/helm/dynamo-operator-crds/generated",
)
DEMO_LISTING = run_by("hack/demo", "get dgd,dcd,deploy,lws,svc,pods")
IN_THIS_TEST = run_by(THIS_TEST, "def test_", how="run below through the console script")

COMMANDS: dict[str, Runner] = {
    # The front door.
    "pip install -e '.[test]'": run_by(".ci/run", "pip\" install --quiet -e '.[test]'"),
    "hack/demo": run_by(".ci/run", "hack/demo >"),
    "hack/demo down": run_by(".ci/run", "hack/demo down"),
    "hack/test": run_by(".ci/run", "\nhack/test\n"),
    "hack/serve-demo": run_by(".ci/run", "hack/serve-demo ||"),
    "pip install": run_by(".ci/run", "pip\" install --quiet -e '.[test]'"),
    ".ci/run": run_by(".ci/run", "set -euo pipefail", how="CI itself"),
    "hack/check-module-sizes.py": run_by(".ci/run", "\nhack/check-module-sizes.py\n"),
    "hack/check-test-mirror.py": run_by(".ci/run", "\nhack/check-test-mirror.py\n"),
    "python -m pytest tests e2e -n 4 --dist loadfile": run_by(
        "hack/test", '-m pytest tests e2e "${parallel[@]}"', "--dist loadfile"
    ),
    # Install.
    "helm install dynamo-operator-crds deploy/helm/dynamo-operator-crds --namespace default": (
        HELM_INSTALL_CRDS
    ),
    "helm install dynamo-operator deploy/helm/dynamo-operator --namespace ${NAMESPACE} "
    "--create-namespace --set controllerManager.manager.image.repository=${IMAGE} "
    "--set controllerManager.manager.image.tag=${IMAGE_TAG}": HELM_INSTALL,
    "kubectl -n ${NAMESPACE} rollout status deployment/dynamo-operator-controller-manager": run_by(
        "hack/kind/charts.sh",
        "rollout status deployment/dynamo-operator-controller-manager",
        how="hack/test-kind",
    ),
    "helm install dynamo-test deploy/helm/dynamo-operator --namespace test-namespace "
    "--create-namespace --set namespaceRestriction.enabled=true "
    "--set controllerManager.manager.image.tag=v2.0.0-beta": run_by(
        "e2e/install/test_install.py", "--set=namespaceRestriction.enabled=true"
    ),
    "helm install": HELM_INSTALL,
    "docker build -t $IMAGE:$IMAGE_TAG .": run_by(
        "hack/kind/images.sh", "docker build -q --network host", how="hack/test-kind"
    ),
    "hack/image/build.sh": run_by("e2e/support/operator_image.py", '"hack" / "image" / "build.sh"'),
    "hack/image/build-dynamo.sh": run_by(
        "e2e/support/dynamo_image.py", '"hack" / "image" / "build-dynamo.sh"'
    ),
    "dynamo-operator crds --output-dir deploy/helm/dynamo-operator-crds/generated": IN_THIS_TEST,
    "dynamo-operator crds": IN_THIS_TEST,
    "kubectl apply --server-side --force-conflicts -f deploy/helm/dynamo-operator-crds/generated": (
        APPLY_CRDS
    ),
    "kubectl apply --server-side": APPLY_CRDS,
    "kubectl apply": APPLY_CRDS,
    "helm upgrade dynamo-operator-crds deploy/helm/dynamo-operator-crds": run_by(
        "e2e/install/test_upgrade.py", '"upgrade", "dynamo-operator-crds", str(CRD_CHART)'
    ),
    "helm upgrade dynamo-operator deploy/helm/dynamo-operator -n dynamo-system "
    "-f your-values.yaml": HELM_UPGRADE,
    "helm upgrade": HELM_UPGRADE,
    "helm uninstall dynamo-operator": HELM_UNINSTALL,
    "helm uninstall dynamo-operator-crds": run_by(
        "e2e/install/test_install.py", '"uninstall", "dynamo-operator-crds"'
    ),
    "helm uninstall": HELM_UNINSTALL,
    # The API and its objects.
    "dynamo-operator convert --to v1beta1 -f graph.yaml": IN_THIS_TEST,
    "kubectl get dgd": DEMO_LISTING,
    "kubectl get dgd,dcd,deploy,lws,svc,pods": DEMO_LISTING,
    "kubectl get dynamographdeployments.v1alpha1.nvidia.com": run_by(
        "hack/demo", "dynamographdeployments.v1alpha1.nvidia.com --all"
    ),
    "kubectl scale dgdsa <graph>-<service> --replicas N": run_by(
        "e2e/operator/test_scaling_adapter.py",
        "/dynamographdeploymentscalingadapters/{ADAPTER}/scale",
        how="the scale subresource kubectl scale calls",
    ),
    # The command line (its synopsis).
    "dynamo-operator run": run_by("hack/demo", '"${OPERATOR[@]}" run'),
    "dynamo-operator render": IN_THIS_TEST,
    "dynamo-operator validate": IN_THIS_TEST,
    "dynamo-operator convert": IN_THIS_TEST,
    "dynamo-operator version": IN_THIS_TEST,
    "dynamo-operator webhook-server": run_by("hack/demo", '"${OPERATOR[@]}" webhook-server'),
    "dynamo-operator webhook-server --configure-crd-conversion": run_by(
        "hack/demo", "--configure-crd-conversion"
    ),
    # Clusters for development and tests.
    'eval "$(hack/local-cluster up)"': run_by("hack/demo", "cluster_env=$(hack/local-cluster up)"),
    "hack/local-cluster down": run_by("hack/demo", "exec hack/local-cluster down"),
    "hack/local-cluster up --real-node": run_by(".ci/run", "$(hack/local-cluster up --real-node)"),
    "hack/kind-up.sh": run_by("hack/test-kind", "hack/kind-up.sh"),
    "hack/kind-down.sh": run_by("hack/test-kind", "hack/kind-down.sh"),
    "hack/test-kind": run_by(".ci/run", "\nhack/test-kind\n"),
    'DYNAMO_E2E_KUBECONFIG=/path/to/kubeconfig python -m pytest e2e -m "e2e and not '
    'local_control_plane"': run_by(
        "hack/test-kind",
        "export DYNAMO_E2E_KUBECONFIG=$KUBECONFIG",
        '-m "e2e and not local_control_plane',
    ),
}

BENCHMARKS_WITHOUT_A_CLUSTER = {
    "python -m bench.render": ["--seconds", "0.2"],
    "python -m bench.webhook": ["--seconds", "0.3", "--clients", "1"],
    "python -m bench.workqueue": ["--keys", "2000"],
    "python -m bench.fuzz": ["--cases", "200", "--save", "{tmp}"],
}
BENCHMARKS_ON_A_CLUSTER = (
    "python -m bench.converge",
    "python -m bench.chaos",
    "python -m bench.conversion",
    "python -m bench.informer_sync",
    "python -m bench.sample_controller",
    "python -m bench.write_cost",
)
for _benchmark in (*BENCHMARKS_WITHOUT_A_CLUSTER, *BENCHMARKS_ON_A_CLUSTER):
    COMMANDS[_benchmark] = IN_THIS_TEST

GAPS: dict[str, str] = {
    "docker push $IMAGE:$IMAGE_TAG": "no registry is reachable here (hack/test-kind loads the "
    "image into kind instead)",
    "kubectl delete crd dynamographdeployments.nvidia.com ...": "a warning: it deletes every graph",
    "kubectl delete clusterrole": "after the last graph is gone; e2e/install/test_install.py "
    "checks that helm uninstall keeps it",
    "kubectl delete pvc -l nvidia.com/dynamo-graph-deployment-name=<graph>": "the claims' labels "
    "are checked in e2e/operator; nothing deletes them by label",
    "kubectl get dc": "e2e/install/test_dynamo_component_builds.py reads DynamoComponents "
    "through the API",
}
"""Commands the README shows that CI does not run, and why (the cluster-bound benchmarks run
only as far as their --help: each needs minutes and a control plane of its own)."""

NAMED_NOT_RUN = {"kubectl convert"}
"""Commands the README names for comparison only (`convert` prints "as kubectl convert would")."""

PROGRAMS = re.compile(
    r"^(hack/|\.ci/run|dynamo-operator |python -m |pip |helm |kubectl |docker |eval |"
    r"[A-Z_]+=\S+ (python|hack/))"
)


def readme_commands(text: str) -> set[str]:
    """The commands of the README's shell blocks, synopsis and inline code (whitespace folded)."""
    commands: set[str] = set()
    for language, body in re.findall(r"```(\w*)\n(.*?)```", text, flags=re.DOTALL):
        if language == "bash":
            for line in body.replace("\\\n", " ").splitlines():
                line = re.sub(r"(^|\s)#.*$", "", line).strip()
                if line and not line.startswith("export "):
                    commands.update(part.strip() for part in line.split(" && "))
        elif language == "":
            commands.update(
                " ".join(line.split()[:2])
                for line in body.splitlines()
                if line.startswith("dynamo-operator ")
            )
    inline = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    for span in re.findall(r"`([^`]+)`", inline):
        command = " ".join(span.split())
        if PROGRAMS.match(command) and _is_a_command(command):
            commands.add(command)
    return {" ".join(command.split()) for command in commands}


def _is_a_command(command: str) -> bool:
    """A path of hack/ is a command when it is an executable file (not `hack/README.md`); Dynamo's
    own modules (`python -m dynamo.vllm`) are what the pods run, not commands of a user's shell."""
    if re.match(r"python3? -m dynamo\.", command):
        return False
    if not command.startswith("hack/"):
        return True
    path = ROOT / command.split()[0]
    return path.is_file() and path.stat().st_mode & 0o111 != 0


def test_ci_runs_every_command_the_readme_shows() -> None:
    shown = readme_commands(README.read_text(encoding="utf-8"))
    assert "hack/serve-demo" in shown
    assert "dynamo-operator convert" in shown

    unaccounted = shown - COMMANDS.keys() - GAPS.keys() - NAMED_NOT_RUN

    assert not unaccounted, (
        f"the README shows commands nothing in CI runs: {sorted(unaccounted)}; make CI run each, "
        f"then add it to COMMANDS in {THIS_TEST}"
    )


@pytest.mark.parametrize("command", sorted(COMMANDS), ids=lambda c: c[:60])
def test_the_runner_named_for_each_command_runs_it(command: str) -> None:
    runner = COMMANDS[command]
    text = (ROOT / runner.path).read_text(encoding="utf-8")

    missing = [needle for needle in runner.needles if needle not in text]

    assert not missing, f"{runner.path} no longer runs `{command}`: {missing} not found"


def console_script(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CONSOLE_SCRIPT), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_dynamo_operator_crds_writes_what_the_chart_ships(tmp_path: Path) -> None:
    done = console_script("crds", "--output-dir", str(tmp_path))

    assert done.returncode == 0, done.stderr
    written = {path.name: path.read_text() for path in tmp_path.iterdir()}
    shipped = {path.name: path.read_text() for path in GENERATED_CRDS.iterdir()}
    assert written == shipped


def test_dynamo_operator_validates_renders_and_converts_the_example(tmp_path: Path) -> None:
    validated = console_script("validate", "-f", str(EXAMPLE))
    rendered = console_script("render", "-f", str(EXAMPLE))
    converted = console_script("convert", "--to", "v1beta1", "-f", str(EXAMPLE))
    version = console_script("version")

    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert rendered.returncode == 0, rendered.stderr
    kinds = {doc["kind"] for doc in yaml.safe_load_all(rendered.stdout) if doc}
    assert {"DynamoComponentDeployment", "Deployment", "LeaderWorkerSet"} <= kinds
    assert converted.returncode == 0, converted.stderr
    graph = next(
        d for d in yaml.safe_load_all(converted.stdout) if d["kind"].endswith("Deployment")
    )
    assert graph["apiVersion"] == "nvidia.com/v1beta1"
    assert graph["spec"]["components"]
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip()


def python_module(module: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )


@pytest.mark.parametrize(
    "command", sorted((*BENCHMARKS_WITHOUT_A_CLUSTER, *BENCHMARKS_ON_A_CLUSTER))
)
def test_each_benchmark_starts_and_explains_itself(command: str) -> None:
    done = python_module(command.split()[-1], "--help")

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ")


@pytest.mark.parametrize("command", sorted(BENCHMARKS_WITHOUT_A_CLUSTER))
def test_a_benchmark_without_a_cluster_prints_its_figures_last(
    command: str, tmp_path: Path
) -> None:
    arguments = [a.replace("{tmp}", str(tmp_path)) for a in BENCHMARKS_WITHOUT_A_CLUSTER[command]]

    done = python_module(command.split()[-1], *arguments)

    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"(\S+=\S+ ?)+", last), last
