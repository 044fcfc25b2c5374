"""A real ``torch.distributed`` run: two gloo processes on CPU, each updating an uneven share
of WMT21 en-de in batches of 64 (``tm_ddp_worker.py`` is the run).

Integer statistics (every class's, and TER's when each segment has one reference): the
synced ``compute`` equals, bit for bit, one process scoring everything. TER's reference
length of a segment with several references is an average, not an integer; its sum is
float, as in torchmetrics and sacreBLEU: there the synced ``compute`` is exactly the sum of
the two processes' states, the arithmetic torchmetrics' own sync makes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchmetrics")
if not torch.distributed.is_available():  # pragma: no cover - CPU builds have gloo
    pytest.skip("this torch build has no torch.distributed", allow_module_level=True)

from tm_ddp_worker import CASES, SHARE, metric, updated  # noqa: E402

import truebleu  # noqa: E402
from conftest import needs_wmt21  # noqa: E402

pytestmark = needs_wmt21
WORKER = Path(__file__).with_name("tm_ddp_worker.py")


@pytest.fixture(scope="module")
def distributed(tmp_path_factory):
    out = tmp_path_factory.mktemp("ddp")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(truebleu.__file__).parents[1]),
                                                      env.get("PYTHONPATH")]))
    subprocess.run([sys.executable, str(WORKER), str(out)], env=env, check=True, timeout=300)
    return [torch.load(out / f"rank{rank}.pt") for rank in (0, 1)]


def assert_equal(expected, got):
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for e, g in zip(expected, got):
        assert g.dtype == e.dtype and g.shape == e.shape
        assert torch.equal(g, e), (e, g)


@pytest.mark.parametrize("key", [key for key in CASES if not key.endswith("-mixed")])
def test_synced_compute_is_the_one_process_number(distributed, key):
    single = updated(key).compute()
    for rank_result in distributed:
        assert_equal(single, rank_result[key])


@pytest.mark.parametrize("key", ["TranslationEditRate-mixed", "TER-mixed"])
def test_averaged_lengths_sync_as_a_sum_of_the_ranks_states(distributed, key):
    shares = [updated(key, slice(0, SHARE)), updated(key, slice(SHARE, None))]
    merged = metric(key)
    for state in merged._defaults:  # what the sync does: each state summed over the ranks
        setattr(merged, state, torch.stack([getattr(m, state) for m in shares]).sum(0))
    merged._update_count = 1
    for rank_result in distributed:
        assert_equal(merged.compute(), rank_result[key])
