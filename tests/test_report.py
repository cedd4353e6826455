"""The report: sections, formats, escaping, templates, the design file and the command line."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probestats import Tests
from probestats import analyze
from probestats.analyses.plan import with_design_power
from probestats.cli import main
from probestats.shape.design import KNOWN_KEYS, Design, design_from, load_design
from probestats.errors import OptionError, ReadError
from probestats.present.plots.items import item_gaps, noise_band, safe_label
from probestats.present.words.sanitize import visible
from probestats.present.report.context import DEFAULT_SECTIONS, SECTIONS, fmt_p, md_escape, report_context
from probestats.present.report.document import Beside, render_report
from tests.factories import make_log, write_log

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "sample_logs" / "style_probe.csv"
NOISE = ROOT / "sample_logs" / "style_noise.csv"
FIVE = ROOT / "sample_logs" / "style_probe_5seeds.csv"
HOSTILE = ROOT / "sample_logs" / "broken" / "hostile.csv"
BODY_SECTIONS = list(DEFAULT_SECTIONS)  # a paired analysis without --by, --scale, --before or framing


@pytest.fixture(scope="module")
def style():
    # the power curve is simulated in the analysis step, as the report command does it
    return with_design_power(analyze(str(PROBE), metric="steps", noise=str(NOISE)))


@pytest.fixture(scope="module")
def hostile_frame():
    """Items, values and settings that try every way out of a table cell or a text node."""
    rows = []
    items = ["<script>alert('item')</script>", "two\nlines | pipe", "$\\frac{1}{0}$ costs $5", "`tick` # h",
             "<img src=x onerror=alert(2)>", "[x](javascript:alert(3))", "{{ 7*7 }}", "a\r\nb"]
    for i, item in enumerate(items):
        for seed in range(1, 4):
            for v, value in enumerate(("<b onmouseover=alert(4)>A</b>", "B|\n<script>alert(5)</script>")):
                rows.append({"item": item, "variant": value, "seed": seed, "model": "<i>m</i>|x",
                             "steps": 4 + (i % 3) * (v == 0) + seed % 2})
    return pl.DataFrame(rows)


@pytest.fixture(scope="module")
def hostile(hostile_frame):
    return analyze(hostile_frame, metric="steps")


class Tags(HTMLParser):
    """Collect the tags and attributes of an HTML page, and its text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> Tags:
    p = Tags()
    p.feed(html)
    p.close()
    return p


# ---------------------------------------------------------------- formatting


def test_fmt_p_never_rounds_across_alpha():
    # 0.0502 printed with two digits would read "0.05", the threshold itself
    assert fmt_p(0.0502, 0.05) == "0.0502"
    assert fmt_p(0.049999, 0.05) == "0.049999"
    assert fmt_p(0.0500001, 0.05) == "0.0500001"
    assert fmt_p(0.0234375, 0.05) == "0.02344"


@settings(max_examples=300, deadline=None)
@given(p=st.floats(1e-12, 1.0), alpha=st.sampled_from([0.05, 0.01, 0.1, 0.005]))
def test_fmt_p_keeps_the_side_of_alpha(p, alpha):
    shown = float(fmt_p(p, alpha))
    assert (shown < alpha) == (p < alpha)
    assert (shown == alpha) == (p == alpha)
    assert shown == pytest.approx(p, rel=0.05)  # two significant digits below 1e-4, four above


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_md_escape_leaves_no_markup(text):
    out = md_escape(text)
    assert "\n" not in out and "\r" not in out
    # every special character is preceded by a backslash that is itself not escaped
    assert not re.search(r"(?<!\\)(?:\\\\)*[`*_\[\]<>|#~]", out)
    # removing the escapes gives the text back, with line breaks as spaces
    back = re.sub(r"\\(.)", r"\1", out)
    flat = re.sub(r"[\r\n\u2028\u2029\x85\x0b\x0c]+", " ", text)
    # and with every other control character shown as a visible escape (\x1b, <U+202E>)
    assert back == visible(flat)


