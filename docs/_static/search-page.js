// The search page (search.html?q=...): finds the sections that answer a query with Pagefind.
//
// Loaded by search.html only (docs/_templates/search.html); the index is written after the
// Sphinx build by sphinxext/output/pagefind_search.py into pagefind/. Pagefind matches pages that
// hold every word of a query, which finds nothing for a pasted question or error line, so
// each word is searched on its own too and the sections are ranked here with BM25:
//   score(section) = sum over the query's words w it holds of
//                    idf(w) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average length))
//                    + a bonus when the page holds the whole query
//                    + COVERAGE_BOOST * the share of the query's words in the section's own heading,
// where idf(w) = log(1 + (pages - df + 0.5) / (df + 0.5)), df is the number of pages holding w,
// tf counts w's occurrences in the section as Pagefind weights them (heading words weigh more)
// and a section's length is the number of words from its heading to the next one.
// Results are links to sections (URL with #anchor), best first, with Pagefind's excerpt.

const STOPWORDS = new Set(
  ("a an and are as at be but by can do does for from how i if in into is it its me my no not of on or " +
   "our so than that the their then there these this to too was we what when where which while who " +
   "why will with would you your should could has have had after before get got getting").split(" "),
);
const MAX_PAGES_PER_WORD = 40;
const MAX_RESULTS = 20;

/** The query's words, lower case, without surrounding punctuation and stop words. */
export function queryWords(query) {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}_-]+|[^\p{L}\p{N}_]+$/gu, ""))
    .filter((w) => /[\p{L}\p{N}]/u.test(w) && !STOPWORDS.has(w));
  return [...new Set(words)];
}

const K1 = 1.2;
const B = 0.75;
// A query word in the section's heading or the page title adds this share of its idf:
// a section titled with the reader's words is about them.
const HEADING_BOOST = 0.5;
// The share of the query's words found in the section's own heading, times this, is added:
// a pasted error line is the heading of its entry on the error-message reference, and
// should outrank a longer section that merely holds more of the same common words.
const COVERAGE_BOOST = 3;

// Anchors that start a section a result can link to: headings, definition-list terms
// (glossary entries, server options) and the entries of the error-message reference.
const isSectionStart = (a) => a.id && (/^h[1-6]$/i.test(a.element) || a.element === "dt" || a.id.startsWith("err-"));

/** A page's sections: [{id, title, start, end}] in page order, from Pagefind's anchors. */
function sectionsOf(data) {
  const starts = (data.anchors || []).filter(isSectionStart).sort((x, y) => x.location - y.location);
  const end = data.word_count || 0;
  const out = [{ id: "", title: data.meta.title, start: 0, end: starts.length ? starts[0].location : end }];
  starts.forEach((a, i) => {
    const title = (a.text || "").trim();
    out.push({ id: a.id, title: title.length > 90 ? `${title.slice(0, 88)}…` : title || data.meta.title,
               start: a.location, end: i + 1 < starts.length ? starts[i + 1].location : end });
  });
  return out.filter((sec) => sec.end > sec.start || sec.id);
}

