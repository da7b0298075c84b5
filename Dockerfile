# The operator image: `dynamo-operator` on Python 3.11, running as an unprivileged user.
# Build: docker build -t dynamo-operator:dev .   (hack/kind-up.sh builds and loads it into kind)
FROM python:3.11-slim AS build
WORKDIR /src
RUN python -m venv /opt/venv
COPY pyproject.toml README.md ./
COPY dynamo_operator ./dynamo_operator
COPY manager ./manager
COPY webhooks ./webhooks
RUN /opt/venv/bin/pip install --no-cache-dir --upgrade pip \
    && /opt/venv/bin/pip install --no-cache-dir .

FROM python:3.11-slim
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1
USER 65532:65532
EXPOSE 8080 8081 9443
ENTRYPOINT ["dynamo-operator"]
CMD ["--help"]
