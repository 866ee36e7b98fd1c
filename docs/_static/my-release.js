/* "My release": the reader picks the SGLang release they run (and, if they like, an algorithm); the view
 * lists what differs from the pin, in five lists.
 * Data: window.SGLANG_MY_RELEASE, written at build time by sphinxext/content/my_release.py (module docstring).
 * Nothing is fetched; the choices are kept in the address as ?sglang=<release>&algorithm=<name>. */
(function () {
  "use strict";

  /* Flag-history changes a command can trip over come before the additions in each release;
   * the words name each kind in a release's counts. */
  var FLAG_CHANGE_ORDER = { removed: 0, renamed: 1, split: 2, "default": 3, choices: 4, added: 5 };
  var FLAG_CHANGE_WORDS = { removed: "removed", renamed: "renamed", split: "split", "default": "default changed",
                            choices: "choices changed", added: "added" };

  function order(releases) {
    var index = {};
    releases.forEach(function (v, i) { index[v] = i; });
    return index;
  }

  /* The five lists for release `mine` (a string of data.releases) and algorithm `algorithm`
   * ("" for every algorithm; otherwise reports about it and reports about no one algorithm).
   * Reports in each list run by verdict, oldest first (not-released last), then by title. */
  function affecting(data, mine, algorithm) {
    var at = order(data.releases);
    var me = at[mine];
    var later = data.releases.length; /* where "not-released" sorts */
    var lists = { fixedAfter: [], brokenIn: [], addedAfter: [], flags: [], unreleased: [] };
    data.reports.forEach(function (r) {
      if (algorithm && r.algorithm && r.algorithm !== algorithm) return;
      if (r.verdict === "not-released") {
        if (r.change === "fixed") lists.unreleased.push(r);
        else if (r.change === "added") lists.addedAfter.push(r);
        /* a breakage in no release affects no release */
      } else if (r.change === "fixed" && at[r.verdict] > me) {
        lists.fixedAfter.push(r);
      } else if (r.change === "broken" && at[r.verdict] <= me) {
        lists.brokenIn.push(r);
      } else if (r.change === "added" && at[r.verdict] > me) {
        lists.addedAfter.push(r);
      }
    });
    function rank(r) { return r.verdict === "not-released" ? later : at[r.verdict]; }
    ["fixedAfter", "brokenIn", "addedAfter", "unreleased"].forEach(function (name) {
      lists[name].sort(function (a, b) {
        return rank(a) - rank(b) || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0);
      });
    });
    data.flags.forEach(function (f) {
      if (at[f[1]] > me) lists.flags.push(f);
    });
    return lists;
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function reportItem(root, r, words) {
    var li = el("li", { "class": "my-release__item", "data-url": r.url, "data-verdict": r.verdict,
                        "data-algorithm": r.algorithm || "" });
    li.appendChild(el("a", { href: r.url }, r.title));
    var meta = el("span", { "class": "my-release__meta" });
    meta.appendChild(el("span", { "class": "my-release__when" }, words));
    meta.appendChild(document.createTextNode(" · " + (r.algorithm || "any algorithm") + " · "));
    meta.appendChild(el("a", { href: root + r.section }, "what to do"));
    li.appendChild(meta);
    return li;
  }

  /* One line of links to the lists, with their counts. */
  function glance(out, entries) {
    var list = el("ul", { "class": "my-release__glance", "data-out": "glance" });
    entries.forEach(function (e) {
      var li = el("li");
      li.appendChild(el("a", { href: "#my-release-" + e[0] }, e[1] + ": " + e[2]));
      list.appendChild(li);
    });
    out.appendChild(list);
  }

  /* A list's box: heading (with the count), one sentence saying what it means, then `fill(box)` or "None.". */
  function group(out, level, key, heading, meaning, count, fill) {
    var id = "my-release-" + key;
    var box = el("div", { "class": "my-release__group my-release__group--" + key, "data-box": id });
    box.appendChild(el("h" + level, { "class": "my-release__heading", id: id }, heading + " (" + count + ")"));
    box.appendChild(el("p", { "class": "my-release__meaning" }, meaning));
    if (count) fill(box, id);
    else box.appendChild(el("p", { "class": "my-release__none" }, "None."));
    out.appendChild(box);
  }

  function reportList(root, items, words) {
    return function (box, id) {
      var list = el("ul", { "class": "my-release__list", "aria-labelledby": id, "data-group": id });
      items.forEach(function (r) { list.appendChild(reportItem(root, r, words(r))); });
      box.appendChild(list);
    };
  }

  /* Flag events by release, oldest release first, each release a closed <details> with its counts. */
  function flagLists(flags) {
    return function (box, id) {
      var byRelease = [], current = null;
      flags.forEach(function (f) {
        if (!current || current.release !== f[1]) byRelease.push(current = { release: f[1], events: [] });
        current.events.push(f);
      });
      byRelease.forEach(function (rel) {
        rel.events.sort(function (a, b) {
          return FLAG_CHANGE_ORDER[a[2]] - FLAG_CHANGE_ORDER[b[2]] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
        });
        var counts = {};
        rel.events.forEach(function (f) { counts[f[2]] = (counts[f[2]] || 0) + 1; });
        var words = Object.keys(FLAG_CHANGE_ORDER).filter(function (c) { return counts[c]; })
          .map(function (c) { return FLAG_CHANGE_WORDS[c] + " " + counts[c]; });
        var details = el("details", { "class": "my-release__release", "data-release": rel.release });
        details.appendChild(el("summary", {}, rel.release + ": " + words.join(", ")));
        var list = el("ul", { "class": "my-release__list", "data-group": id });
        rel.events.forEach(function (f) {
          var li = el("li", { "class": "my-release__item", "data-flag": f[0], "data-release": f[1],
                              "data-change": f[2] });
          li.appendChild(el("code", {}, f[0]));
          var what = { renamed: "renamed to ", split: "split into ", "default": "default ", choices: "choices: " }[f[2]];
          li.appendChild(document.createTextNode(" " + (what && f[3] ? what + f[3] : f[2])));
          list.appendChild(li);
        });
        details.appendChild(list);
        box.appendChild(details);
      });
    };
  }

  function render(box, data, mine, algorithm) {
    var out = box.querySelector('[data-out="results"]');
    var root = box.getAttribute("data-root") || "";
    var level = Number(box.getAttribute("data-level")) || 3;
    out.textContent = "";
    var found = affecting(data, mine, algorithm);
    var which = algorithm ? " Reports about " + algorithm + " and about no one algorithm are listed." : "";
    out.appendChild(el("p", { "class": "my-release__summary", "data-out": "summary" }, (mine === data.pin
      ? "SGLang " + mine + " is the release this guide is checked against: nothing below is newer."
      : "SGLang " + mine + " compared with " + data.pin + ", the release this guide is checked against.") + which));
    glance(out, [["fixed", "fixed later", found.fixedAfter.length], ["broken", "breakages", found.brokenIn.length],
                 ["added", "need a newer release", found.addedAfter.length],
                 ["flags", "flag changes", found.flags.length], ["unreleased", "fixes in no release", found.unreleased.length]]);
    group(out, level, "fixed", "Fixed in a release after " + mine,
      "Upgrading to the release named brings the fix; until then, the linked section has the workaround.",
      found.fixedAfter.length, reportList(root, found.fixedAfter, function (r) { return "fixed in " + r.verdict; }));
    group(out, level, "broken", "Breakages " + mine + " already has",
      "Arrived in the release named, at or before yours; the status says whether " + data.pin + " still has it.",
      found.brokenIn.length, reportList(root, found.brokenIn, function (r) {
        return "since " + r.verdict + "; " + (r.status === "still-applies" ? "still in " + data.pin
          : r.status === "not-verified" ? "not verified for " + data.pin : r.status.replace(/-/g, " "));
      }));
    group(out, level, "added", "Answers that need a release after " + mine,
      "The answer relies on a flag, check or code path that arrives in the release named: " + mine + " does not have it.",
      found.addedAfter.length, reportList(root, found.addedAfter, function (r) {
        return r.verdict === "not-released" ? "needs a release after " + data.pin : "needs " + r.verdict;
      }));
    group(out, level, "flags", "Flags and variables changed after " + mine,
      "Server flags and environment variables, by release (not filtered by algorithm); removals and renames first.",
      found.flags.length, flagLists(found.flags));
    group(out, level, "unreleased", "Fixes in no release up to " + data.pin,
      "Merged or proposed fixes that no release up to " + data.pin + " contains, whatever release you run.",
      found.unreleased.length, reportList(root, found.unreleased, function () { return "not released"; }));
  }

  function start() {
    var box = document.getElementById("my-release");
    var data = window.SGLANG_MY_RELEASE;
    if (!box || !data) return;
    var release = box.querySelector('select[name="sglang"]');
    var algorithm = box.querySelector('select[name="algorithm"]');
    data.releases.slice().reverse().forEach(function (v) {
      release.appendChild(el("option", { value: v }, v === data.pin ? v + " (the pin)" : v));
    });
    algorithm.appendChild(el("option", { value: "" }, "All algorithms"));
    (data.algorithms || []).forEach(function (a) {
      algorithm.appendChild(el("option", { value: a }, a === "NEXTN" ? "NEXTN (MTP)" : a));
    });
    release.value = data.pin;
    var params = new URLSearchParams(window.location.search);
    var asked = params.get("sglang");
    if (asked && data.releases.indexOf(asked) >= 0) release.value = asked;
    var askedAlgorithm = params.get("algorithm");
    if (askedAlgorithm && (data.algorithms || []).indexOf(askedAlgorithm) >= 0) algorithm.value = askedAlgorithm;
    render(box, data, release.value, algorithm.value);
    function changed() {
      var url = new URL(window.location.href);
      url.searchParams.set("sglang", release.value);
      if (algorithm.value) url.searchParams.set("algorithm", algorithm.value);
      else url.searchParams.delete("algorithm");
      window.history.replaceState(null, "", url.toString());
      render(box, data, release.value, algorithm.value);
    }
    release.addEventListener("change", changed);
    algorithm.addEventListener("change", changed);
  }

  window.SGLANG_MY_RELEASE_AFFECTING = affecting; /* for the browser tests */
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
