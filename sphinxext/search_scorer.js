// Search ranking for the guide (conf.py: html_search_scorer; Sphinx inlines this file
// into _static/language_data.js, which search.html loads before searchtools.js).
//
// Sphinx scores a page by the best single query word, so for "MTP DeepSeek" every page
// with "MTP" in any heading ties, and ties are broken alphabetically. This scorer keeps
// Sphinx's weights and adds two rules on top, for results whose page holds every word
// of the query:
//   - in the page's title: the page is about the query (largest boost);
//   - in one of the page's headings, or an object's (server argument's) name: a
//     section is about it (smaller boost);
// each scaled by how much of that title or heading the query covers. An exact index
// entry (every glossary term is one) counts like a heading match instead of outranking
// every page as in Sphinx. No page or query
// is named here: the ranking follows the pages' own titles and headings
// (tests/test_search.py checks it on real queries).
var Scorer = {
  // Sphinx's default weights (sphinx/themes/basic/static/searchtools.js).
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,

  // Boosts: page title holds every query word; else one heading does (scaled by coverage).
  pageTitleBoost: 20,
  headingBoost: 10,
  // An index entry (a glossary term) that is exactly the query, before the boosts.
  indexEntry: 10,

  _words: (text) =>
    splitQuery(text.toLowerCase()).filter((w) => w && !stopwords.has(w)),

  // Every query word is a word of the text, or the start of one ("model" in "models").
  _coverage: (queryWords, text) => {
    const words = Scorer._words(text);
    const all = queryWords.every((q) => words.some((w) => w.startsWith(q)));
    return all ? queryWords.join(" ").length / Math.max(text.length, 1) : 0;
  },

  _pages: null, // docname -> {title, headings}, built once from the search index

  _page: (docname) => {
    if (Scorer._pages === null) {
      const index = Search._index;
      Scorer._pages = new Map(index.docnames.map((doc, i) => [doc, { title: index.titles[i], headings: [] }]));
      for (const [heading, places] of Object.entries(index.alltitles)) {
        for (const [file, id] of places) {
          if (id !== null) Scorer._pages.get(index.docnames[file]).headings.push(heading);
        }
      }
    }
    return Scorer._pages.get(docname) || { title: "", headings: [] };
  },

  score: (result) => {
    const [docname, title, , , base, , kind] = result;
    // Sphinx gives an exact index entry (every glossary term is one) 100 points, above any
    // page: here it counts like a match in a heading, so a page about the term ranks first.
    const score = kind === SearchResultKind.index ? Scorer.indexEntry * base / 100 : base;
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const queryWords = Scorer._words(query);
    if (queryWords.length === 0) return score;
    const page = Scorer._page(docname);
    const inTitle = Scorer._coverage(queryWords, page.title);
    if (inTitle > 0) return score + Scorer.pageTitleBoost * (1 + inTitle);
    // An object (a server argument) counts as a heading of its own: its name.
    const headings = kind === SearchResultKind.object ? [title] : page.headings;
    const inHeading = Math.max(0, ...headings.map((h) => Scorer._coverage(queryWords, h)));
    return score + Scorer.headingBoost * inHeading;
  },
};
