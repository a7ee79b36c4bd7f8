"""What a served process sets up at start: the garbage collector's freeze and threshold."""

import gc
from collections.abc import Iterator

import pytest

from service.api.process import freeze_startup_objects


@pytest.fixture
def collector() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


@pytest.mark.usefixtures("collector")
def test_startup_objects_are_frozen_and_the_young_threshold_set() -> None:
    before = gc.get_freeze_count()
    middle, old = gc.get_threshold()[1:]
    freeze_startup_objects(12_345)
    assert gc.get_freeze_count() > before
    assert gc.get_threshold() == (12_345, middle, old)  # only the young generation changes
