"""Benchmark the guide: build times, notebook run times, page weight, and budgets.

Run it through ``make bench`` (after ``make html``). It prints a table and
writes ``_build/bench.json``. It is a measurement, not a test: nothing here
fails because of a slow machine; missed budgets are reported as ``MISS``.

Figures (medians of ``--runs`` runs where a run is repeatable):

* clean build time (notebooks executed), no-change rebuild, rebuild after one
  page is touched (its modification time changes; its content does not);
* execution time of each notebook, run on its own with nbclient;
* for each page loaded in headless Chromium from a local server: requests,
  bytes (raw and gzip-compressed), the largest resources, and requests to any
  host other than the local server;
* with ``--lighthouse``: Lighthouse scores for two pages on the mobile and
  desktop presets (``npx lighthouse``, installed on demand from the npm registry
  into ``_build/node``; Chromium is Debian's ``/usr/bin/chromium``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from site_server import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: E402

# Budgets from the project's performance issue, for this 2-core machine.
BUDGETS = {
    "clean_build_s": 20.0,
    "nochange_rebuild_s": 1.5,
    "one_page_rebuild_s": 2.5,
    "typical_page_gzip_kb": 300.0,
    "typical_page_requests": 15,
    "lighthouse_mobile_performance": 95,
    "lighthouse_desktop_performance": 100,
    "lighthouse_accessibility": 100,
    "lighthouse_best-practices": 100,
    "lighthouse_seo": 100,
}
TOUCHED_PAGE = ROOT / "docs" / "how-to" / "eagle3.md"
LIGHTHOUSE_PAGES = ["index.html", "how-to/eagle3.html"]
LIGHTHOUSE_VERSION = "13.5.0"


def sphinx_build(outdir: Path) -> float:
    """Run the same sphinx-build as ``make html`` into ``outdir``; return wall seconds.

    :raises subprocess.CalledProcessError: the build failed (its output is shown).
    """
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(ROOT), "-W", "--keep-going", "-n", "-q",
           str(ROOT / "docs"), str(outdir)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT)
    return time.perf_counter() - start


def build_times(runs: int, workdir: Path) -> dict[str, float]:
    """Median clean build, no-change rebuild and one-page rebuild times, in seconds."""
    clean, nochange, onepage = [], [], []
    for _ in range(runs):
        out = workdir / "html"
        shutil.rmtree(workdir, ignore_errors=True)
        clean.append(sphinx_build(out))
        nochange.append(sphinx_build(out))
        os.utime(TOUCHED_PAGE)
        onepage.append(sphinx_build(out))
    return {
        "clean_build_s": statistics.median(clean),
        "nochange_rebuild_s": statistics.median(nochange),
        "one_page_rebuild_s": statistics.median(onepage),
    }


def notebook_times(runs: int) -> dict[str, float]:
    """Median execution time in seconds of each notebook under docs/, run on its own with nbclient."""
    import nbformat
    from nbclient import NotebookClient

    times = {}
    for path in sorted((ROOT / "docs").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        samples = []
        for _ in range(runs):
            nb = nbformat.read(path, as_version=4)
            start = time.perf_counter()
            NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(path.parent)}}).execute()
            samples.append(time.perf_counter() - start)
        times[path.relative_to(ROOT / "docs").as_posix()] = statistics.median(samples)
    return times


def page_weights(html_dir: Path) -> dict[str, dict]:
    """Load every built page in Chromium; return per-page requests, bytes and foreign hosts.

    Bytes are response bodies as served (the local server sends them uncompressed);
    ``gzip_bytes`` is each body compressed with gzip level 6, as a web server would.
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
                host = urlparse(req.url).netloc
                if host != urlparse(base).netloc:
                    foreign.append(req.url)
                    continue
                resp = req.response()
                body = resp.body() if resp else b""
                resources.append((req.url.removeprefix(base), len(body), len(gzip.compress(body, 6))))
            page.close()
            resources.sort(key=lambda r: -r[1])
            results[rel] = {
                "requests": len(seen),
                "bytes": sum(r[1] for r in resources),
                "gzip_bytes": sum(r[2] for r in resources),
                "largest": [{"url": u, "bytes": b} for u, b, _ in resources[:3]],
                "foreign_requests": foreign,
            }
        browser.close()
    return results


