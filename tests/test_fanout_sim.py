"""The fan-out simulation: the scheduling and cost arithmetic the README's long-text table comes from."""

import pytest

from supertonic_harness.bench.cost import USD_PER_GB_S, USD_PER_REQUEST
from supertonic_harness.bench.fanout_sim import Measured, simulate, workers_at

BASE = Measured(chars_per_part=250, part_ms=(6000.0,), init_ms=2000.0, plan_ms_per_char=0.0, assembly_ms_per_part=0.0, memory_mb=1024)


def test_one_worker_renders_the_parts_one_after_another_after_one_cold_start():
    run = simulate(BASE, 2500, 1)
    assert run.parts == 10
    assert run.wall_s == pytest.approx(2.0 + 10 * 6.0)
    assert run.cold_starts == 2  # the planner's and the one worker's


def test_enough_workers_render_every_part_at_once_each_paying_a_cold_start():
    run = simulate(BASE, 1000, 10)
    assert run.parts == 4
    assert run.wall_s == pytest.approx(2.0 + 6.0)
    assert run.cold_starts == 5


def test_the_mapping_scales_up_at_its_documented_rate_not_at_once():
    assert workers_at(0, 1000) == 5
    assert workers_at(60, 1000) == 305
    assert workers_at(600, 1000) == 1000
    many = simulate(BASE, 250 * 1000, 1000)
    # 1,000 parts of 6 s: all at once would take 8 s, but workers join five a second, and the
    # first ones free up and take parts long before the thousandth could join.
    assert many.wall_s > 4 * 8.0
    assert many.cold_starts < 1000
    assert many.wall_s < simulate(BASE, 250 * 1000, 10).wall_s


def test_cost_is_billed_time_by_memory_plus_requests():
    run = simulate(BASE, 2500, 1)
    billed_s = 2 * 2.0 + 10 * 6.0  # two inits (billed for images) and ten parts; the plan took 0
    assert run.usd == pytest.approx(billed_s * 1.0 * USD_PER_GB_S + 11 * USD_PER_REQUEST, abs=1e-4)


def test_planner_and_assembly_add_to_the_wall_time():
    slow = Measured(**{**BASE.__dict__, "plan_ms_per_char": 1.0, "assembly_ms_per_part": 500.0})
    assert simulate(slow, 2500, 1).wall_s == pytest.approx(2.5 + 2.0 + 60.0 + 5.0)


def test_no_parts_measured_is_an_error_not_a_zero():
    with pytest.raises(ValueError):
        simulate(Measured(**{**BASE.__dict__, "part_ms": ()}), 1000, 10)
