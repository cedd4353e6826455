"""The report of an order probe says what its verdicts support: nothing, when no verdict was read."""

from __future__ import annotations


def test_an_order_probe_whose_replies_match_no_rule_says_it_tested_nothing(tmp_path):
    # every reply reads "Verdict: [[A]]", the rules look for "<A>": no item has a verdict in either order, so
    # a Summary of "not more than chance (p = 1)" would state a test that ran on nothing
    import probestats

    log = tmp_path / "judge.csv"
    log.write_text("item,order,reply\n" + "".join(f"{i},{o},Verdict: [[A]]\n" for i in range(6) for o in ("AB", "BA")))
    text = probestats.report(log, judge={"order": "order", "response": "reply",
                                         "verdicts": ["first=<A>", "second=<B>"]}, format="md").text
    summary = text.split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert "no item had its verdicts read in both orders" in summary and "no order effect was tested" in summary
    assert "chance" not in summary and "p =" not in summary
    assert "The probe tested nothing" in text.split("## Finding", 1)[1]
