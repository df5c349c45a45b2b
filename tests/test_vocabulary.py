"""One vocabulary: every task name the package defines parses back to what made it, and the
leaderboard's lenient reading agrees with the strict one on every canonical name."""

from specdefects.leaderboard.results import parse_task
from specdefects.lmeval import all_names
from specdefects.report import parse_task_name as report_parse
from specdefects.vocabulary import STYLES, TaskName, benchmarks, parse_task_name, task_name, variant_defect


def test_every_task_name_round_trips():
    names = set(all_names()["tasks"])
    made = {task_name(b, v, s) for b in benchmarks() for v in variant_defect() for s in STYLES}
    assert made == names
    for b in benchmarks():
        for v in variant_defect():
            for s in STYLES:
                parsed = parse_task_name(task_name(b, v, s))
                assert parsed == TaskName(b, {"orig": "orig"}.get(v, v.upper()), s)
                assert parse_task_name(task_name(b, v, s), lenient=True) == parsed
                assert parse_task(task_name(b, v, s)) == parsed[:2]  # the leaderboard's reading


def test_the_report_reads_names_with_the_same_parser():
    assert report_parse is parse_task_name


def test_groups_and_other_tasks_are_not_cells():
    for name in all_names()["groups"] + ["spec_follow_tests_paired", "spec_follow_tests_matched_mbppplus_nl_only",
                                         "humaneval", ""]:
        assert parse_task_name(name) is None and parse_task_name(name, lenient=True) is None, name


def test_submissions_may_use_looser_names_only_when_asked():
    assert parse_task_name("spec_defects_lcb_orig") == ("lcb", "orig", "completion")  # strict: as written
    assert parse_task_name("spec_defects_lcb_orig", lenient=True) == ("livecodebench", "orig", "completion")
    assert parse_task_name("he-clean", lenient=True) == ("humaneval", "orig", "completion")
    assert parse_task_name("he-clean") is None
    assert task_name("mbpp", "US", "instruct") == "spec_defects_mbpp_us_instruct"  # report names work too
