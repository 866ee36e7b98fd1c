"""Benchmark the guide: build times, notebook run times, page weight, Lighthouse, and budgets.

Run it through ``make bench`` (after ``make html``). It prints a table and writes
``$BUILDDIR/bench.json``. It is a measurement, not a test: nothing here fails because
of a slow machine; a missed budget is reported as ``MISS``.

Figures (medians of ``--runs`` runs):

* clean build time (every notebook executed), rebuild with no change, rebuild after
  one page is touched (its modification time changes, its text does not), and rebuild
  after one sentence in a Markdown cell of a notebook is edited (its code cells are
  unchanged, so ``notebook_cache`` reuses the outputs and no kernel starts), each as
  wall time and as CPU time of the build process and the kernels it starts. Builds go to ``$BUILDDIR/bench``
  with ``make html``'s options except ``-W``: a warning on some page does not change
  how long a build takes. CPU time hardly depends on what else the machine runs; wall
  time does, so the load average is recorded and a loaded machine is flagged;
* execution time of each notebook, run on its own with nbclient (kernel start included);
* every page of the built site loaded in headless Chromium from a local server:
  requests, bytes as sent (raw) and gzip-compressed (level 6, as a static host sends
  text), the largest resources, and requests to any host other than the local server;
* with ``--lighthouse``: Lighthouse scores and metrics for two pages on the mobile and
  desktop presets. Lighthouse is installed on demand from the npm registry into
  ``$BUILDDIR/node`` and drives Debian's Chromium (``CHROME_PATH``), entirely offline.
  The site is served the way a static host serves it (gzip, keep-alive, a cache
  lifetime; ``tools/site_server.py``): Python's plain server would make every page
  look several times heavier than it is once published.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "sphinxext" / "notebooks"))
from site_server import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402

# Budgets from the project's performance issue, for a 2-core machine.
# Rebuild budgets are CPU seconds: CPU time hardly depends on what else the machine runs.
BUDGETS = {
    "clean_build_s": 20.0,
    "nochange_rebuild_cpu_s": 1.0,
    "one_page_rebuild_cpu_s": 1.3,
    "notebook_prose_rebuild_cpu_s": 1.5,
    "typical_page_gzip_kb": 300.0,
    "typical_page_requests": 15,
    # Every page, math and notebook pages included (the build-reproducibility issue).
    "heaviest_page_gzip_kb": 150.0,
    "most_page_requests": 12,
    "lighthouse_mobile_performance": 95,
    "lighthouse_desktop_performance": 100,
    "lighthouse_accessibility": 100,
    "lighthouse_best-practices": 100,
    "lighthouse_seo": 100,
}
TOUCHED_PAGE = ROOT / "docs" / "how-to" / "eagle3.md"
# The notebook whose prose the notebook rebuild edits, and the edit: a word in a Markdown cell.
EDITED_NOTEBOOK = ROOT / "docs" / "explanation" / "lossless-sampling.myst"
NOTEBOOK_EDIT = ("A bad draft", "A poor draft")
BUILDS = ("clean_build", "nochange_rebuild", "one_page_rebuild", "notebook_prose_rebuild")
# The reference build: a small site like SpecForge's own documentation (17 MyST pages,
# myst-parser, sphinx-copybutton, sphinx-book-theme), generated and built on the same
# machine in the same run. The rebuild budgets were set on a machine where SpecForge's
# documentation rebuilt in these CPU seconds (the build-reproducibility issue); on another
# machine each rebuild budget is scaled by how much slower or faster the reference is there.
REFERENCE_PAGES = 17
REFERENCE_ON_BUDGET_MACHINE = {"nochange_rebuild_cpu_s": 0.73, "one_page_rebuild_cpu_s": 0.89}
SCALED_BY = {"nochange_rebuild_cpu_s": "nochange_rebuild_cpu_s", "one_page_rebuild_cpu_s": "one_page_rebuild_cpu_s",
             "notebook_prose_rebuild_cpu_s": "nochange_rebuild_cpu_s"}
LIGHTHOUSE_PAGES = ["index.html", "how-to/eagle3.html"]
LIGHTHOUSE_VERSION = "13.5.0"
LIGHTHOUSE_CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
LIGHTHOUSE_METRICS = ["first-contentful-paint", "largest-contentful-paint", "speed-index",
                      "total-blocking-time", "cumulative-layout-shift"]


def sphinx_build(outdir: Path, project: Path = ROOT) -> tuple[float, float]:
    """Run ``make html``'s sphinx-build (without ``-W``) on ``project`` into ``outdir``.

    :param project: a folder holding ``conf.py`` and ``docs/`` (this project by default).
    :returns: (wall seconds, CPU seconds of the build and the kernels it started).
    :raises subprocess.CalledProcessError: the build stopped with an error (its output is shown).
    """
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(project), "--keep-going", "-n", "-q",
           str(project / "docs"), str(outdir)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        print(proc.stderr[-3000:], file=sys.stderr)
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def build_times(runs: int, workdir: Path) -> dict[str, float]:
    """Median wall and CPU seconds of each build in BUILDS (see the module docstring).

    :raises RuntimeError: the one-page rebuild did not write the touched page again, or the
        notebook rebuild did not show the edited sentence (or the edit's text is gone).
    """
    samples: dict[str, list[float]] = {}
    out = workdir / "html"
    touched_html = out / TOUCHED_PAGE.relative_to(ROOT / "docs").with_suffix(".html")
    notebook_html = out / EDITED_NOTEBOOK.relative_to(ROOT / "docs").with_suffix(".html")
    original = TOUCHED_PAGE.stat()
    notebook_text, notebook_stat = EDITED_NOTEBOOK.read_bytes(), EDITED_NOTEBOOK.stat()
    if NOTEBOOK_EDIT[0].encode() not in notebook_text:
        raise RuntimeError(f"{EDITED_NOTEBOOK} no longer says {NOTEBOOK_EDIT[0]!r}: update NOTEBOOK_EDIT")
    try:
        for _ in range(runs):
            shutil.rmtree(workdir, ignore_errors=True)
            for name in BUILDS:
                if name == "one_page_rebuild":
                    os.utime(TOUCHED_PAGE)
                    written = touched_html.stat().st_mtime_ns
                if name == "notebook_prose_rebuild":
                    EDITED_NOTEBOOK.write_bytes(notebook_text.replace(*(w.encode() for w in NOTEBOOK_EDIT), 1))
                wall, cpu = sphinx_build(out)
                samples.setdefault(f"{name}_s", []).append(wall)
                samples.setdefault(f"{name}_cpu_s", []).append(cpu)
                if name == "notebook_prose_rebuild":
                    EDITED_NOTEBOOK.write_bytes(notebook_text)
                    if NOTEBOOK_EDIT[1] not in notebook_html.read_text():
                        raise RuntimeError(f"editing {EDITED_NOTEBOOK} did not rebuild {notebook_html}")
            if touched_html.stat().st_mtime_ns == written:
                raise RuntimeError(f"touching {TOUCHED_PAGE} did not rebuild {touched_html}")
    finally:  # leave the files as they were, so nobody else's next build re-reads them
        os.utime(TOUCHED_PAGE, ns=(original.st_atime_ns, original.st_mtime_ns))
        EDITED_NOTEBOOK.write_bytes(notebook_text)
        os.utime(EDITED_NOTEBOOK, ns=(notebook_stat.st_atime_ns, notebook_stat.st_mtime_ns))
    return {key: statistics.median(values) for key, values in samples.items()}


def write_reference_project(folder: Path) -> Path:
    """Write the reference site (see :data:`REFERENCE_PAGES`) into ``folder``; return the page to touch."""
    docs = folder / "docs"
    shutil.rmtree(folder, ignore_errors=True)
    docs.mkdir(parents=True)
    (folder / "conf.py").write_text('project = "reference"\nextensions = ["myst_parser", "sphinx_copybutton"]\n'
                                    'html_theme = "sphinx_book_theme"\n')
    names = [f"page{i:02}" for i in range(1, REFERENCE_PAGES)]
    (docs / "index.md").write_text("# Reference\n\n```{toctree}\n" + "\n".join(names) + "\n```\n")
    for i, name in enumerate(names, 1):
        sections = "".join(f"## Section {j}\n\nA paragraph with `code` and a [link](https://example.org).\n\n"
                           f"```bash\npython -m example --step {j}\n```\n\n" for j in range(1, 6))
        (docs / f"{name}.md").write_text(f"# Page {i}\n\n{sections}")
    return docs / f"{names[0]}.md"


def reference_times(runs: int, workdir: Path) -> dict[str, float]:
    """Median CPU seconds of the reference site's rebuilds: no change, and one page touched."""
    project = workdir / "reference"
    touched = write_reference_project(project)
    out = project / "_build" / "html"
    sphinx_build(out, project)
    samples: dict[str, list[float]] = {"nochange_rebuild_cpu_s": [], "one_page_rebuild_cpu_s": []}
    for _ in range(runs):
        samples["nochange_rebuild_cpu_s"].append(sphinx_build(out, project)[1])
        os.utime(touched)
        samples["one_page_rebuild_cpu_s"].append(sphinx_build(out, project)[1])
    return {key: statistics.median(values) for key, values in samples.items()}


def scaled_budgets(reference: dict[str, float]) -> dict[str, float]:
    """The rebuild budgets for this machine: each budget times how much slower (or faster) the
    reference site rebuilds here than on the machine the budgets were set on."""
    return {name: BUDGETS[name] * reference[by] / REFERENCE_ON_BUDGET_MACHINE[by] for name, by in SCALED_BY.items()}


def notebook_times(runs: int) -> dict[str, float]:
    """Median execution time in seconds of each notebook under docs/, run on its own with nbclient."""
    from nbclient import NotebookClient

    times = {}
    import text_notebooks  # sphinxext/notebooks/text_notebooks.py

    for path in sorted((ROOT / "docs").rglob("*" + text_notebooks.SUFFIX)):
        if ".ipynb_checkpoints" in path.parts:
            continue
        samples = []
        for _ in range(runs):
            nb = text_notebooks.reads(path.read_text(encoding="utf-8"))
            start = time.perf_counter()
            NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(path.parent)}}).execute()
            samples.append(time.perf_counter() - start)
        times[path.relative_to(ROOT / "docs").as_posix()] = statistics.median(samples)
    return times


