# codedesk worker and Discord bot image (see docker-compose.yml).
# The coding agent's own CLI (claude, codex, ...) is not included: build FROM this image and
# install the one your CODEDESK_AGENT_COMMAND runs.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CODEDESK_HOME=/data

RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates openssh-client \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
# Only what the package needs: the build context also holds .git and a local .venv.
COPY pyproject.toml README.md ./
COPY desk ./desk
COPY workflows ./workflows
COPY activities ./activities
COPY workers ./workers
COPY surfaces ./surfaces
RUN pip install . && rm -rf /src/build

# Non-root, and /data owned by that user so a fresh named volume mounted there inherits it.
RUN useradd --create-home --uid 10001 --user-group codedesk \
    && mkdir -p /data \
    && chown codedesk:codedesk /data
USER codedesk
WORKDIR /data
VOLUME ["/data"]

CMD ["codedesk", "worker"]
