"""The fan-out simulation: the scheduling and cost arithmetic the README's long-text table comes from."""

import pytest

from supertonic_harness.bench.cost import USD_PER_GB_S, USD_PER_REQUEST
from supertonic_harness.bench.fanout_sim import Measured, check_targets, simulate, simulate_grid, workers_at

# A join so fast it adds nothing: the tests of the parts' scheduling see only the parts.
BASE = Measured(
    chars_per_part=250,
    part_ms=(6000.0,),
    init_ms=2000.0,
    plan_ms_per_char=0.0,
    audio_s_per_char=0.1,
    memory_mb=1024,
    format="mp3",
    bytes_per_audio_s=8000.0,
    join_bytes_per_s=1e15,
)


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
    # 2,500 chars make 250 s of audio, 2,000,000 bytes of mp3, joined at 400,000 bytes a second: 5 s.
    slow = Measured(**{**BASE.__dict__, "plan_ms_per_char": 1.0, "join_bytes_per_s": 400_000.0})
    run = simulate(slow, 2500, 1)
    assert run.wall_s == pytest.approx(2.5 + 2.0 + 60.0 + 5.0)
    assert (run.plan_s, run.assembly_s) == (2.5, 5.0) and run.format == "mp3"


def test_the_assembly_grows_with_the_file_s_bytes_not_with_its_parts():
    slow = Measured(**{**BASE.__dict__, "join_bytes_per_s": 400_000.0})
    smaller_parts = Measured(**{**slow.__dict__, "chars_per_part": 25})
    assert simulate(smaller_parts, 2500, 1).assembly_s == simulate(slow, 2500, 1).assembly_s
    denser = Measured(**{**slow.__dict__, "bytes_per_audio_s": 16000.0})
    assert simulate(denser, 2500, 1).assembly_s == 2 * simulate(slow, 2500, 1).assembly_s
    # Billed like any invocation: 5 s at 1 GB on top of the parts.
    assert simulate(slow, 2500, 1).billed_gb_s == pytest.approx(2 * 2.0 + 10 * 6.0 + 5.0, abs=0.1)


def test_no_join_rate_is_an_error_not_a_free_assembly():
    with pytest.raises(ValueError, match="join rate"):
        simulate(Measured(**{**BASE.__dict__, "join_bytes_per_s": 0.0}), 1000, 10)


def test_targets_say_which_hold_and_what_dominates_the_ones_that_do_not():
    slow_parts = Measured(**{**BASE.__dict__, "part_ms": (60_000.0,)})
    rows = simulate_grid(slow_parts, chars=(1_000_000,), concurrency=(1_000,))
    (wall, usd) = check_targets(rows, [], {})
    # 4,000 parts of a minute while the mapping needs 199 s to reach 1,000 workers: the parts take minutes.
    assert not wall.holds and wall.why.startswith("the parts")
    assert usd.holds == (rows[0].usd_per_m_chars <= 1.0)
    rss, fast, slow = check_targets([], [520.0, 610.0], {"mp3": 2.0, "opus": 12.5})
    assert (rss.holds, rss.value) == (False, "610.0 MB")
    assert fast.holds and not slow.holds and "opus" in slow.target


def test_no_parts_measured_is_an_error_not_a_zero():
    with pytest.raises(ValueError):
        simulate(Measured(**{**BASE.__dict__, "part_ms": ()}), 1000, 10)


def test_each_worker_s_encoding_is_counted_in_its_part():
    # Parts measured when workers stored samples had no encoder in them: the simulation adds what
    # a worker spends encoding its part, so a slower encoder costs more and never less.
    from dataclasses import replace

    base = Measured(
        chars_per_part=240.0,
        part_ms=(10_000.0,) * 4,
        init_ms=2_000.0,
        plan_ms_per_char=0.09,
        audio_s_per_char=0.09,
        memory_mb=2048,
        format="opus",
        bytes_per_audio_s=7_600.0,
        join_bytes_per_s=40e6,
    )
    encoding = replace(base, encode_ms_per_audio_s=48.0)
    assert encoding.encode_ms_per_part == pytest.approx(240 * 0.09 * 48.0)
    plain, slower = simulate(base, 100_000, 100), simulate(encoding, 100_000, 100)
    assert slower.usd > plain.usd and slower.wall_s > plain.wall_s
