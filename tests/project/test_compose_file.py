"""The production-shaped docker-compose.yml and Dockerfile say what the design says they do."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from desk.names import SEARCH_ATTRIBUTES
from workers.devserver import DEV_SERVER_TYPES, tuning_arguments

TOP = Path(__file__).resolve().parents[2]
COMPOSE = TOP / "docker-compose.yml"
DOCKERFILE = TOP / "Dockerfile"
SPEC = Path(__file__).resolve().parents[1] / "data" / "compose-spec.json"

# The only acceptable value for a token: Compose interpolation from the environment.
TOKEN_FROM_ENV = re.compile(r"^\$\{CODEDESK_DISCORD_TOKEN(?::?[?-][^}]*)?\}$")
# What a Discord bot token looks like: three base64url parts separated by dots.
DISCORD_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{20,}")


@pytest.fixture(scope="module")
def text() -> str:
    return COMPOSE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def services(text: str) -> dict[str, dict[str, Any]]:
    loaded = yaml.safe_load(text)
    assert isinstance(loaded, dict) and isinstance(loaded.get("services"), dict)
    found: dict[str, dict[str, Any]] = loaded["services"]
    return found


def environment(service: dict[str, Any]) -> dict[str, str]:
    """A service's environment as a mapping, whichever of Compose's two spellings it uses."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {key: "" if value is None else str(value) for key, value in env.items()}


def command(service: dict[str, Any]) -> list[str]:
    value = service.get("command")
    return value.split() if isinstance(value, str) else list(value or [])


def published(service: dict[str, Any]) -> set[tuple[str, str]]:
    """(host port, container port) pairs, from short ("[ip:]host:container") or long syntax."""
    pairs = set()
    for port in service.get("ports") or []:
        if isinstance(port, dict):
            pairs.add((str(port.get("published")), str(port.get("target"))))
        else:
            host, _, container = str(port).rpartition(":")
            pairs.add((host.rpartition(":")[2], container.split("/")[0]))
    return pairs


def condition(service: dict[str, Any], on: str) -> str:
    """The condition a service waits for on another, from the long depends_on syntax."""
    depends = service.get("depends_on") or {}
    assert isinstance(depends, dict), "depends_on must use the long syntax with conditions"
    return str((depends.get(on) or {}).get("condition", ""))


def mounts(service: dict[str, Any]) -> dict[str, str]:
    """Container path -> volume (or host path) of a service's volumes."""
    found = {}
    for volume in service.get("volumes") or []:
        if isinstance(volume, dict):
            found[str(volume["target"])] = str(volume.get("source"))
        else:
            source, _, target = str(volume).partition(":")
            found[target.split(":")[0]] = source
    return found


def test_the_file_follows_the_compose_specification(text: str) -> None:
    """Checked against the Compose specification's own JSON schema (compose-spec/compose-spec,
    schema/compose-spec.json, Apache-2.0, kept in tests/data)."""
    spec = jsonschema.Draft7Validator(json.loads(SPEC.read_text(encoding="utf-8")))
    spec.validate(yaml.safe_load(text))
    wrong = yaml.safe_load(text)
    wrong["services"]["temporal"]["depends_on"]["temporal-schema"]["condition"] = "when_ready"
    assert not spec.is_valid(wrong)  # the schema does catch a bad file


def test_the_services_exist(services: dict[str, dict[str, Any]]) -> None:
    assert {"postgresql", "temporal", "temporal-ui", "worker", "worker-2", "bot"} <= set(services)


def test_temporal_runs_on_postgresql_without_auto_setup(
    text: str, services: dict[str, dict[str, Any]]
) -> None:
    assert "auto-setup" not in text  # deprecated: the schema job and the server instead
    temporal = services["temporal"]
    assert str(temporal["image"]).startswith("temporalio/server:")
    assert environment(temporal)["DB"] == "postgres12"
    assert environment(temporal)["POSTGRES_SEEDS"] == "postgresql"
    assert str(services["postgresql"]["image"]).startswith("postgres:16")
    assert "/var/lib/postgresql/data" in mounts(services["postgresql"])
    schema = services["temporal-schema"]
    assert str(schema["image"]).startswith("temporalio/admin-tools:")
    script = "\n".join(command(schema))
    assert "temporal-sql-tool --plugin postgres12" in script and "update-schema" in script
    assert condition(temporal, "temporal-schema") == "service_completed_successfully"
    assert condition(schema, "postgresql") == "service_healthy"
    assert temporal.get("healthcheck", {}).get("test")


@pytest.mark.parametrize("name", ["worker", "worker-2", "bot"])
def test_codedesk_waits_for_a_healthy_server_and_its_setup(
    services: dict[str, dict[str, Any]], name: str
) -> None:
    assert condition(services[name], "temporal") == "service_healthy"
    assert condition(services[name], "temporal-setup") == "service_completed_successfully"
    assert condition(services["temporal-setup"], "temporal") == "service_healthy"


