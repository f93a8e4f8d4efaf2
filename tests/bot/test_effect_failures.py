"""The delivery-failure counter of after-commit calls (bot/metrics.py ``effect_delivered``):
a call that fails is counted once and its error still reaches the caller; a call that succeeds
is not counted; neither stays pending."""

from __future__ import annotations

import pytest

from bot import metrics


def sample(name: str) -> float:
    return metrics.REGISTRY.get_sample_value(name) or 0.0


async def test_an_after_commit_call_given_up_moves_the_failure_counter() -> None:
    before = sample("pbp_effect_delivery_failures_total")
    delivered: list[str] = []

    async def post() -> str:
        delivered.append("posted")
        return "posted"

    async def refused() -> None:
        raise RuntimeError("403 Forbidden")

    assert await metrics.effect_delivered(post) == "posted"
    assert sample("pbp_effect_delivery_failures_total") == before
    with pytest.raises(RuntimeError, match="403"):
        await metrics.effect_delivered(refused)
    assert sample("pbp_effect_delivery_failures_total") == before + 1
    assert delivered == ["posted"]
    assert metrics._running_effects == 0  # nothing left counted as pending
