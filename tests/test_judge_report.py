"""An order probe says what its verdicts support: nothing, when no verdict was read, in its report, on the
terminal and in JSON; a probe with one judge read is tested as usual."""

from __future__ import annotations

import json

RULES = ["--order", "order", "--response", "reply", "--verdict", "first=<A>", "--verdict", "second=<B>"]


def _unread(tmp_path):
    # every reply reads "Verdict: [[A]]", the rules look for "<A>": no item has a verdict in either order, so
    # "not more than chance (p = 1)" would state a test that ran on nothing
    log = tmp_path / "judge.csv"
    log.write_text("item,order,reply\n" + "".join(f"{i},{o},Verdict: [[A]]\n" for i in range(6) for o in ("AB", "BA")))
    return log


def test_an_order_probe_whose_replies_match_no_rule_says_in_its_report_it_tested_nothing(tmp_path):
    import probestats

    text = probestats.report(_unread(tmp_path), judge={"order": "order", "response": "reply",
                                                       "verdicts": ["first=<A>", "second=<B>"]}, format="md").text
    summary = text.split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert "nothing was tested: no item had its verdicts read in both orders" in summary
    assert "chance" not in summary and "p =" not in summary
    finding = text.split("## Finding", 1)[1].split("\n## ", 1)[0]
    assert "Nothing was tested: no item had its verdicts read in both orders" in finding
    assert "did not detect" not in finding


def test_the_command_and_its_json_say_nothing_was_tested_never_not_detected(tmp_path, capsys):
    from probestats.cli import main

    log = _unread(tmp_path)
    assert main(["judge", str(log), *RULES]) == 0
    printed = capsys.readouterr().out
    line = next(t for t in printed.splitlines() if t.startswith("At alpha"))
    assert line.startswith("At alpha 0.05: nothing was tested: no item had its verdicts read in both orders")
    assert "not detected" not in printed
    assert main(["judge", str(log), *RULES, "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)["verdict"]
    assert (verdict["conclusion"], verdict["detected"], verdict["p"], verdict["found"]) == ("untested", False,
                                                                                            None, [])


def test_one_judge_read_is_a_test_and_the_other_judges_nothing_does_not_hide_it(tmp_path, capsys):
    # judge j1's replies are read (first slot in both orders: primacy on all 6 items), j2's match no rule;
    # j1 alone is tested: the binomial test of 6 primacy against 0 recency, two-sided, 2 * (1/2)**6 = 0.03125,
    # and Holm across the two judges leaves it at 0.03125 (j2 has no p to correct)
    from probestats.cli import main

    rows = ["item,order,reply,judge"]
    rows += [f"{i},{o},<A>,j1" for i in range(6) for o in ("AB", "BA")]
    rows += [f"{i},{o},Verdict: [[A]],j2" for i in range(6) for o in ("AB", "BA")]
    log = tmp_path / "judges.csv"
    log.write_text("\n".join(rows) + "\n")
    assert main(["judge", str(log), *RULES, "--by", "judge", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    j1, j2 = sorted(got["groups"], key=lambda g: g["by"]["judge"])
    assert (j1["n_items"], j2["n_items"], j2["order_test"]["p"]) == (6, 0, None)
    assert abs(j1["order_test"]["p_adjusted"] - 2 * 0.5 ** 6) < 1e-15
    verdict = got["verdict"]
    assert (verdict["conclusion"], verdict["found"], verdict["p"]) == ("detected", ["judge j1"], j1["order_test"]["p_adjusted"])