def page_weights(html_dir: Path) -> dict[str, dict]:
    """Load every built page in Chromium; return per-page requests, bytes and foreign hosts.

    Bytes are response bodies as served (the local server sends them uncompressed);
    ``gzip_bytes`` is text compressed with gzip level 6, as a static host sends it
    (images and fonts, already compressed, count as they are).
    """
    from playwright.sync_api import sync_playwright

    pages = sorted(p.relative_to(html_dir).as_posix() for p in html_dir.rglob("*.html")
                   if "_static" not in p.parts and not p.name.startswith(("genindex", "search", "404")))
    results = {}
    with serve(html_dir) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for rel in pages:
            page = browser.new_page()
            seen = []
            page.on("requestfinished", lambda req, seen=seen: seen.append(req))
            page.goto(f"{base}/{rel}", wait_until="networkidle")
            resources, foreign = [], []
            for req in seen:
                if req.url.startswith("data:"):
                    continue  # part of a file already counted, not a request
                if urlparse(req.url).netloc != urlparse(base).netloc:
                    foreign.append(req.url)
                    continue
                resp = req.response()
                body = resp.body() if resp else b""
                kind = (resp.headers.get("content-type", "") if resp else "").split(";")[0]
                text = kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml",
                                                            "application/json")
                resources.append((req.url.removeprefix(base), len(body),
                                  len(gzip.compress(body, 6)) if text else len(body)))
            page.close()
            resources.sort(key=lambda r: -r[1])
            results[rel] = {
                "requests": len(resources) + len(foreign),
                "bytes": sum(r[1] for r in resources),
                "gzip_bytes": sum(r[2] for r in resources),
                "largest": [{"url": u, "bytes": b, "gzip_bytes": g} for u, b, g in resources[:3]],
                "foreign_requests": foreign,
            }
        browser.close()
    return results