# ---------------------------------------------------------------- sections and formats


def test_full_markdown_report_has_every_section_and_the_plots(style, tmp_path):
    text = render_report(style, format="md", assets_dir=tmp_path / "r_files")
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings == ["Summary", "Design", "Per-item table", "Tests", "Noise: same versus same",
                        "Power: the smallest gap this design could detect", "Finding", "Limits"]
    assert "](r_files/item_gaps.png)" in text and "](r_files/power.png)" in text
    for name in ("item_gaps.png", "power.png"):
        assert (tmp_path / "r_files" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_table_rows_match_a_direct_computation(style):
    # means computed straight from the CSV with polars, independently of paired.item_table
    frame = pl.read_csv(PROBE, schema_overrides={"item": pl.String, "steps": pl.Float64})
    means = frame.group_by("item", "variant").agg(pl.col("steps").mean()).sort("item")
    text = render_report(style, format="md", sections=["table"])
    for item in [str(i) for i in range(8)]:
        fa = means.filter((pl.col("item") == item) & (pl.col("variant") == "formal"))["steps"][0]
        ca = means.filter((pl.col("item") == item) & (pl.col("variant") == "casual"))["steps"][0]
        gap = fa - ca
        row = f"| {item} | {fa:.4g} | {ca:.4g} | {gap:+.4g} | 20 / 20 |"
        assert row in text
    # the sample log's README: average gap +0.64, sign-flip p = 0.023
    assert "| **average** |" in text and "**+0.6375**" in text


def test_section_table_alone_is_just_the_table(style):
    text = render_report(style, format="md", sections=["table"])
    assert re.findall(r"^#+ .*$", text, flags=re.M) == ["## Per-item table"]
    assert "Sign-flip" not in text and "Limits" not in text
    html = render_report(style, format="html", sections=["table"])
    page = parse(html)
    assert [a.get("id") for t, a in page.tags if t == "section"] == ["table"]
    assert not [t for t, _ in page.tags if t in ("h1", "img")]


def test_sections_keep_report_order_and_reject_unknown_names(style):
    text = render_report(style, format="md", sections=["limits", "summary"])
    assert re.findall(r"^## (.+)$", text, flags=re.M) == ["Summary", "Limits"]
    with pytest.raises(OptionError, match="unknown section"):
        render_report(style, sections=["verdict"])
    with pytest.raises(OptionError, match="framing"):
        render_report(style, sections=["framing"])


def test_html_is_one_self_contained_page(style):
    html = render_report(style, format="html")
    page = parse(html)
    metas = {a.get("http-equiv", a.get("name")): a.get("content") for t, a in page.tags if t == "meta"}
    assert metas["Content-Security-Policy"].startswith("default-src 'none'; img-src data:; style-src 'unsafe-inline'")
    assert "width=device-width" in metas["viewport"]
    assert "@media print" in html
    imgs = [a for t, a in page.tags if t == "img"]
    assert len(imgs) == 2 and all(a["src"].startswith("data:image/png;base64,") for a in imgs)
    for tag, attrs in page.tags:
        assert tag not in ("script", "link", "iframe", "object", "embed")
        for key in ("src", "href", "action", "srcset"):
            value = attrs.get(key) or ""
            assert not re.match(r"\s*(https?:)?//", value), (tag, key, value)
    assert "url(" not in html and "@import" not in html
    # the table rows: 8 items, the average row and the intervals under it
    assert sum(1 for t, a in page.tags if t == "tr") == 1 + 8 + 1 + 1 + 3   # item table + noise table (3 rows)


def test_json_is_the_analysis_plus_the_sentences(style):
    data = json.loads(render_report(style, format="json"))
    base = style.to_dict()
    assert {k: data[k] for k in base} == json.loads(json.dumps(base))
    report = data["report"]
    assert report["sections"] == BODY_SECTIONS
    assert report["sentences"]["summary"][0].startswith("In this probe, steps was on average 0.6375 higher")
    assert "[to fill in: which attributes were not tested]" in report["placeholders"]
    only = json.loads(render_report(style, format="json", sections=["tests"]))
    assert list(only["report"]["sentences"]) == ["tests"]


def test_markdown_without_an_assets_folder_has_no_images(style):
    text = render_report(style, format="md")
    assert "![" not in text


def test_unknown_format_is_an_error(style):
    with pytest.raises(OptionError, match="unknown report format 'pdf'"):
        render_report(style, format="pdf")


# ---------------------------------------------------------------- words chosen from numbers


def test_five_items_could_never_reach_significance():
    log = make_log(items=5, runs=20, gap=3.0, seed=1)
    result = analyze(log, metric="steps")
    # 5 non-zero gaps: the smallest two-sided p is 2/2**5 = 0.0625 > 0.05
    assert result.main.min_attainable_p == 0.0625
    for fmt in ("md", "html"):
        text = render_report(result, format=fmt)
        assert "this design could never reach significance" in text
    ctx = report_context(result)
    assert "could never reach significance" in ctx["summary"]


def test_detected_gap_names_its_driving_items_first(style):
    ctx = report_context(style)
    finding = ctx["finding"]["sentences"]
    assert finding[0].startswith("The probe detected a gap larger than chance")
    # gaps from the table: 7 +1.5, 0 +1.25, 2 +0.85, ...; positives sum to 5.35, and
    # 1.5 + 1.25 = 2.75 > 5.35 / 2, so items 7 and 0 make up most of the sum
    assert finding[1].startswith("The items that drive it: 7 (+1.5) and 0 (+1.25), which make up 51%")
    assert "1 the other way (3: -0.25)" in finding[1]
    explanation = next(i for i, s in enumerate(finding) if "not why" in s)
    assert explanation > 1
    assert ctx["finding"]["drivers"] == [("7", 1.5), ("0", 1.25)]


def test_noise_comparison_says_which_is_larger(style):
    ctx = report_context(style)
    # the README: noise log average gap +0.13, p = 0.41; probe +0.64
    assert "is larger than the same-versus-same gap (size 0.1313)" in " ".join(ctx["noise"]["sentences"])
    tiny = analyze(make_log(items=8, runs=20, gap=0.0, seed=3), metric="steps",
                   noise=make_log(items=3, runs=20, gap=2.0, seed=4, values=("x", "x again")))
    # 3 noise items: its own exact p is at least 2/8, so it is a valid check, and larger than the probe's gap
    words = " ".join(report_context(tiny)["noise"]["sentences"])
    assert "is no larger than the same-versus-same gap" in words and "means nothing" in words
    # 8 items all about +2 apart: p = 2/256, a failed check, read as no reference for the probe
    failed = analyze(make_log(items=8, runs=20, gap=0.0, seed=3), metric="steps",
                     noise=make_log(items=8, runs=20, gap=2.0, seed=4, values=("x", "x again")))
    words = " ".join(report_context(failed)["noise"]["sentences"])
    assert "The noise check failed: the noise log's values 'x' and 'x again' differ by more than chance" in words
    assert "means nothing" not in words


def test_held_fixed_and_varied_settings_come_from_the_log(style):
    design = report_context(style)["design"]
    assert ("model", "stand-in-v1") in design["fixed_from_log"]
    assert ("temperature", "0.8") in design["fixed_from_log"]
    assert design["run_dates"] == "2025-03-10"
    frame = make_log(items=6, runs=3, seed=2)
    frame = frame.with_columns(pl.when(pl.col("seed") == 1).then(pl.lit("m-2")).otherwise(pl.col("model"))
                               .alias("model"))
    varied = report_context(analyze(frame, metric="steps"))["design"]["varied_from_log"]
    assert varied == [("model", 2)]


# ---------------------------------------------------------------- escaping


def test_hostile_sample_log_is_escaped_in_every_section(tmp_path):
    result = analyze(str(HOSTILE), metric="steps")
    for name in BODY_SECTIONS:
        html = render_report(result, format="html", sections=[name])
        page = parse(html)
        assert not [t for t, _ in page.tags if t in ("script", "b", "i")], name
        assert all(a.get("src", "").startswith("data:image/png;base64,") for t, a in page.tags if t == "img")
        assert not any(k.startswith("on") for _, a in page.tags for k in a), name
        md = render_report(result, format="md", sections=[name], assets_dir=tmp_path / f"{name}_files")
        assert not re.search(r"(?<!\\)<(?!-)", md), name
    html = render_report(result, format="html")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<td>{{ 7*7 }} {% raw %}</td>" in html  # Jinja syntax in a log is text, never run


def test_hostile_cells_never_break_a_markdown_table(hostile):
    md = render_report(hostile, format="md")
    table_lines = [line for line in md.splitlines() if line.startswith("|")]
    # the item table (header, rule, 8 items, average, the intervals), then the noise table (header, rule, the
    # probe and its within-log same-versus-same halves)
    assert len(table_lines) == 2 + 8 + 1 + 1 + 4
    assert "(within the log)" in table_lines[-1]
    cells = {len(re.findall(r"(?<!\\)\|", line)) for line in table_lines}
    assert cells == {6}
    assert r"two lines \| pipe" in md
    assert r"\<script\>alert('item')\</script\>" in md
    assert r"\<b onmouseover=alert(4)\>A\</b\>" in md
    for line in md.splitlines():
        assert not line.startswith(("<", "$", "`tick", "[x]", "{{")), line


def test_hostile_values_in_every_html_section(hostile):
    for name in BODY_SECTIONS:
        page = parse(render_report(hostile, format="html", sections=[name]))
        tags = [t for t, _ in page.tags]
        assert "script" not in tags and "b" not in tags and "i" not in tags, name
        assert [a["src"][:22] for t, a in page.tags if t == "img"] in ([], ["data:image/png;base64,"])
    text = "".join(parse(render_report(hostile, format="html")).text)
    assert "<script>alert('item')</script>" in text        # shown as text
    assert "<b onmouseover=alert(4)>A</b>" in text


def test_design_file_text_is_escaped_too(style):
    design = Design(attribute="<script>alert('d')</script>", not_tested=["a|b", "x\ny"])
    html = render_report(style, format="html", sections=["design", "limits"], design=design)
    assert "<script>" not in html and "&lt;script&gt;alert(&#39;d&#39;)&lt;/script&gt;" in html
    md = render_report(style, format="md", sections=["limits"], design=design)
    assert r"a\|b; x y" in md


def test_item_labels_cannot_start_mathtext(hostile):
    ax = item_gaps(hostile)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert r"\$\\frac{1}{0}\$ costs \$5" in labels
    ax.figure.canvas.draw()  # would raise on an unescaped "$\frac{1}{0}$"
    assert safe_label("a $b$") == r"a \$b\$"


def test_noise_band_is_the_largest_item_gap_of_the_noise_log(style):
    frame = pl.read_csv(NOISE, schema_overrides={"item": pl.String, "steps": pl.Float64})
    means = frame.group_by("item", "variant").agg(pl.col("steps").mean())
    wide = means.pivot(on="variant", index="item", values="steps")
    largest = (wide["formal"] - wide["formal again"]).abs().max()
    width, words = noise_band(style)
    assert width == pytest.approx(largest)
    assert "largest item gap of the same-versus-same log" in words


# ---------------------------------------------------------------- templates and design


def test_a_user_template_replaces_the_shipped_one(style, tmp_path):
    (tmp_path / "table.md.j2").write_text("## My table\n\nrows: {{ table.rows|length }}; A = {{ a }}\n")
    text = render_report(style, format="md", sections=["table", "tests"], templates=tmp_path)
    assert "## My table\n\nrows: 8; A = formal" in text
    assert "## Tests" in text  # the others still come from the package
    (tmp_path / "summary.html.j2").write_text("<p id='mine'>{{ a }}</p>")
    html = render_report(analyze(str(HOSTILE), metric="steps"), format="html", sections=["summary"],
                         templates=tmp_path)
    assert "<p id='mine'>&lt;img src=x onerror=alert(1)&gt;</p>" in html  # user templates autoescape too


def test_user_markdown_template_values_are_escaped(tmp_path, hostile):
    (tmp_path / "summary.md.j2").write_text("A is {{ a }}\n")
    text = render_report(hostile, format="md", sections=["summary"], templates=tmp_path)
    assert text == "A is \\<b onmouseover=alert(4)\\>A\\</b\\>\n"


def test_missing_template_folder_is_an_error(style, tmp_path):
    with pytest.raises(OptionError, match="not a folder"):
        render_report(style, templates=tmp_path / "nope")


def test_templates_are_found_from_the_source_tree():
    from probestats.present.report.context import template_root

    folder = template_root()
    names = {p.name for p in folder.iterdir()}
    for name in SECTIONS:
        stem = {"compare": "before_after"}.get(name, name)
        assert f"{stem}.md.j2" in names and f"{stem}.html.j2" in names
    assert {"report.md.j2", "report.html.j2", "report.css"} <= names


def test_design_placeholders_and_their_replacement(style):
    md = render_report(style, format="md", sections=["design", "limits"])
    for ask in ("which attributes were not tested", "what the metric steps cannot see",
                "the definition of the metric steps", "the attribute probed"):
        assert f"**\\[to fill in: {ask}" in md
    html = render_report(style, format="html", sections=["limits"])
    assert '<mark class="todo">[to fill in: which attributes were not tested]</mark>' in html
    design = Design(attribute="writing style", metric_definition="numbered lines in the reply",
                    metric_cannot_see=("tone",), not_tested=("names", "dialect"), not_fixed=("model updates",),
                    values_why="students write both ways", run_dates="2025-03-10", mitigation="none")
    md = render_report(style, format="md", sections=["design", "limits"], design=design)
    assert "to fill in" not in md
    assert "**Attributes not tested:** names; dialect" in md


def test_design_file_round_trip_and_errors(tmp_path):
    path = tmp_path / "probe.toml"
    path.write_text('attribute = "style"\nnot_tested = ["names"]\nrun_dates = 2025-03-10\ngap_of_interest = 0.5\n')
    design = load_design(path)
    assert design == Design(attribute="style", not_tested=("names",), run_dates="2025-03-10", gap_of_interest=0.5)
    assert design_from(path, attribute="writing style").attribute == "writing style"
    path.write_text('attribute = "style"\ncolour = "blue"\n')
    with pytest.raises(OptionError) as err:
        load_design(path)
    assert "unknown key 'colour'" in str(err.value)
    assert all(key in str(err.value) for key in KNOWN_KEYS)
    path.write_text('attribute = "style\n')
    with pytest.raises(ReadError, match="not valid TOML"):
        load_design(path)
    with pytest.raises(ReadError, match="no such file"):
        load_design(tmp_path / "missing.toml")
    path.write_text("not_tested = 3\n")
    with pytest.raises(OptionError, match="expected text or a list"):
        load_design(path)


# ---------------------------------------------------------------- command line


def run_cli(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_writes_markdown_with_its_image_folder(tmp_path, capsys):
    out = tmp_path / "report.md"
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "--noise", NOISE, "-o", out,
                            "--set", "attribute=writing style", "--set", "not_tested=names", "--set", "not_tested=dialect"],
                           capsys)
    assert code == 0, err
    text = out.read_text()
    assert "](report_files/item_gaps.png)" in text
    assert (tmp_path / "report_files" / "power.png").exists()
    assert "**Attributes not tested:** names; dialect" in text
    assert "**Attribute:** writing style" in text


