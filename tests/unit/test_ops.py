"""The pure parts of the operations routes: windows widened to whole buckets and checked, latency
percentiles from a histogram, the key words that group gaps, and where a failure surfaced."""

from __future__ import annotations

import pytest

from service.api.failure_records import failure_stage, failure_status
from service.errors import KgsError
from service.ops.gaps import similarity
from service.ops.latency import percentile_ms
from service.ops.window import OpsRequestError, window_of
from service.records.rollup import LATENCY_BOUNDS_MS, gap_words, latency_bin
from service.settings import OpsSettings

HOUR = 3_600_000
DAY = 24 * HOUR
NOW = 1_764_871_234_567  # 2026-12-04T18:00:34.567Z


def test_a_window_widens_to_whole_buckets_and_defaults_to_the_last_week() -> None:
    settings = OpsSettings()
    default = window_of(None, None, "hour", settings, NOW)
    assert default.until_ms == NOW - NOW % HOUR + HOUR and default.since_ms % HOUR == 0
    assert default.until_ms - default.since_ms == 7 * DAY + HOUR  # both ends widened
    days = window_of("2026-12-01T10:00:00Z", "2026-12-03T01:00:00+00:00", "day", settings, NOW)
    assert (days.until_ms - days.since_ms) // DAY == 3 and len(days.starts) == 3
    naive = window_of("2026-12-01T10:00:00", "2026-12-01T12:00:00", "hour", settings, NOW)
    assert naive.bounds() == {"since": "2026-12-01T10:00:00.000Z",
                              "until": "2026-12-01T12:00:00.000Z"}  # fmt: skip


@pytest.mark.parametrize(
    ("since", "until", "bucket", "message"),
    [
        (None, None, "week", "bucket must be one of"),
        ("last tuesday", None, "hour", "since is not an ISO 8601 time"),
        ("2026-12-02", "2026-12-01", "hour", "since must be before until"),
        ("2026-12-01", "2026-12-01", "day", "since must be before until"),
        ("2024-01-01", "2026-01-01", "day", "the window is longer than"),
        ("2026-01-01", "2026-12-01", "hour", "more than 2000 hour buckets"),
    ],
)
def test_a_bad_window_is_refused_with_its_reason(
    since: str | None, until: str | None, bucket: str, message: str
) -> None:
    with pytest.raises(OpsRequestError, match=message):
        window_of(since, until, bucket, OpsSettings(), NOW)


def test_percentiles_interpolate_inside_their_bin() -> None:
    counts = [0] * (len(LATENCY_BOUNDS_MS) + 1)
    assert percentile_ms(counts, 0.5) is None
    counts[latency_bin(30.0)] = 10  # ten answers between 20 and 50 ms
    assert percentile_ms(counts, 0.5) == 35.0 and percentile_ms(counts, 1.0) == 50.0
    counts[latency_bin(60_000.0)] = 10  # and ten slower than the last bound
    assert percentile_ms(counts, 0.95) == LATENCY_BOUNDS_MS[-1]
    assert latency_bin(0.0) == 0 and latency_bin(5.0) == 2 and latency_bin(5.1) == 3


def test_gap_words_drop_question_and_function_words_and_fold_plurals() -> None:
    assert gap_words("How long is the warranty?") == ("long", "warranty")
    assert gap_words("Warranty: how long?") == gap_words("how long is the warranty")
    assert gap_words("What do the filters cost?") == ("cost", "filter")
    assert gap_words("Is the glass safe?") == ("glass", "safe")  # "ss" is no plural
    assert similarity({"mercury", "boiling", "point"}, {"mercury", "boiling", "point"}) == 1.0
    assert similarity({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)
    assert similarity(set(), set()) == 1.0


class RefusedHere(KgsError):
    http_status = 503


def _raise_here(error: Exception) -> None:
    raise error


def test_a_failure_is_placed_in_the_deepest_kgs_module_and_typed() -> None:
    try:
        gap_words(None)  # type: ignore[arg-type]  # fails inside service.text.tokens
    except Exception as error:
        assert failure_stage(error) == "text.tokens"
        assert failure_status(error) == (500, "unexpected")
    try:
        _raise_here(RefusedHere("away"))
    except KgsError as error:
        assert failure_stage(error) == "answer"  # no kgs frame: raised in a test module
        assert failure_status(error) == (503, "refused-here")
