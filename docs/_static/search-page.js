// The search page (search.html?q=...): finds the sections that answer a query with Pagefind.
//
// Loaded by search.html only (docs/_templates/search.html); the index is written after the
// Sphinx build by sphinxext/pagefind_search.py into pagefind/. Pagefind matches pages that
// hold every word of a query, which finds nothing for a pasted question or error line, so
// each word is searched on its own too and the sections are ranked here with BM25:
//   score(section) = sum over the query's words w it holds of
//                    idf(w) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average length))
//                    + a bonus when the page holds the whole query,
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

function weightOf(sub) {
  // weighted_locations: [{weight, balanced_score, location}]; headings weigh more than body text.
  const located = sub.weighted_locations || [];
  if (located.length) return located.reduce((sum, l) => sum + (l.weight || 1), 0);
  return (sub.locations || []).length;
}

/** Words in each section of a page: {anchor location -> length}, from the page's anchors. */
function sectionLengths(data) {
  const starts = (data.anchors || []).filter((a) => /^h[1-6]$/i.test(a.element)).map((a) => a.location);
  starts.sort((x, y) => x - y);
  const lengths = new Map();
  const end = data.word_count || 0;
  if (!starts.length || starts[0] > 0) starts.unshift(0);
  for (let i = 0; i < starts.length; i++) lengths.set(starts[i], Math.max((starts[i + 1] ?? end) - starts[i], 1));
  return lengths;
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
  const sections = new Map(); // url -> {url, page, title, excerpt, length, terms: [[idf, tf]]}
  for (let i = 0; i < words.length; i++) {
    const results = perWord[i].results;
    if (!results.length) continue;
    const df = results.length;
    const idf = Math.log(1 + (pages - df + 0.5) / (df + 0.5));
    const datas = await Promise.all(results.slice(0, MAX_PAGES_PER_WORD).map((r) => r.data().then((d) => [r.id, d])));
    for (const [id, data] of datas) {
      const lengths = sectionLengths(data);
      const subs = data.sub_results && data.sub_results.length ? data.sub_results : [data];
      for (const sub of subs) {
        const tf = weightOf(sub);
        if (!tf) continue;
        let entry = sections.get(sub.url);
        if (!entry) {
          const start = sub.anchor ? sub.anchor.location : 0;
          entry = { url: sub.url, page: data.meta.title, title: sub.title, pageId: id, terms: [],
                    length: lengths.get(start) || data.word_count || 1, excerpt: "", bestIdf: -1 };
          sections.set(sub.url, entry);
        }
        entry.terms.push([idf, tf]);
        if (idf > entry.bestIdf) {
          entry.bestIdf = idf;
          entry.excerpt = sub.excerpt || data.excerpt;
        }
      }
    }
  }
  const entries = [...sections.values()];
  const average = entries.reduce((sum, e) => sum + e.length, 0) / Math.max(entries.length, 1);
  for (const entry of entries) {
    const norm = K1 * (1 - B + (B * entry.length) / average);
    entry.score = entry.terms.reduce((sum, [idf, tf]) => sum + (idf * tf * (K1 + 1)) / (tf + norm), 0)
      + (wholePages.has(entry.pageId) ? 1 : 0);
  }
  entries.sort((a, b) => b.score - a.score);
  return entries.slice(0, MAX_RESULTS);
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
  const field = document.querySelector("form.bd-search input[name=q]");
  if (field) field.value = query;
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