def lighthouse(html_dir: Path, workdir: Path) -> dict[str, dict[str, float]]:
    """Lighthouse category scores (0-100) for LIGHTHOUSE_PAGES on the mobile and desktop presets.

    :raises subprocess.CalledProcessError: npm could not install Lighthouse, or a run failed.
    """
    node_dir = workdir.parent / "node"
    binary = node_dir / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        node_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(node_dir), "--no-audit", "--no-fund",
                        f"lighthouse@{LIGHTHOUSE_VERSION}"], check=True)
    scores = {}
    env = dict(os.environ, CHROME_PATH=CHROMIUM)
    with serve(html_dir) as base:
        for rel in LIGHTHOUSE_PAGES:
            for preset in ("mobile", "desktop"):
                report = workdir / f"lh-{preset}-{rel.replace('/', '_')}.json"
                cmd = [str(binary), f"{base}/{rel}", "--quiet", "--output=json", f"--output-path={report}",
                       "--chrome-flags=" + " ".join(CHROMIUM_ARGS)]
                if preset == "desktop":
                    cmd.append("--preset=desktop")
                subprocess.run(cmd, check=True, env=env)
                cats = json.loads(report.read_text())["categories"]
                scores[f"{rel} {preset}"] = {k: round(v["score"] * 100) for k, v in cats.items()}
    return scores


def machine() -> dict[str, str]:
    """A short description of the machine the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": str(os.cpu_count()), "python": platform.python_version(),
            "system": platform.platform()}


def budget_lines(report: dict) -> list[str]:
    """``OK``/``MISS`` lines comparing the report's figures with BUDGETS."""
    lines = []

    def check(name: str, value: float, higher_is_better: bool = False) -> None:
        limit = BUDGETS[name]
        ok = value >= limit if higher_is_better else value <= limit
        lines.append(f"{'OK  ' if ok else 'MISS'} {name}: {value:.2f} (budget {'>=' if higher_is_better else '<='} {limit})")

    for key in ("clean_build_s", "nochange_rebuild_s", "one_page_rebuild_s"):
        if key in report.get("build", {}):
            check(key, report["build"][key])
    pages = report.get("pages", {})
    if pages:
        check("typical_page_gzip_kb", statistics.median(p["gzip_bytes"] for p in pages.values()) / 1024)
        check("typical_page_requests", statistics.median(p["requests"] for p in pages.values()))
    for name, cats in report.get("lighthouse", {}).items():
        preset = name.rsplit(" ", 1)[1]
        for cat, score in cats.items():
            key = f"lighthouse_{preset}_performance" if cat == "performance" else f"lighthouse_{cat}"
            if key in BUDGETS:
                check(key, score, higher_is_better=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table and budgets, write JSON; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per repeatable figure (median is reported)")
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html", help="built site to load pages from")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "bench.json")
    parser.add_argument("--skip-build", action="store_true", help="skip the build timings")
    parser.add_argument("--lighthouse", action="store_true", help="also run Lighthouse (installs it with npm)")
    args = parser.parse_args(argv)
    workdir = ROOT / "_build" / "bench"
    report: dict = {"machine": machine(), "runs": args.runs}
    if not args.skip_build:
        report["build"] = build_times(args.runs, workdir)
    report["notebooks_s"] = notebook_times(args.runs)
    report["pages"] = page_weights(args.html)
    if args.lighthouse:
        report["lighthouse"] = lighthouse(args.html, workdir)

    print(f"machine: {report['machine']['cpu']}, {report['machine']['cores']} cores, Python {report['machine']['python']}")
    for key, value in report.get("build", {}).items():
        print(f"{key:24} {value:8.2f} s (median of {args.runs})")
    for name, value in report["notebooks_s"].items():
        print(f"notebook {name:40} {value:6.2f} s")
    print(f"{'page':48} {'req':>4} {'KB raw':>8} {'KB gzip':>8} {'foreign':>7}  largest")
    for rel, p in report["pages"].items():
        largest = p["largest"][0] if p["largest"] else {"url": "-", "bytes": 0}
        print(f"{rel:48} {p['requests']:4} {p['bytes'] / 1024:8.1f} {p['gzip_bytes'] / 1024:8.1f} "
              f"{len(p['foreign_requests']):7}  {largest['url']} ({largest['bytes'] / 1024:.0f} KB)")
    for name, cats in report.get("lighthouse", {}).items():
        print(f"lighthouse {name}: " + ", ".join(f"{k} {v}" for k, v in cats.items()))
    report["budgets"] = budget_lines(report)
    print("\n".join(report["budgets"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