def test_cli_html_json_and_sections(tmp_path, capsys):
    html = tmp_path / "r.html"
    assert run_cli(["report", PROBE, "--metric", "steps", "-o", html], capsys)[0] == 0
    assert html.read_text().startswith("<!DOCTYPE html>")
    assert not (tmp_path / "r_files").exists()
    js = tmp_path / "r.json"
    assert run_cli(["report", PROBE, "--metric", "steps", "-o", js, "--section", "summary"], capsys)[0] == 0
    assert list(json.loads(js.read_text())["report"]["sentences"]) == ["summary"]
    table = tmp_path / "t.md"
    assert run_cli(["report", PROBE, "--metric", "steps", "-o", table, "--section", "table"], capsys)[0] == 0
    assert table.read_text().startswith("## Per-item table\n")


def test_cli_design_file_and_option_override(tmp_path, capsys):
    design = tmp_path / "probe.toml"
    design.write_text('attribute = "style"\nmetric_definition = "numbered lines"\n')
    out = tmp_path / "d.md"
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", out, "--design", design,
                            "--set", "attribute=writing style", "--section", "design"], capsys)
    assert code == 0, err
    text = out.read_text()
    assert "**Attribute:** writing style" in text and "definition: numbered lines" in text


def test_cli_errors(tmp_path, capsys):
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", tmp_path / "r.txt"], capsys)
    assert code == 1
    assert err == f"Error: -o {tmp_path / 'r.txt'}: unknown report format '.txt'; use a file ending in .md, .html or .json\n"
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", tmp_path / "r.md", "--design",
                            tmp_path / "probe.toml"], capsys)
    assert code == 1
    assert err == (f"Error: cannot read design file '{tmp_path / 'probe.toml'}': no such file; "
                   "check the path given to --design\n")
    assert not (tmp_path / "r.md").exists()
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", tmp_path / "no" / "r.md"], capsys)
    assert code == 1 and err == f"Error: -o {tmp_path / 'no' / 'r.md'}: the folder '{tmp_path / 'no'}' does not exist; create it first\n"
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", tmp_path / "r.md", "--section", "nope"],
                           capsys)
    assert code == 2 and "Invalid value for '--section'" in err
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", tmp_path / "r.md", "--templates",
                            f"{tmp_path / 'none'}"], capsys)
    assert code == 1 and err.startswith("Error: --templates ")
    assert list(tmp_path.iterdir()) == []