function sectionAt(sections, location) {
  let found = sections[0];
  for (const sec of sections) if (sec.start <= location) found = sec;
  return found;
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** About 30 words of the page around `location`, the query's words marked. */
function excerptAt(data, location, marked) {
  const words = (data.content || "").split(/\s+/);
  const from = Math.max(location - 10, 0);
  const slice = words.slice(from, from + 30).map((w, i) => (marked.has(from + i) ? `<mark>${escapeHtml(w)}</mark>` : escapeHtml(w)));
  return (from > 0 ? "… " : "") + slice.join(" ") + (from + 30 < words.length ? " …" : "");
}

/** Rank the sections of the site for a query; returns [{url, page, title, excerpt, score}], best first. */
export async function rankSections(pagefind, query) {
  const words = queryWords(query);
  if (!words.length) return [];
  const [whole, all, ...perWord] = await Promise.all([
    pagefind.search(query), pagefind.search(null), ...words.map((w) => pagefind.search(w)),
  ]);
  const pages = Math.max(all.results.length, 1);
  const wholePages = new Set(whole.results.map((r) => r.id));
  const found = new Map(); // "page id#section id" -> {data, section, terms: [[idf, tf]], locations: Set}
  const pageData = new Map();
  for (let i = 0; i < words.length; i++) {
    const results = perWord[i].results;
    if (!results.length) continue;
    const df = results.length;
    const idf = Math.log(1 + (pages - df + 0.5) / (df + 0.5));
    const fragments = await Promise.all(results.slice(0, MAX_PAGES_PER_WORD).map((r) => r.data().then((d) => [r.id, d])));
    for (const [id, data] of fragments) {
      if (!pageData.has(id)) pageData.set(id, { data, sections: sectionsOf(data) });
      const { sections } = pageData.get(id);
      const perSection = new Map();
      const located = data.weighted_locations && data.weighted_locations.length
        ? data.weighted_locations : (data.locations || []).map((location) => ({ location, weight: 1 }));
      for (const { location, weight } of located) {
        const sec = sectionAt(sections, location);
        const hit = perSection.get(sec) || { tf: 0, locations: [] };
        hit.tf += weight || 1;
        hit.locations.push(location);
        perSection.set(sec, hit);
      }
      for (const [sec, hit] of perSection) {
        const key = `${id}#${sec.id}`;
        let entry = found.get(key);
        if (!entry) {
          entry = { pageId: id, data, section: sec, terms: [], locations: new Set(), best: null };
          found.set(key, entry);
        }
        entry.terms.push([idf, hit.tf, words[i]]);
        hit.locations.forEach((l) => entry.locations.add(l));
        if (!entry.best || idf > entry.best.idf) entry.best = { idf, location: hit.locations[0] };
      }
    }
  }
  const entries = [...found.values()];
  const lengthOf = (e) => Math.max(e.section.end - e.section.start, 1);
  const average = entries.reduce((sum, e) => sum + lengthOf(e), 0) / Math.max(entries.length, 1);
  for (const entry of entries) {
    const norm = K1 * (1 - B + (B * lengthOf(entry)) / average);
    const heading = queryWords(`${entry.section.title} ${entry.data.meta.title}`);
    const inHeading = (word) => heading.some((h) => h.startsWith(word) || word.startsWith(h));
    const own = entry.section.id ? queryWords(entry.section.title) : [];
    const covered = words.filter((word) => own.some((h) => h.startsWith(word) || word.startsWith(h))).length;
    entry.score = entry.terms.reduce((sum, [idf, tf, word]) => sum + (idf * tf * (K1 + 1)) / (tf + norm)
      + (inHeading(word) ? HEADING_BOOST * idf : 0), 0)
      + (wholePages.has(entry.pageId) ? 1 : 0)
      + COVERAGE_BOOST * (covered / words.length);
  }
  entries.sort((a, b) => b.score - a.score);
  return entries.slice(0, MAX_RESULTS).map((e) => ({
    url: e.section.id ? `${e.data.url.split("#")[0]}#${e.section.id}` : e.data.url,
    page: e.data.meta.title,
    title: e.section.title,
    excerpt: excerptAt(e.data, e.best.location, e.locations),
    score: e.score,
  }));
}

function render(container, query, ranked) {
  container.replaceChildren();
  const status = document.createElement("p");
  status.className = "search-summary";
  status.setAttribute("role", "status");
  status.textContent = ranked.length
    ? `${ranked.length} section${ranked.length === 1 ? "" : "s"} for “${query}”, best first.`
    : `Nothing on this site matches “${query}”. Try fewer or other words, or the exact text of the error.`;
  container.append(status);
  if (!ranked.length) return;
  const list = document.createElement("ul");
  list.className = "search";
  for (const hit of ranked) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = hit.url;
    link.textContent = hit.title && hit.title !== hit.page ? `${hit.page} › ${hit.title}` : hit.page;
    const excerpt = document.createElement("p");
    excerpt.className = "context";
    excerpt.innerHTML = hit.excerpt; // Pagefind's excerpt: page text, escaped, with <mark> around the words
    item.append(link, excerpt);
    list.append(item);
  }
  container.append(list);
}

async function main() {
  const container = document.getElementById("search-results");
  const query = (new URLSearchParams(window.location.search).get("q") || "").trim();
  if (!container || !query) return;
  // Show the query in the page's search field(s), so it can be refined.
  for (const field of document.querySelectorAll("input[name=q]")) field.value = query;
  container.setAttribute("aria-live", "polite");
  container.textContent = "Searching…";
  try {
    const pagefind = await import(new URL("pagefind/pagefind.js", document.baseURI).href);
    await pagefind.options({ excerptLength: 30 });
    render(container, query, await rankSections(pagefind, query));
  } catch (error) {
    container.textContent = `The search index could not be loaded (${error}).`;
    throw error;
  }
}

main();