def lighthouse(html_dir: Path, workdir: Path, runs: int) -> dict[str, dict]:
    """Median Lighthouse scores (0-100) and metrics for LIGHTHOUSE_PAGES on the mobile and desktop presets.

    :raises subprocess.CalledProcessError: npm could not install Lighthouse, or a run failed.
    """
    workdir = workdir.resolve()  # Lighthouse runs in workdir, so every path must be absolute
    node_dir = workdir.parent / "node"
    binary = node_dir / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        node_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(node_dir), "--no-audit", "--no-fund",
                        f"lighthouse@{LIGHTHOUSE_VERSION}"], check=True)
    workdir.mkdir(parents=True, exist_ok=True)
    results = {}
    env = dict(os.environ, CHROME_PATH=CHROMIUM)
    with serve(html_dir, host_like=True) as base:
        for rel in LIGHTHOUSE_PAGES:
            for preset in ("mobile", "desktop"):
                scores: dict[str, list[float]] = {}
                for run in range(runs):
                    report = workdir / f"lh-{preset}-{rel.replace('/', '_')}-{run}.json"
                    cmd = [str(binary), f"{base}/{rel}", "--quiet", "--output=json", f"--output-path={report}",
                           "--only-categories=" + ",".join(LIGHTHOUSE_CATEGORIES),
                           "--chrome-flags=" + " ".join(CHROMIUM_ARGS)]
                    if preset == "desktop":
                        cmd.append("--preset=desktop")
                    subprocess.run(cmd, check=True, env=env, cwd=workdir)
                    data = json.loads(report.read_text())
                    for cat, value in data["categories"].items():
                        scores.setdefault(cat, []).append(round(value["score"] * 100))
                    for metric in LIGHTHOUSE_METRICS:
                        scores.setdefault(metric, []).append(data["audits"][metric]["numericValue"])
                results[f"{rel} {preset}"] = {k: statistics.median(v) for k, v in scores.items()}
    return results


