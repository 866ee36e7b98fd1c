// The search page (search.html?q=...): finds the sections that answer a query with Pagefind.
//
// Loaded by search.html only (docs/_templates/search.html); the index is written after the
// Sphinx build by sphinxext/pagefind_search.py into pagefind/. Pagefind matches pages that
// hold every word of a query, which finds nothing for a pasted question or error line, so
// each word is searched on its own too and the sections are ranked here:
//   score(section) = sum over the query's words w found in it of idf(w) * (1 + log tf(w))
//                    * coverage^2 + a bonus when the page holds the whole query,
// where idf(w) = log((pages + 1) / (pages holding w + 0.5)) and coverage is the share of the
// query's (weighted) words the section holds. Words in headings count as Pagefind weights them.
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

function weightOf(sub) {
  // weighted_locations: [{weight, balanced_score, location}]; headings weigh more than body text.
  const located = sub.weighted_locations || [];
  if (located.length) return located.reduce((sum, l) => sum + (l.weight || 1), 0);
  return (sub.locations || []).length;
}

/** Rank the sections of the site for a query; returns [{url, page, title, excerpt, score}], best first. */
export async function rankSections(pagefind, query) {
  const words = queryWords(query);
  if (!words.length) return [];
  const [whole, ...perWord] = await Promise.all([pagefind.search(query), ...words.map((w) => pagefind.search(w))]);
  const all = await pagefind.search(null);
  const pages = Math.max(all.results.length, 1);
  const wholePages = new Set(whole.results.map((r) => r.id));
  const sections = new Map(); // url -> {url, page, title, excerpt, bestIdf, words: Map(word -> weight), pageId}
  const pageWords = new Map(); // page id -> Set of words
  for (let i = 0; i < words.length; i++) {
    const results = perWord[i].results;
    if (!results.length) continue;
    const idf = Math.log((pages + 1) / (results.length + 0.5));
    const datas = await Promise.all(results.slice(0, MAX_PAGES_PER_WORD).map((r) => r.data().then((d) => [r.id, d])));
    for (const [id, data] of datas) {
      if (!pageWords.has(id)) pageWords.set(id, new Set());
      pageWords.get(id).add(words[i]);
      const subs = data.sub_results && data.sub_results.length ? data.sub_results : [data];
      for (const sub of subs) {
        const weight = weightOf(sub);
        if (!weight) continue;
        let entry = sections.get(sub.url);
        if (!entry) {
          entry = { url: sub.url, page: data.meta.title, title: sub.title, pageId: id, words: new Map(), excerpt: "", bestIdf: -1 };
          sections.set(sub.url, entry);
        }
        entry.words.set(words[i], { weight, idf });
        if (idf > entry.bestIdf) {
          entry.bestIdf = idf;
          entry.excerpt = sub.excerpt || data.excerpt;
        }
      }
    }
  }
  const totalIdf = words.length;
  const ranked = [];
  for (const entry of sections.values()) {
    let score = 0;
    for (const { weight, idf } of entry.words.values()) score += Math.max(idf, 0.05) * (1 + Math.log(weight));
    const coverage = entry.words.size / totalIdf;
    const pageCoverage = (pageWords.get(entry.pageId) || new Set()).size / totalIdf;
    score = score * coverage * coverage + 0.25 * pageCoverage + (wholePages.has(entry.pageId) ? 0.5 : 0);
    ranked.push({ ...entry, score });
  }
  ranked.sort((a, b) => b.score - a.score);
  return ranked.slice(0, MAX_RESULTS);
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
