# The operator image: `dynamo-operator` in a virtual environment on Python 3.11, as uid 65532.
#
#   docker build -t dynamo-operator:dev .                 (hack/kind-up.sh builds and loads it into kind)
#   hack/image/build.sh                                   (here, without Docker or a registry: buildah
#                                                          with a Debian-built base; see hack/README.md)
#
# BASE_IMAGE must provide `python3` with the venv module (and ensurepip's pip). Both stages use it,
# so the virtual environment's interpreter link points at the same python3 in the final stage.
# The final stage adds /opt/venv to the base and nothing else: no compiler, no build tools, no caches.
# It runs with a read-only root filesystem: nothing is written outside /tmp (an emptyDir in the
# chart), and Python writes no bytecode (pip compiled it at install time).
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python3 -m venv /opt/venv
WORKDIR /src
COPY pyproject.toml README.md ./
COPY dynamo_operator ./dynamo_operator
COPY manager ./manager
COPY webhooks ./webhooks
# Every dependency ships manylinux wheels for CPython 3.11, so nothing is compiled (--only-binary
# makes that a failure instead of a silent gcc requirement); the project itself is pure Python.
# pip is upgraded first so every base resolves alike (Debian's venv brings pip 23); pip and
# setuptools then leave the environment: the operator never installs anything.
RUN /opt/venv/bin/pip install --upgrade pip \
    && /opt/venv/bin/pip install --only-binary=:all: --no-binary=dynamo-operator . \
    && /opt/venv/bin/pip uninstall --yes pip setuptools \
    && /opt/venv/bin/dynamo-operator version

FROM ${BASE_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="dynamo-operator" \
      org.opencontainers.image.description="Kubernetes operator for NVIDIA Dynamo inference graphs, written in Python" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.vendor="dynamo-operator"
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /tmp
USER 65532:65532
# 8081 health probes (/healthz, /readyz), 8443 metrics over HTTPS (--metrics-secure, as the chart
# runs it), 9443 admission webhooks.
EXPOSE 8081 8443 9443
ENTRYPOINT ["dynamo-operator"]
CMD ["run"]