def test_cli_report_on_a_log_from_every_shape(tmp_path, capsys):
    path = write_log(make_log(items=6, runs=3, seed=5), tmp_path / "log.xlsx")
    code, _, err = run_cli(["report", path, "--metric", "steps", "-o", tmp_path / "x.html"], capsys)
    assert code == 0, err


# ---------------------------------------------------------------- the framing section


def test_framing_section_is_included_when_a_framing_result_is_given(style, tmp_path):
    from probestats import analyze_framing
    from probestats.io.read import read_log

    logs = ROOT / "sample_logs"
    framing = analyze_framing(read_log(str(logs / "framing_long.csv")), targets=str(logs / "framing_targets.csv"))
    md = render_report(style, format="md", beside=Beside(framing=framing), assets_dir=tmp_path / "f_files")
    assert re.findall(r"^## (.+)$", md, flags=re.M)[-1] == "Dual framing"
    assert "](f_files/framing_heatmap.png)" in md and (tmp_path / "f_files" / "framing_dots.png").exists()
    only = render_report(style, format="html", sections=["framing"], beside=Beside(framing=framing))
    page = parse(only)
    assert [a.get("id") for t, a in page.tags if t == "section"] == ["framing"]
    assert all(a["src"].startswith("data:image/png;base64,") for t, a in page.tags if t == "img")
    data = json.loads(render_report(style, format="json", beside=Beside(framing=framing)))
    assert data["report"]["sections"][-1] == "framing" and data["report"]["sentences"]["framing"]
    assert "framing" not in json.loads(render_report(style, format="json"))["report"]["sections"]