def test_two_workers_are_two_hosts_with_their_own_shelves(
    services: dict[str, dict[str, Any]],
) -> None:
    first, second = services["worker"], services["worker-2"]
    assert command(first) == command(second) == ["codedesk", "worker"]
    assert environment(first)["CODEDESK_HOST"] != environment(second)["CODEDESK_HOST"]
    assert mounts(first)["/data"] != mounts(second)["/data"]


@pytest.mark.parametrize("name", ["worker", "bot"])
def test_worker_and_bot_reach_temporal_and_share_the_data_volume(
    services: dict[str, dict[str, Any]], name: str
) -> None:
    service = services[name]
    env = environment(service)
    assert env["CODEDESK_TEMPORAL_ADDRESS"] == "temporal:7233"
    assert env["CODEDESK_HOME"] == "/data"
    assert service.get("build") in (".", {"context": "."})
    assert "temporal" in (service.get("depends_on") or {})
    assert mounts(service)["/data"] == mounts(services["worker"])["/data"]


def test_worker_and_bot_commands(services: dict[str, dict[str, Any]]) -> None:
    assert command(services["worker"]) == ["codedesk", "worker"]
    assert command(services["bot"]) == ["codedesk", "discord"]


def test_the_discord_token_only_comes_from_the_environment(
    text: str, services: dict[str, dict[str, Any]]
) -> None:
    assert TOKEN_FROM_ENV.match(environment(services["bot"])["CODEDESK_DISCORD_TOKEN"])
    for name, service in services.items():
        for key, value in environment(service).items():
            if "TOKEN" in key.upper() or "SECRET" in key.upper():
                assert TOKEN_FROM_ENV.match(value), f"{name}.{key} is not from the environment"
        assert "env_file" not in service, f"{name} reads an env_file the repo might carry"
    assert not DISCORD_TOKEN_SHAPE.search(text)


def test_the_ui_and_the_frontend_are_published_on_this_machine_only(
    services: dict[str, dict[str, Any]],
) -> None:
    ui = services["temporal-ui"]
    assert str(ui["image"]).startswith("temporalio/ui")
    assert environment(ui)["TEMPORAL_ADDRESS"] == "temporal:7233"
    assert ("8233", "8080") in published(ui)
    for name in ("temporal-ui", "temporal"):
        for port in services[name].get("ports") or []:
            assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port} beyond 127.0.0.1"
    for name, service in services.items():
        if name not in ("temporal-ui", "temporal"):
            assert not service.get("ports"), f"{name} publishes a port"


def test_codedesk_search_attributes_are_registered(text: str) -> None:
    assert "search-attribute create" in text
    assert '--type "$$type"' in text
    for attribute in SEARCH_ATTRIBUTES:
        kind = DEV_SERVER_TYPES[attribute.indexed_value_type]
        assert f"{attribute.name}:{kind}" in text, f"{attribute.name} is not registered"


def test_the_dockerfile_installs_the_package() -> None:
    assert DOCKERFILE.is_file()
    lines = [line.strip() for line in DOCKERFILE.read_text(encoding="utf-8").splitlines()]
    assert "FROM python:3.11-slim" in lines
    body = "\n".join(lines)
    assert re.search(r"apt-get install\b[^\n]*\bgit\b", body)
    assert re.search(r"pip install (--[\w-]+ )*\.(\s|$)", body)
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0"), "the image must not run as root"
    assert 'CMD ["codedesk", "worker"]' in lines


def test_the_server_runs_with_the_embedded_servers_tuning(
    text: str, services: dict[str, dict[str, Any]]
) -> None:
    """The dynamic config the compose file mounts holds the values the dev server runs with."""
    temporal = services["temporal"]
    path = environment(temporal)["DYNAMIC_CONFIG_FILE_PATH"]
    [config] = [c for c in temporal["configs"] if c["target"] == path]
    content = yaml.safe_load(yaml.safe_load(text)["configs"][config["source"]]["content"])
    mounted = {key: json.dumps(entries[0]["value"]) for key, entries in content.items()}
    arguments = tuning_arguments()
    embedded = dict(value.split("=", 1) for value in arguments[1::2])
    assert mounted == embedded


def test_every_worker_and_the_bot_read_the_same_host_policy(
    services: dict[str, dict[str, Any]],
) -> None:
    # The bot's owners must be the desk's: who may approve and switch is the workers' policy.
    policy = {
        "CODEDESK_OWNERS",
        "CODEDESK_OWNER_REPOS",
        "CODEDESK_DISCORD_OWNER_IDS",
        "CODEDESK_DISCORD_OWNER_ROLE_IDS",
    }
    seen = []
    for name in ("worker", "worker-2", "bot"):
        env = environment(services[name])
        assert policy <= set(env), name
        seen.append({key: env[key] for key in policy})
    assert seen[0] == seen[1] == seen[2]