def machine() -> dict[str, str]:
    """A short description of the machine the figures were measured on, with its load now."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": str(os.cpu_count()), "python": platform.python_version(),
            "system": platform.platform(), "load_average_1min": f"{os.getloadavg()[0]:.2f}"}


def budget_lines(report: dict) -> list[str]:
    """``OK``/``MISS`` lines comparing the report's figures with BUDGETS."""
    lines = []

    def check(name: str, value: float, higher_is_better: bool = False, label: str = "") -> None:
        limit = BUDGETS[name]
        ok = value >= limit if higher_is_better else value <= limit
        lines.append(f"{'OK  ' if ok else 'MISS'} {label or name}: {value:.2f} "
                     f"(budget {'>=' if higher_is_better else '<='} {limit})")

    for key in ("clean_build_s", "nochange_rebuild_cpu_s", "one_page_rebuild_cpu_s", "notebook_prose_rebuild_cpu_s"):
        if key in report.get("build", {}):
            check(key, report["build"][key])
    for key, limit in report.get("scaled_budgets", {}).items():
        if key in report.get("build", {}):
            value = report["build"][key]
            lines.append(f"{'OK  ' if value <= limit else 'MISS'} {key} on this machine: {value:.2f} "
                         f"(budget {BUDGETS[key]} scaled by the reference build: <= {limit:.2f})")
    pages = report.get("pages", {})
    if pages:
        check("typical_page_gzip_kb", statistics.median(p["gzip_bytes"] for p in pages.values()) / 1024)
        check("typical_page_requests", statistics.median(p["requests"] for p in pages.values()))
        heaviest = max(pages, key=lambda rel: pages[rel]["gzip_bytes"])
        check("heaviest_page_gzip_kb", pages[heaviest]["gzip_bytes"] / 1024, label=f"heaviest page ({heaviest}), KB gzip")
        most = max(pages, key=lambda rel: pages[rel]["requests"])
        check("most_page_requests", pages[most]["requests"], label=f"most requests ({most})")
    for name, figures in report.get("lighthouse", {}).items():
        preset = name.rsplit(" ", 1)[1]
        for cat in LIGHTHOUSE_CATEGORIES:
            key = f"lighthouse_{preset}_performance" if cat == "performance" else f"lighthouse_{cat}"
            if cat in figures:
                check(key, figures[cat], higher_is_better=True, label=f"lighthouse {name} {cat}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table and budgets, write JSON; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (the median is reported)")
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html", help="built site to load pages from")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "bench.json",
                        help="JSON report; builds and Lighthouse reports go to its folder's bench/")
    parser.add_argument("--skip-build", action="store_true", help="skip the build timings")
    parser.add_argument("--skip-notebooks", action="store_true", help="skip the notebook timings")
    parser.add_argument("--skip-pages", action="store_true", help="skip loading the pages in Chromium")
    parser.add_argument("--lighthouse", action="store_true", help="also run Lighthouse (installs it with npm)")
    parser.add_argument("--skip-search", action="store_true", help="skip the search hit rate (tests/search-queries.yaml)")
    args = parser.parse_args(argv)
    if not (args.html / "index.html").exists():
        parser.error(f"{args.html} has no index.html: run `make html` first")
    workdir = args.out.parent / "bench"
    report: dict = {"machine": machine(), "runs": args.runs}
    if not args.skip_build:
        report["build"] = build_times(args.runs, workdir)
        report["reference_build"] = reference_times(args.runs, workdir)
        report["scaled_budgets"] = scaled_budgets(report["reference_build"])
    if not args.skip_notebooks:
        report["notebooks_s"] = notebook_times(args.runs)
    report["pages"] = {} if args.skip_pages else page_weights(args.html)
    if not args.skip_search:
        import search_eval  # tools/search_eval.py: the query set in Chromium, per engine

        queries = search_eval.load_queries()
        report["search"] = {engine: search_eval.summary(search_eval.run(args.html, queries, engine))
                            for engine in ("pagefind", "sphinx")}
    if args.lighthouse:
        try:
            report["lighthouse"] = lighthouse(args.html, workdir, args.runs)
        except (OSError, subprocess.CalledProcessError) as exc:  # keep the figures measured so far
            report["lighthouse_error"] = str(exc)
    report["machine"]["load_average_1min_at_end"] = f"{os.getloadavg()[0]:.2f}"

    m = report["machine"]
    print(f"machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, "
          f"load average {m['load_average_1min']} at start, {m['load_average_1min_at_end']} at end")
    if max(float(m["load_average_1min"]), float(m["load_average_1min_at_end"])) > int(m["cores"]):
        print("note: the machine was busy with other work; wall times are inflated, CPU times much less so")
    build = report.get("build", {})
    for name in BUILDS:
        if f"{name}_s" in build:
            print(f"{name:24} {build[f'{name}_s']:7.2f} s wall {build[f'{name}_cpu_s']:7.2f} s CPU "
                  f"(median of {args.runs})")
    for name, value in report.get("reference_build", {}).items():
        print(f"reference site {name:30} {value:7.2f} s (on the budgets' machine: {REFERENCE_ON_BUDGET_MACHINE[name]} s)")
    for name, value in report.get("notebooks_s", {}).items():
        print(f"notebook {name:48} {value:6.2f} s")
    print(f"{'page':48} {'req':>4} {'KB raw':>8} {'KB gzip':>8} {'foreign':>7}  largest")
    for rel, p in report["pages"].items():
        largest = p["largest"][0] if p["largest"] else {"url": "-", "bytes": 0}
        print(f"{rel:48} {p['requests']:4} {p['bytes'] / 1024:8.1f} {p['gzip_bytes'] / 1024:8.1f} "
              f"{len(p['foreign_requests']):7}  {largest['url']} ({largest['bytes'] / 1024:.0f} KB)")
    for name, figures in report.get("lighthouse", {}).items():
        print(f"lighthouse {name}: " + ", ".join(f"{k} {figures[k]:.0f}" for k in LIGHTHOUSE_CATEGORIES if k in figures)
              + f"; FCP {figures['first-contentful-paint'] / 1000:.1f} s, LCP {figures['largest-contentful-paint'] / 1000:.1f} s, "
              f"SI {figures['speed-index'] / 1000:.1f} s, TBT {figures['total-blocking-time']:.0f} ms, "
              f"CLS {figures['cumulative-layout-shift']:.3f}")
    for engine, result in report.get("search", {}).items():
        print(f"search {engine:9} top-3 hit rate {result['top3']:.1%} on {result['searches']} searches "
              f"(keywords {result['top3_keywords']:.1%}, questions {result['top3_question']:.1%}), "
              f"{len(result['empty'])} with no result")
    if "lighthouse_error" in report:
        print(f"lighthouse did not run: {report['lighthouse_error']}")
    report["budgets"] = budget_lines(report)
    print("\n".join(report["budgets"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
