/* "My release": the reader picks the SGLang release they run; the view lists what differs from the pin.
 * Data: window.SGLANG_MY_RELEASE, written at build time by sphinxext/content/my_release.py (module docstring).
 * Nothing is fetched; the choice is kept in the address as ?sglang=<release>. */
(function () {
  "use strict";

  function order(releases) {
    var index = {};
    releases.forEach(function (v, i) { index[v] = i; });
    return index;
  }

  /* The three lists for release `mine` (a string of data.releases). */
  function affecting(data, mine) {
    var at = order(data.releases);
    var me = at[mine];
    var fixedAfter = [], brokenIn = [], addedAfter = [], unreleased = [], flags = [];
    data.reports.forEach(function (r) {
      if (r.verdict === "not-released") {
        if (r.change === "fixed") unreleased.push(r);
      } else if (r.change === "fixed" && at[r.verdict] > me) {
        fixedAfter.push(r);
      } else if (r.change === "broken" && at[r.verdict] <= me) {
        brokenIn.push(r);
      } else if (r.change === "added" && at[r.verdict] > me) {
        addedAfter.push(r);
      }
    });
    data.flags.forEach(function (f) {
      if (at[f[1]] > me) flags.push(f);
    });
    return { fixedAfter: fixedAfter, brokenIn: brokenIn, addedAfter: addedAfter, unreleased: unreleased, flags: flags };
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function reportItem(root, r, words) {
    var li = el("li", { "class": "my-release__item", "data-url": r.url });
    li.appendChild(el("a", { href: r.url }, r.title));
    li.appendChild(document.createTextNode(" (" + words + "; "));
    li.appendChild(el("a", { href: root + r.section }, "what to do"));
    li.appendChild(document.createTextNode(")"));
    return li;
  }

  function group(out, id, heading, items) {
    var title = el("p", { "class": "my-release__heading", id: id }, heading + " (" + items.length + ")");
    out.appendChild(title);
    if (!items.length) {
      out.appendChild(el("p", { "class": "my-release__none" }, "None."));
      return null;
    }
    var list = el("ul", { "class": "my-release__list", "aria-labelledby": id, "data-group": id });
    out.appendChild(list);
    return list;
  }

  function render(box, data, mine) {
    var out = box.querySelector('[data-out="results"]');
    var root = box.getAttribute("data-root") || "";
    out.textContent = "";
    var found = affecting(data, mine);
    out.appendChild(el("p", { "class": "my-release__summary", "data-out": "summary" }, mine === data.pin
      ? "SGLang " + mine + " is the release this guide is checked against: nothing below is newer."
      : "SGLang " + mine + " compared with " + data.pin + ", the release this guide is checked against."));
    var list = group(out, "my-release-fixed", "Fixed in a release after " + mine, found.fixedAfter);
    found.fixedAfter.forEach(function (r) { list.appendChild(reportItem(root, r, "fixed in " + r.verdict)); });
    list = group(out, "my-release-broken", "Behaviour that " + mine + " already has", found.brokenIn);
    found.brokenIn.forEach(function (r) { list.appendChild(reportItem(root, r, "since " + r.verdict)); });
    list = group(out, "my-release-added", "Answers that need a release after " + mine, found.addedAfter);
    found.addedAfter.forEach(function (r) { list.appendChild(reportItem(root, r, "needs " + r.verdict)); });
    list = group(out, "my-release-flags", "Flags and variables changed after " + mine, found.flags);
    found.flags.forEach(function (f) {
      var li = el("li", { "class": "my-release__item", "data-flag": f[0] });
      li.appendChild(el("code", {}, f[0]));
      li.appendChild(document.createTextNode(" " + f[2] + " in " + f[1] + (f[3] ? ": " + f[3] : "")));
      list.appendChild(li);
    });
    list = group(out, "my-release-unreleased", "Fixes in no release up to " + data.pin, found.unreleased);
    found.unreleased.forEach(function (r) { list.appendChild(reportItem(root, r, "not released")); });
  }

  function start() {
    var box = document.getElementById("my-release");
    var data = window.SGLANG_MY_RELEASE;
    if (!box || !data) return;
    var select = box.querySelector("select");
    data.releases.slice().reverse().forEach(function (v) {
      var option = el("option", { value: v }, v === data.pin ? v + " (the pin)" : v);
      select.appendChild(option);
    });
    select.value = data.pin;
    var params = new URLSearchParams(window.location.search);
    var asked = params.get("sglang");
    if (asked && data.releases.indexOf(asked) >= 0) select.value = asked;
    render(box, data, select.value);
    select.addEventListener("change", function () {
      var url = new URL(window.location.href);
      url.searchParams.set("sglang", select.value);
      window.history.replaceState(null, "", url.toString());
      render(box, data, select.value);
    });
  }

  window.SGLANG_MY_RELEASE_AFFECTING = affecting; /* for the browser tests */
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
