"""The behaviour history (speccheck/behaviour.py) dates each declared change from the released wheels.

Unit tests build tiny fake releases; the consistency tests read
``speccheck/data/behaviour-history.json`` and, where the wheel cache of
``make flag-history`` is on this machine (``_build/sglang-wheels``), check each
verdict against the releases' source: the signature is in its changed state
at the verdict release and not in the release before it.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from speccheck import behaviour
from speccheck.behaviour import Signature, present, verdict

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "_build" / "sglang-wheels"
DATA = json.loads(behaviour.HISTORY.read_text(encoding="utf-8"))
FLAGS = json.loads(behaviour.FLAG_HISTORY.read_text(encoding="utf-8"))
RELEASES = ["0.1", "0.2", "0.3", "0.4"]


def _tree(tmp_path: Path, version: str, text: str) -> Path:
    tree = tmp_path / f"sglang-{version}"
    (tree / "sglang" / "srt").mkdir(parents=True)
    (tree / "sglang" / "srt" / "hook.py").write_text(text)
    return tree


def test_a_signature_is_found_in_any_of_its_files_and_texts(tmp_path):
    tree = _tree(tmp_path, "1.0", "raise ValueError('no dp attention')\n")
    assert present(Signature(("sglang/srt/*.py",), ("missing", "no dp attention")), tree)
    assert not present(Signature(("sglang/srt/other.py",), ("no dp attention",)), tree)


def test_the_verdict_is_the_first_release_of_the_last_run():
    assert verdict([False, True, False, True], RELEASES, absent=False) == {"release": "0.4", "first_seen": "0.2"}
    assert verdict([False, False, True, True], RELEASES, absent=False) == {"release": "0.3"}
    assert verdict([True, True, True, True], RELEASES, absent=False) == {"release": "0.1"}


def test_a_change_that_was_undone_says_until_when():
    assert verdict([False, True, True, False], RELEASES, absent=False) == {"release": "0.2", "until": "0.4"}


def test_a_removal_counts_only_after_the_text_was_there():
    assert verdict([False, True, False, False], RELEASES, absent=True) == {"release": "0.3"}
    assert verdict([False, False, False, False], RELEASES, absent=True)["release"] is None
    assert verdict([False, False, False, False], RELEASES, absent=False) == {"release": "not-released"}


def test_history_reads_each_release_tree(tmp_path):
    trees = {v: _tree(tmp_path, v, "x = 1\n" if v < "0.3" else "max_running_requests = 48\n") for v in RELEASES}
    declared = {"changes": [{"id": "cap", "kind": "default", "title": "cap",
                             "signature": {"file": "sglang/srt/hook.py", "text": "max_running_requests = 48"}}]}
    [change] = behaviour.history(declared, trees)["changes"]
    assert change["release"] == "0.3" and change["present_in"] == ["0.3", "0.4"]


def test_a_declaration_with_an_unknown_kind_is_refused(tmp_path):
    path = tmp_path / "changes.yaml"
    path.write_text("changes:\n- {id: a, kind: mood, title: t, signature: {file: f, text: t}}\n")
    with pytest.raises(ValueError, match="kind"):
        behaviour.load_declared(path)


def test_the_generated_history_covers_every_declaration_and_the_flag_history_releases():
    declared = behaviour.load_declared()
    assert [c["id"] for c in DATA["changes"]] == [c["id"] for c in declared["changes"]]
    assert DATA["releases"] == FLAGS["releases"]
    for change, entry in zip(DATA["changes"], declared["changes"], strict=True):
        assert change["signature"] == Signature.from_yaml(entry["signature"]).as_dict(), change["id"]


def test_every_release_read_has_a_publication_date_and_they_run_in_order():
    """``make release-dates`` after a pin move: the dates cover exactly the releases read, oldest first."""
    dates = json.loads((behaviour.HISTORY.parent / "release-dates.json").read_text(encoding="utf-8"))["sglang"]
    assert list(dates) == DATA["releases"], "run `make release-dates` (the releases read changed)"
    days = list(dates.values())
    assert days == sorted(days), [r for r, a, b in zip(list(dates)[1:], days, days[1:], strict=True) if a > b]


def test_every_declared_change_has_a_release_verdict():
    for change in DATA["changes"]:
        assert change["release"] in DATA["releases"], (change["id"], change["release"])


def test_the_milestones_are_ordered_releases_ending_at_the_newest_release():
    milestones = behaviour.milestones(behaviour.load_declared(), DATA)
    index = [DATA["releases"].index(m) for m in milestones]
    assert index == sorted(set(index)) and milestones[-1] == DATA["releases"][-1]


def test_a_milestone_that_is_no_release_is_refused():
    with pytest.raises(ValueError, match="0.4.99"):
        behaviour.milestones({"milestones": ["0.4.99"]}, DATA)


def test_the_spec_v2_boundaries_are_the_ones_the_pages_state():
    """The worker and variable boundaries that the site and field reports disagreed on."""
    by_id = {c["id"]: c for c in DATA["changes"]}
    page = " ".join((ROOT / "docs" / "reference" / "release-changes.md").read_text(encoding="utf-8").split())
    stated = {
        "spec-v2-default-on": "becomes the default in {}",
        "eagle-worker-v1-removed": "is the only one from {} on",
        "spec-v2-env-ignored": "stops being read in {}",
        "spec-v2-env-name-gone": "(even in the warning that it is ignored) in {}",
    }
    for change_id, sentence in stated.items():
        assert sentence.format(by_id[change_id]["release"]) in page, change_id
    trouble = " ".join((ROOT / "docs" / "how-to" / "troubleshooting-acceptance.md").read_text(encoding="utf-8").split())
    assert f"an upgrade across {by_id['spec-v2-default-on']['release']} switches" in trouble
    assert f"from {by_id['eagle-worker-v1-removed']['release']} on the old worker no longer exists" in trouble


@pytest.mark.skipif(not CACHE.is_dir(), reason="no wheel cache (make flag-history) on this machine")
@pytest.mark.parametrize("change", DATA["changes"], ids=lambda c: c["id"])
def test_each_verdict_holds_in_the_released_source(change):
    trees = behaviour.release_trees(CACHE)
    releases = DATA["releases"]
    if any(r not in trees for r in releases):
        pytest.skip("the wheel cache lacks some releases")
    signature = Signature.from_yaml(change["signature"])
    at = releases.index(change["release"])
    changed = (lambda r: not present(signature, trees[r])) if signature.absent else (
        lambda r: present(signature, trees[r]))
    assert changed(releases[at])
    if at:
        assert not changed(releases[at - 1])
    if "until" in change:  # undone: the change holds up to the release before, not in it
        end = releases.index(change["until"])
        assert changed(releases[end - 1]) and not changed(releases[end])
    assert [r for r in releases if present(signature, trees[r])] == change["present_in"]


def test_release_references_read_the_history():
    history = {"releases": ["0.1", "0.2", "0.3", "0.4"],
               "changes": [{"id": "a", "release": "0.2", "until": "0.4"}, {"id": "b", "release": "0.3"},
                           {"id": "old", "release": "0.1"}, {"id": "never", "release": "not-released"}]}
    text = "{{ since:a }}/{{ before:a }}/{{ last:a }} {{since:b}}-{{ last:b }}"
    assert behaviour.substitute_releases(text, history) == "0.2/0.1/0.3 0.3-0.4"
    assert behaviour.substitute_releases("write `{{ since:ID }}`", history) == "write `{{ since:ID }}`"
    with pytest.raises(ValueError, match=r"^line 2: \{\{ since:c \}\} names no change"):
        behaviour.substitute_releases("x\n{{ since:c }}", history)
    with pytest.raises(ValueError, match="oldest release"):
        behaviour.substitute_releases("{{ before:old }}", history)
    with pytest.raises(ValueError, match="no release"):
        behaviour.substitute_releases("{{ since:never }}", history)


def test_the_pages_release_references_name_declared_changes():
    """Every ``{{ since|before|last:ID }}`` on a page resolves against the generated history."""
    problems = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        try:
            behaviour.substitute_releases(page.read_text(encoding="utf-8"), DATA)
        except ValueError as error:
            problems.append(f"{page.relative_to(ROOT)}: {error}")
    assert not problems


def test_upgrade_notes_take_the_changes_between_two_releases():
    notes = behaviour.upgrade_notes("0.5.10", "0.5.14", FLAGS, DATA, [
        {"url": "u1", "sglang_version": "v0.5.12"}, {"url": "u2", "sglang_version": "0.5.9"}])
    ids = {c["id"] for c in notes["behaviour"]}
    assert {"eagle-worker-v1-removed", "spec-v2-env-ignored"} <= ids and "spec-v2-env-name-gone" not in ids
    assert [r["url"] for r in notes["reports"]] == ["u1"]
    assert "spec-v2-default-on" in {c["id"] for c in notes["undone"]}  # 0.5.11 until 0.5.14
    with pytest.raises(ValueError):
        behaviour.upgrade_notes("0.5.14", "0.5.10", FLAGS, DATA, [])


def test_the_message_history_covers_the_releases_read_and_lists_no_message_the_pin_prints():
    """``make message-history`` after a pin move: the same releases as the behaviour history, and no
    listed message is printed by the pinned wheel (read the same way, from the installed package)."""
    from speccheck import errors, message_history

    data = json.loads(message_history.OUT.read_text(encoding="utf-8"))
    assert data["releases"] == DATA["releases"], "run `make message-history` (the releases read changed)"
    pinned = message_history.release_messages(errors.site_packages())
    still = [m["text"] for m in data["messages"] if errors.normalize(m["text"]) in pinned]
    assert not still, f"listed as gone but printed by the pin: {still[:5]}"
    order = {r: i for i, r in enumerate(data["releases"])}
    assert all(order[m["first"]] <= order[m["last"]] < len(order) - 1 for m in data["messages"])


def test_a_message_gone_by_the_newest_release_is_listed_with_its_releases(tmp_path):
    for release, body in [("1.1", 'raise ValueError("draft too old")\n'),
                          ("1.2", 'raise ValueError("draft too old")\n'),
                          ("1.3", 'raise ValueError("draft is new")\n')]:
        spec = tmp_path / release / "sglang" / "srt" / "speculative"
        spec.mkdir(parents=True)
        (spec / "worker.py").write_text("def start():\n    " + body)
    from speccheck import message_history

    data = message_history.history({r: tmp_path / r for r in ("1.1", "1.2", "1.3")})
    assert data["messages"] == [{"text": "draft too old", "first": "1.1", "last": "1.2",
                                 "file": "sglang/srt/speculative/worker.py", "function": "start"}]


def test_code_history_counts_a_change_of_code_and_not_of_docstring_or_layout(tmp_path):
    from speccheck import code_history

    bodies = {
        "1.1": 'def verify(x):\n    return x + 1\n',
        "1.2": 'def verify(x):\n    """Now documented."""\n    # a comment\n    return (x +\n            1)\n\n\n'
               'def accept(n):\n    return n\n',
        "1.3": 'def verify(x):\n    return x + 2\n\n\ndef accept(n):\n    return n\n',
    }
    for release, body in bodies.items():
        spec = tmp_path / release / "sglang" / "srt" / "speculative"
        spec.mkdir(parents=True)
        (spec / "worker.py").write_text(body)
        (tmp_path / release / "sglang" / "srt" / "sched.py").write_text(
            "def step(batch):\n    return batch.spec_info" + (" or 0\n" if release == "1.2" else "\n"))
    trees = {r: tmp_path / r for r in bodies}
    wanted = code_history.scope([], trees["1.3"]) | {"sglang/srt/sched.py": {"step"}}
    data = code_history.history(trees, wanted)
    assert data["releases"] == ["1.1", "1.2", "1.3"]
    assert data["units"] == [["sglang/srt/sched.py", "step", "1.1", ["1.2", "1.3"]],
                             ["sglang/srt/speculative/worker.py", "accept", "1.2", []],
                             ["sglang/srt/speculative/worker.py", "verify", "1.1", ["1.3"]]]


def test_the_code_history_follows_every_function_point_and_every_unit_of_the_speculative_folder():
    """After ``make interactions`` moves the map, ``make code-history`` must follow: the units are exactly
    the map's ``reads-spec-state`` points and the pinned wheel's ``sglang/srt/speculative/`` units."""
    from speccheck import code_history
    from speccheck import interactions as ix
    from speccheck.errors import site_packages

    data = code_history.load()
    assert data["releases"] == DATA["releases"], "run `make code-history` (the releases read changed)"
    have = {(u[0], u[1]) for u in data["units"]}
    want = {(f, q) for f, names in code_history.scope(ix.load(), site_packages()).items()
            for q in (names or [u.qualname for u in ix._units(ast.parse((site_packages() / f).read_bytes()))])}
    assert have == want, (f"missing {sorted(want - have)[:5]}, extra {sorted(have - want)[:5]}: "
                          "run `make code-history`")
    order = {r: i for i, r in enumerate(data["releases"])}
    assert all(all(order[u[2]] < order[c] for c in u[3]) and u[3] == sorted(u[3], key=order.get)
               for u in data["units"])