# ---------------------------------------------------------------- the framing section from the command line

FRAMING = ROOT / "sample_logs" / "framing_long.csv"
TARGETS = ROOT / "sample_logs" / "framing_targets.csv"
EVIL = "<script>alert('f')</script> | **b** `t` $x$\nnext <img src=x onerror=alert(6)>"


def hostile_framing_log(tmp_path) -> Path:
    """A framing log whose model, topic, prefix and responses carry markup, pipes and newlines."""
    from tests.framing_factory import make_framing_log

    targets = {EVIL: ("<b>A</b>", "B|x")}
    log = make_framing_log(models={EVIL: {"lean": 0.8, "acquiescence": -0.4}, "plain|m": {"lean": 0.0,
                                   "acquiescence": 0.0}}, topics=targets, languages=("en", "es"),
                           claims=2, iterations=3, seed=2)
    log = log.drop("score").with_columns(
        pl.when(pl.col("iteration") == 1).then(pl.lit(EVIL)).otherwise(pl.col("response")).alias("response"),
        pl.when(pl.col("iteration") == 2).then(pl.lit(EVIL)).otherwise(pl.col("prefix")).alias("prefix"),
        pl.when(pl.col("iteration") == 0).then(pl.lit("Neutral")).otherwise(pl.col("label")).alias("label"))
    path = tmp_path / "framing.csv"
    log.write_csv(path)
    pl.DataFrame({"topic": [EVIL], "affirmative": ["<b>A</b>"], "reverse": ["B|x"]}).write_csv(
        tmp_path / "targets.csv")
    return path


