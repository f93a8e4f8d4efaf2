"""The spec's route lookup (sandbox/spec.py): the index by method and first segment finds what
a walk over every operation finds, and the parameters are checked against their resolved
schemas."""

from __future__ import annotations

import re

import pytest

from sandbox.spec import Operation, discord_spec
from sandbox.util import ApiError

SNOWFLAKE = "123456789012345678"


def walk(method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
    """The first operation, in the spec's order, that takes this request."""
    for op in discord_spec().operations:
        if op.method == method:
            m = op.regex.match(path)
            if m:
                return op, m.groupdict()
    return None


def paths() -> list[str]:
    spec = discord_spec()
    made = [re.sub(r"\{\w+\}", SNOWFLAKE, op.template) for op in spec.operations]
    made += [re.sub(r"\{\w+\}", "x", op.template) for op in spec.operations[::7]]
    return [*made, "/", "/nowhere", "/nowhere/at/all", "/users/@me", "/interactions/1/t/callback"]


def test_find_answers_what_a_walk_over_every_operation_answers() -> None:
    spec = discord_spec()
    checked = 0
    for path in paths():
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            found, walked = spec.find(method, path), walk(method, path)
            assert (found is None) == (walked is None), (method, path)
            if found is not None and walked is not None:
                assert found[0] is walked[0] and found[1] == walked[1], (method, path)
                checked += 1
    assert checked >= len(spec.operations)  # every operation found by its own path


def test_path_and_query_parameters_are_checked_against_their_resolved_schemas() -> None:
    spec = discord_spec()
    op = spec.check("GET", f"/channels/{SNOWFLAKE}/messages", {"limit": "50"}, None, False)
    assert op.template == "/channels/{channel_id}/messages"
    assert all("$ref" not in schema for schema in op.path_params.values())
    with pytest.raises(ApiError) as bad_id:
        spec.check("GET", "/channels/general/messages", {}, None, False)
    assert bad_id.value.status == 400 and "snowflake" in str(bad_id.value.body())
    with pytest.raises(ApiError) as bad_limit:
        spec.check("GET", f"/channels/{SNOWFLAKE}/messages", {"limit": "many"}, None, False)
    assert bad_limit.value.status == 400
    with pytest.raises(ApiError) as nowhere:
        spec.check("GET", "/nowhere", {}, None, False)
    assert nowhere.value.status == 404