def test_cli_report_takes_in_the_framing_section(tmp_path, capsys):
    out = tmp_path / "r.md"
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", out, "--framing", FRAMING,
                            "--targets", f"{TARGETS}"], capsys)
    assert code == 0, err
    text = out.read_text()
    assert re.findall(r"^## (.+)$", text, flags=re.M)[-1] == "Dual framing"
    for name in ("framing_heatmap", "framing_dots"):  # PNGs beside the report, linked relatively
        assert f"](r_files/{name}.png)" in text
        assert (tmp_path / "r_files" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "exact sign-flip test across matched items" in text  # the figures name their test
    only = tmp_path / "f.html"
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", only, "--section", "framing",
                            "--framing", FRAMING, "--targets", f"{TARGETS}"], capsys)
    assert code == 0, err
    page = parse(only.read_text())
    assert [a.get("id") for t, a in page.tags if t == "section"] == ["framing"]
    assert len([a for t, a in page.tags if t == "img"]) == 2


def test_cli_report_framing_errors(tmp_path, capsys):
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", tmp_path / "r.md", "--section",
                            "framing"], capsys)
    assert (code, err) == (1, "Error: --section framing: not in this report: no framing result was given; give the dual-framing log "
                              "with --framing FRAMING_LOG\n")
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", tmp_path / "r.md", "--toward", "A"], capsys)
    assert code == 1 and err.startswith("Error: the framing targets and reference target belong to the framing section")
    code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", tmp_path / "r.md", "--framing",
                            FRAMING, "--targets", f"{TARGETS}", "--toward", "nobody"], capsys)
    assert (code, err) == (1, "Error: no prompt in the topics 'leadership', 'remote_work' asserts 'nobody' (targets: "
                              "female, male, office, remote); name a target every topic has, or analyze those topics "
                              "apart\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_hostile_framing_log_is_escaped_in_every_section(tmp_path, capsys, fmt):
    framing = hostile_framing_log(tmp_path)
    for name in BODY_SECTIONS + ["framing"]:
        out = tmp_path / f"{name}.{fmt}"
        code, _, err = run_cli(["report", HOSTILE, "--metric", "steps", "-o", out, "--section", name,
                                "--framing", framing, "--targets", f"{tmp_path / 'targets.csv'}"], capsys)
        assert code == 0, (name, err)
        text = out.read_text(encoding="utf-8")
        if fmt == "json":
            json.loads(text)
        elif fmt == "html":
            page = parse(text)
            assert not [t for t, _ in page.tags if t in ("script", "b", "i", "a")], name
            assert not any(k.startswith("on") for _, a in page.tags for k in a), name
            assert all(a["src"].startswith("data:image/png;base64,") for t, a in page.tags if t == "img"), name
        else:
            assert not re.search(r"(?<!\\)<", text), name
            for block in text.split("\n\n"):  # every table keeps its column count
                rows = [line for line in block.splitlines() if line.startswith("|")]
                assert len({len(re.findall(r"(?<!\\)\|", r)) for r in rows}) <= 1, (name, block)
    if fmt == "html":
        body = "".join(parse((tmp_path / "framing.html").read_text(encoding="utf-8")).text)
        assert "<script>alert('f')</script>" in body and "<b>A</b>" in body  # shown as text


def test_user_template_errors_are_one_line(tmp_path, capsys):
    folder = tmp_path / "tpl"
    folder.mkdir()
    cases = {
        "{{ nothing.here }}": "table.md.j2 line 1 fails: 'nothing' is undefined",
        "{% if %}": "table.md.j2 line 1 fails: Expected an expression",
        "{% include 'nope.j2' %}": "table.md.j2 line 1 asks for 'nope.j2'",
        "{{ 1 / 0 }}": "table.md.j2 line 1 fails: ZeroDivisionError",
        b"\xff\xfe": "is not UTF-8 text",
    }
    for source, words in cases.items():
        path = folder / "table.md.j2"
        path.write_bytes(source if isinstance(source, bytes) else source.encode())
        code, _, err = run_cli(["report", PROBE, "--metric", "steps", "-o", tmp_path / "r.md", "--section",
                                "table", "--templates", f"{folder}"], capsys)
        assert code == 1 and err.startswith(f"Error: --templates {folder}: ") and err.count("\n") == 1, err
        assert words in err, err
    assert not (tmp_path / "r.md").exists()


def test_first_table_column_breaks_between_words_only():
    # 'overflow-wrap: anywhere' lets a table shrink its first column to one letter, so on a
    # phone "average" and "model-a" were broken letter by letter; break-word keeps words whole
    from importlib import resources

    from probestats.present.report.context import template_root

    css = template_root().joinpath("report.css").read_text(encoding="utf-8")
    rule = re.search(r"th:first-child, td:first-child \{([^}]*)\}", css).group(1)
    assert "overflow-wrap: break-word" in rule and "anywhere" not in rule


def test_bounded_metric_without_a_reachable_mdg_says_so():
    """A 0/1 metric near its ceiling: raising value A cannot reach 80% power, and the report must not
    claim the MDG was skipped or that there was no noise log."""
    import numpy as np

    from probestats import analyze
    from probestats.present.report.document import Beside, render_report

    rng = np.random.default_rng(1)
    # a rate of 0.95: even with value A's runs all at 1, value B's item means are 1 too in 60% of items
    # (0.95 ** 10), so too few gaps are non-zero for 80% power
    rows = [{"item": i, "variant": v, "seed": s, "sel": int(rng.random() < 0.95)}
            for i in range(8) for v in ("x", "y") for s in range(10)]
    noise = [{"item": i, "variant": v, "seed": s, "sel": int(rng.random() < 0.95)}
             for i in range(8) for v in ("x", "x2") for s in range(10)]
    # two-sided, the downward gap is reachable and is the MDG; tested upward only, none is
    assert analyze(rows, metric="sel", noise=noise).mdg is not None
    result = analyze(rows, metric="sel", noise=noise, tests=Tests(alternative="greater"))
    assert result.mdg is None and result.could_reach_significance
    text = render_report(result, format="md", sections=["power", "finding"])
    assert "none found: raising value A's runs toward the metric's bound never reaches 80% power" in text
    assert "ceiling 1 is respected" in text
    assert "unknown without a same-versus-same log" not in text and "not computed" not in text
