/*
 * "Check a command" (reference/check-a-command page): checks a pasted SGLang launch
 * command in the browser, with no server and no network.
 *
 * Everything it knows comes from window.SGLANG_CHECK_DATA, written at build time by
 * sphinxext/content/check_command_page.py: the pinned release's own option table (built from
 * SGLang's parser), facts read from SGLang's source, the flag history
 * (speccheck/data/flag-history.json) and the guide's section links. The argument
 * handling follows Python's argparse (exact spellings, abbreviations, nargs, int /
 * float values, choices, required options) and sphinxext/content/command_check.py (variables,
 * environment prefixes, continuation lines); the start-up rules follow
 * speccheck/spec_rules.py and SGLang's arg_groups/speculative_hook.py. The test
 * tests/test_check_a_command.py compares this script's verdicts with the Python
 * check on several hundred commands.
 *
 * window.sglangCheck(text) returns {command, entry, diagnostics}; each diagnostic has
 * severity ("error", "warning", "info"), flag (the flag it is about, or null), rule,
 * message and link (a URL of the guide section that explains it, or null).
 */
(function () {
  "use strict";

  var D = window.SGLANG_CHECK_DATA;
  if (!D) return;
  var F = D.facts;

  // -- The option table -------------------------------------------------------
  var BY_FLAG = {};
  var BY_DEST = {};
  var ALL_FLAGS = [];
  D.options.forEach(function (o) {
    o.flags.forEach(function (f) { BY_FLAG[f] = o; ALL_FLAGS.push(f); });
    BY_DEST[o.dest] = o;
  });
  ALL_FLAGS.sort();
  var VALID_ALGOS = F.algorithms.concat(F.aliases);

  // -- Reading the pasted text ------------------------------------------------
  var VARIABLE_RE = /\$|\{.*\}|^<[^<>]+>$/;
  // python, python3, python3.11, a path to one ($VENV/bin/python), or a variable holding it ($PYTHON).
  var PYTHON_RE = /^(?:[\w.~${}-]*\/)*python(?:3(?:\.\d+)?)?$|^\$\{?\w*PYTHON\w*\}?$/i;
  var ASSIGN_RE = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

  // Shell words of one logical line; operators (; & | ( )) and redirections end a command.
  function shellWords(line, problems) {
    var words = [], word = null, i = 0, quote = null;
    function push() { if (word !== null) words.push(word); word = null; }
    line = line.replace(/\$\((?:[^()]|\([^()]*\))*\)/g, "${command_output}");
    while (i < line.length) {
      var c = line[i];
      if (quote === "'") {
        if (c === "'") quote = null; else word += c;
      } else if (quote === '"') {
        if (c === '"') quote = null;
        else if (c === "\\" && i + 1 < line.length && '"\\$`'.indexOf(line[i + 1]) >= 0) { word += line[i + 1]; i++; }
        else word += c;
      } else if (c === "'" || c === '"') {
        quote = c; if (word === null) word = "";
      } else if (c === "\\" && i + 1 < line.length) {
        word = (word || "") + line[i + 1]; i++;
      } else if (/\s/.test(c)) {
        push();
      } else if (c === "#" && word === null) {
        break;
      } else if (c === "<" && word === null && /^<[^<>\s]+>/.test(line.slice(i))) {
        var end = line.indexOf(">", i);  // a <placeholder>, as documentation writes them: one word
        word = line.slice(i, end + 1); i = end;
      } else if (";&|()".indexOf(c) >= 0 || ((c === ">" || c === "<") && word === null)) {
        push(); words.push({ op: c });
      } else if (c === ">" && /^\d*$/.test(word || "")) {
        word = null; words.push({ op: c });
      } else {
        word = (word || "") + c;
      }
      i++;
    }
    if (quote && problems) problems.push(words.length);  // the index of the word the open quote starts
    push();
    return words;
  }

  // The first SGLang server command in the text: entry point, arguments, environment prefixes.
  function findCommand(text) {
    var logical = text.replace(/\\[ \t]*\r?\n/g, " ").split(/\r?\n/).map(function (line) {
      return line.replace(/\\[ \t]*$/, "");  // a continuation at the very end: nothing follows
    });
    var arrays = {}, exported = [];
    for (var n = 0; n < logical.length; n++) {
      // A shell array (`spec=(...)`, also `local -a spec=(`, over several lines), expanded where
      // a command uses "${spec[@]}", as sphinxext/content/command_check.py does.
      var arr = /^\s*(?:(?:local|declare|typeset|readonly)\s+(?:-\w+\s+)*)?(\w+)(\+?=)\((.*)$/.exec(logical[n]);
      if (arr) {
        var body = arr[3], close = body.lastIndexOf(")");
        while (close < 0 && n + 1 < logical.length) { body += " " + logical[++n]; close = body.lastIndexOf(")"); }
        var items = shellWords(close >= 0 ? body.slice(0, close) : body).filter(function (w) { return typeof w === "string"; });
        arrays[arr[1]] = (arr[2] === "+=" && arrays[arr[1]] ? arrays[arr[1]] : []).concat(items);
        continue;
      }
      var problems = [];  // an unclosed quote counts on the command's own line only
      var words = shellWords(logical[n], problems);
      var assigns = words.filter(function (w) { return typeof w === "string" && ASSIGN_RE.test(w); });
      if (assigns.length && (words[0] === "export" || assigns.length === words.length)) {
        assigns.forEach(function (w) { var m = ASSIGN_RE.exec(w); exported.push([m[1], m[2]]); });
        continue;
      }
      for (var k = 0; k < words.length; k++) {
        var w = words[k];
        if (typeof w !== "string") continue;
        var entry = null, take = 0;
        if (PYTHON_RE.test(w) && words[k + 1] === "-m" && typeof words[k + 2] === "string") {
          entry = "python -m " + words[k + 2]; take = 3;
        } else if (/^(?:[\w.~-]*\/)*sglang$/.test(w) && words[k + 1] === "serve") {
          entry = "sglang serve"; take = 2;
        }
        if (!entry) continue;
        var env = exported.slice();
        for (var j = 0; j < k; j++) {
          var m = typeof words[j] === "string" && ASSIGN_RE.exec(words[j]);
          if (m) env.push([m[1], m[2]]);
        }
        var args = [];
        for (j = k + take; j < words.length && typeof words[j] === "string"; j++) {
          var use = /^\$\{(\w+)\[[@*]\]\}$/.exec(words[j]);
          if (use && arrays[use[1]]) args = args.concat(arrays[use[1]]); else args.push(words[j]);
        }
        var stated = /#\s*architecture:\s*([A-Za-z_][\w.]*)/.exec(text);
        var openFlag = null;
        if (problems.length) {
          for (j = Math.min(problems[0], words.length) - 1; j >= k + take; j--) {
            if (typeof words[j] === "string" && words[j].indexOf("--") === 0) { openFlag = words[j].split("=")[0]; break; }
          }
        }
        return { entry: entry, args: args, env: env, unbalanced: problems.length > 0, openFlag: openFlag,
                 arch: stated ? stated[1] : null };
      }
    }
    return null;
  }

  // -- Parsing, as argparse does ----------------------------------------------
  function isNegativeNumber(w) { return /^-\d+$|^-\d*\.\d+$/.test(w); }

  // argparse's "does this word look like an option" (_parse_optional).
  // argparse's _parse_optional (Python 3.11): a known flag, a known flag with "=value", or a
  // "--" prefix of some flag is an option even when it looks like a number or holds a space.
  function optionLike(w) {
    if (!w || w[0] !== "-" || w === "-") return false;
    if (BY_FLAG[w]) return true;
    var eq = w.indexOf("="), head = eq > 0 ? w.slice(0, eq) : w;
    if (eq > 0 && BY_FLAG[head]) return true;
    if (head.indexOf("--") === 0 && ALL_FLAGS.some(function (f) { return f.indexOf(head) === 0; })) return true;
    if (isNegativeNumber(w)) return false;
    if (w.indexOf(" ") >= 0) return false;
    return true;
  }

  function convert(o, text) {
    if (o.type === "int") {
      if (!/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(text)) return { error: "invalid int value: '" + text + "'" };
      return { value: parseInt(text.replace(/_/g, ""), 10) };
    }
    if (o.type === "human_readable_int") {
      // sglang/srt/utils/common.py::human_readable_int: an integer, or SI (k M G T, decimals allowed)
      // and IEC (Ki Mi Gi Ti, integers only) suffixes, case-sensitive.
      var h = text.trim(), m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)$/.exec(h);
      if (m && m[2].length === 2 && m[1].indexOf(".") >= 0) {
        return { error: "Decimals are not allowed with IEC suffixes like '" + m[2] + "'" };
      }
      if (m) return { value: Math.round(parseFloat(m[1]) * Math.pow(m[2].length === 2 ? 1024 : 1000, "KMGT".indexOf(m[2][0].toUpperCase()) + 1)) };
      if (!/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(h)) return { error: "Invalid integer value: '" + h + "'" };
      return { value: parseInt(h.replace(/_/g, ""), 10) };
    }
    if (o.type === "float") {
      var t = text.trim().replace(/_/g, "");
      if (!/^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)$/i.test(t)) {
        return { error: "invalid float value: '" + text + "'" };
      }
      return { value: /inf/i.test(t) ? (t[0] === "-" ? -Infinity : Infinity) : /nan/i.test(t) ? NaN : parseFloat(t) };
    }
    return { value: text };  // str, or a type function this page cannot run: taken as written
  }

  function standIn(o) {
    if (o.choices && o.choices.length) return o.choices[0];
    return o.type === "int" || o.type === "human_readable_int" ? "1" : o.type === "float" ? "1.0" : "x";
  }

  function historyOf(flag) {
    var h = D.history.flags[flag];
    return h && h.events.length ? h.events[h.events.length - 1] : null;
  }

  function levenshtein(a, b) {
    var prev = [], cur, i, j;
    for (j = 0; j <= b.length; j++) prev[j] = j;
    for (i = 1; i <= a.length; i++) {
      cur = [i];
      for (j = 1; j <= b.length; j++) {
        cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
      prev = cur;
    }
    return prev[b.length];
  }

  function nearest(flag) {
    var scored = ALL_FLAGS.filter(function (f) { return f.indexOf("--") === 0; }).map(function (f) {
      return [levenshtein(flag, f), f];
    }).sort(function (x, y) { return x[0] - y[0] || (x[1] < y[1] ? -1 : 1); });
    var limit = Math.max(3, Math.floor(flag.length / 4));
    return scored.filter(function (s) { return s[0] <= limit; }).slice(0, 3).map(function (s) { return s[1]; });
  }

  function codeList(items) { return items.map(function (x) { return "`" + x + "`"; }).join(", "); }

  // What the flag history says about a flag the pinned parser does not have; "" if nothing.
  // The flag's own line on the release-changes page (ids from sphinxext/content/sglang_drift.py, docutils make_id).
  function historyAnchor(flag) {
    var page = (D.links.renamed || "").split("#")[0];
    return page + "#" + ("flag-history-" + flag).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  }

  function historyNote(flag) {
    var e = historyOf(flag);
    if (!e) return "";
    // The release from which SGLang warned about the flag (a "deprecated" event), as speccheck/history.py says it.
    var dep = D.history.flags[flag].events.filter(function (x) { return x.change === "deprecated"; })[0];
    var when = "in SGLang " + e.release + (dep ? " (deprecated from SGLang " + dep.release + ")" : "");
    if (e.change === "split") return " Split into " + codeList(e.into) + " " + when + ": use those.";
    if (e.change === "renamed") return " Renamed to " + codeList(e.into) + " " + when + ": use that.";
    if (e.change === "removed") return " Removed " + when + ": drop it.";
    return "";
  }

  function sglangArgv(entry, args) {
    if (entry !== "sglang serve") return args.slice();
    var out = [];
    for (var i = 0; i < args.length; i++) {
      if (args[i] === "--model-type") { i++; continue; }
      if (args[i].indexOf("--model-type=") !== 0) out.push(args[i]);
    }
    if (out.length && out[0][0] !== "-" && !/^\$(?:\{\w+\[[@*]\]\}|[@*])$/.test(out[0])) out.unshift("--model-path");
    return out;
  }

  // Parse the arguments; returns {ns, given, unresolved, diags}.
  function parse(argv) {
    var ns = {}, given = {}, diags = [], unresolved = false, seen = {};
    D.options.forEach(function (o) { ns[o.dest] = o.default; });
    function err(flag, rule, message, link) {
      var url = link === "renamed" && flag ? historyAnchor(flag) : D.links[link || "value"] || null;
      diags.push({ severity: "error", flag: flag, rule: rule, message: message, link: url });
    }
    function warn(flag, rule, message, link) {
      diags.push({ severity: "warning", flag: flag, rule: rule, message: message, link: D.links[link || "value"] || null });
    }
    function skipValues(i) { while (i < argv.length && !optionLike(argv[i])) i++; return i; }
    var i = 0;
    while (i < argv.length) {
      var word = argv[i++];
      if (word === "--") {
        // argparse reads every word after a bare "--" as positional, and SGLang's parser takes none: it names
        // "--" and each flag after it as unrecognized arguments (what the build's check reports too).
        err("--", "unrecognized", "`--` ends the options: SGLang's parser rejects it, and every word after it, as unrecognized arguments.", "parser");
        while (i < argv.length) {
          var rest = argv[i++];
          if (rest[0] === "-") err(rest.split("=")[0], "unrecognized", "`" + rest + "` comes after `--`, so SGLang's parser rejects it as an unrecognized argument.", "parser");
        }
        break;
      }
      if (!optionLike(word)) {
        if (VARIABLE_RE.test(word)) { unresolved = true; continue; }
        // Named like the build's check: argparse's "unrecognized arguments: -1" starts with the stray word.
        err(word[0] === "-" ? word.split("=")[0] : null, "unrecognized", "`" + word + "` is not a value of any flag: SGLang's parser rejects it as an unrecognized argument.", "parser");
        continue;
      }
      var eq = word.indexOf("="), flag = eq > 0 ? word.slice(0, eq) : word;
      var explicit = eq > 0 ? word.slice(eq + 1) : null;
      var o = BY_FLAG[word] ? (flag = word, explicit = null, BY_FLAG[word]) : BY_FLAG[flag];
      if (!o) {
        var matches = ALL_FLAGS.filter(function (f) { return f.indexOf(flag) === 0; });
        if (flag.indexOf("--") === 0 && matches.length > 1) {
          // speccheck/history.py::former_abbreviations, computed at build time: [flag, release].
          var note = historyNote(flag).trim(), former = note ? null : (D.history.former || {})[flag];
          err(flag, "ambiguous", (note ? "`" + flag + "`: " + note + " " : "`" + flag + "` is not a flag of SGLang " +
              D.version + ". ") + "SGLang " + D.version + "'s parser stops with \"ambiguous option\", because " +
              "it could start " + codeList(matches) + "." + (former ? " Until SGLang " + former[1] + " only `" +
              former[0] + "` started this way, so a command written for an older release means `" + former[0] +
              "`: write that." : ""), note ? "renamed" : "parser");
          i = explicit === null ? skipValues(i) : i;
          continue;
        }
        if (flag.indexOf("--") === 0 && matches.length === 1) {
          o = BY_FLAG[matches[0]];
          warn(flag, "abbreviation", "`" + flag + "` is an abbreviation of `" + matches[0] + "`: SGLang " + D.version +
               " accepts it, but only while no other flag starts the same way (`--cuda-graph-max-bs` stopped working " +
               "that way). Write the full flag.", "parser");
        } else {
          var note2 = historyNote(flag), near = nearest(flag);
          err(flag, "unknown", "`" + flag + "` is not a flag of SGLang " + D.version + "." + note2 +
              (near.length && !note2 ? " Did you mean " + codeList(near) + "?" : ""), note2 ? "renamed" : "unknown-flag");
          i = explicit === null ? skipValues(i) : i;
          continue;
        }
      }
      if (o.error_message) {
        err(flag, "retired", "`" + flag + "`: " + o.error_message, "parser");
        i = explicit === null ? skipValues(i) : i;
        continue;
      }
      if (o.deprecated) {
        warn(flag, "deprecated", "`" + flag + "` is deprecated in SGLang " + D.version +
            (o.new_flag ? ": it still works, but use `" + o.new_flag + "`." : ": it still works, with a warning."), "parser");
      }
      var values = [], bad = false, nargs = o.nargs;
      if (nargs === 0) {
        if (explicit !== null) { err(o.flags[0], "value", "argument " + o.flags.join("/") + ": ignored explicit argument '" + explicit + "'"); continue; }
        ns[o.dest] = o.const; given[o.dest] = true; seen[o.dest] = true;
        continue;
      }
      if (explicit !== null) {
        values = [explicit];
      } else if (nargs === null || nargs === "?" || typeof nargs === "number") {
        var want = typeof nargs === "number" ? nargs : 1;
        while (values.length < want && i < argv.length && !optionLike(argv[i])) values.push(argv[i++]);
        if (values.length < want && nargs !== "?") {
          err(o.flags[0], "value", "argument " + o.flags.join("/") + ": expected " + (want === 1 ? "one argument" : want + " arguments") + ".");
          continue;
        }
      } else {
        while (i < argv.length && !optionLike(argv[i])) values.push(argv[i++]);
        if (!values.length && nargs === "+") { err(o.flags[0], "value", "argument " + o.flags.join("/") + ": expected at least one argument."); continue; }
      }
      if (nargs === "?" && !values.length) { ns[o.dest] = o.const; given[o.dest] = true; seen[o.dest] = true; continue; }
      var variable = values.some(function (v) { return VARIABLE_RE.test(v); });
      var parsed = [];
      for (var k = 0; k < values.length; k++) {
        var text = VARIABLE_RE.test(values[k]) ? standIn(o) : values[k];
        var got = convert(o, text);
        if (got.error) { err(o.flags[0], "value", "argument " + o.flags.join("/") + ": " + got.error + "."); bad = true; break; }
        if (o.choices && o.choices.indexOf(String(got.value)) < 0 && o.choices.indexOf(text) < 0) {
          err(o.flags[0], "value", "argument " + o.flags.join("/") + ": invalid choice: '" + text + "' (choose from " + codeList(o.choices) + ").");
          bad = true; break;
        }
        parsed.push(got.value);
      }
      if (bad) continue;
      ns[o.dest] = (nargs === "+" || nargs === "*" || typeof nargs === "number") ? parsed : parsed[0];
      seen[o.dest] = true;
      if (!variable) given[o.dest] = true;
    }
    var config = argv.some(function (w) { return w === "--config" || w.indexOf("--config=") === 0; });
    if (config) {
      unresolved = true;  // the file may set any flag, --model-path included
      warn("--config", "config-file", "Flags in the `--config` file are not read by this page: SGLang merges them " +
           "into the command, so the start-up rules were not applied.", "parser");
    }
    D.options.forEach(function (o) {
      if (o.required && !seen[o.dest] && !unresolved) {
        err(o.flags[0], "required", "`" + o.flags[0] + "` is required: the parser stops with \"the following " +
            "arguments are required\".", "parser");
      }
    });
    return { ns: ns, given: given, unresolved: unresolved, diags: diags };
  }

  // -- The start-up rules (speccheck/spec_rules.py, speculative_hook.py) ----------
  // stated: the target's architecture written in the text (`# architecture: LlamaForCausalLM`), or null.
  function rules(ns, given, stated) {
    var out = [];
    function add(severity, flag, rule, link, message) {
      out.push({ severity: severity, flag: flag, rule: rule, message: message, link: D.links[link] || null });
    }
    if (!given.speculative_algorithm) return out;
    var raw = String(ns.speculative_algorithm), algo = raw.toUpperCase();
    if (algo === "NONE") return out;  // SpeculativeAlgorithm.from_string knows NONE: no speculative decoding
    if (VALID_ALGOS.indexOf(algo) < 0) {
      add("error", "--speculative-algorithm", "unknown-algorithm", "algorithm",
          "`--speculative-algorithm " + raw + "`: SGLang stops with \"Unknown speculative algorithm name\". " +
          "Valid names: " + codeList(VALID_ALGOS) + ".");
      return out;
    }
    // spec_rules.other_hook_problems: rules of SGLang's model hook and resolution pipeline (sources there).
    var targetArch = stated || (given.model_path ? F.architectures[ns.model_path] : undefined);
    var V4 = F.deepseek_v4 || {}, v4 = !!V4.architecture && targetArch === V4.architecture;
    if (v4 && V4.algorithms.indexOf(algo) < 0) {
      add("error", "--speculative-algorithm", "deepseek-v4-algorithm", "deepseek-v4",
          "SGLang stops with \"Only EAGLE and DSPARK speculative algorithms are supported for " + targetArch + "\"" +
          (algo === "NEXTN" ? ": write `EAGLE`, the `NEXTN` alias is refused for this class." : "."));
    } else if (v4 && algo === "EAGLE" && ns.speculative_eagle_topk !== 1) {
      add("error", "--speculative-eagle-topk", "deepseek-v4-topk", "deepseek-v4",
          "SGLang stops with \"Only EAGLE speculative algorithm with topk == 1 is supported for " + targetArch + "\"" +
          (ns.speculative_eagle_topk === null || ns.speculative_eagle_topk === undefined
            ? ": set `--speculative-eagle-topk 1` and the other two tree flags (this class gets no automatic tree)." : "."));
    }
    var draftA2a = ns.speculative_moe_a2a_backend;
    if ((draftA2a === null || draftA2a === undefined) && algo !== "NGRAM") draftA2a = ns.moe_a2a_backend;
    if (draftA2a === "deepep_v2") {
      add("error", ns.speculative_moe_a2a_backend ? "--speculative-moe-a2a-backend" : "--moe-a2a-backend", "deepep-v2-draft", "deepep-v2",
          "SGLang stops with \"DeepEP v2 MoE is not validated as a speculative draft backend\": the draft " +
          (ns.speculative_moe_a2a_backend ? "is set to" : "inherits `--moe-a2a-backend`") + " `deepep_v2`; set `--speculative-moe-a2a-backend` to another backend.");
    }
    if (algo === "NEXTN") algo = "EAGLE";
    var dp = dpAttention(ns, given);
    if (ns.disaggregation_mode === "decode" && ns.disaggregation_decode_enable_radix_cache &&
        ["DSPARK", "EAGLE", "EAGLE3"].indexOf(algo) < 0) {
      add("error", "--disaggregation-decode-enable-radix-cache", "pd-radix", "value",
          "`--disaggregation-decode-enable-radix-cache` cannot be combined with speculative decoding by " + algo +
          " on a decode server (only EAGLE / EAGLE3 / NEXTN / DSPARK).");
    }
    // handle_speculative_decoding: checks for every algorithm.
    if (ns.speculative_use_block_verification && ["EAGLE", "EAGLE3", "DFLASH", "DSPARK"].indexOf(algo) < 0) {
      add("error", "--speculative-use-block-verification", "block-verification", "rejection-sampling",
          "`--speculative-use-block-verification` works only with EAGLE / EAGLE3 / NEXTN / DFLASH / DSPARK, not " + algo + ".");
    }
    if (given.speculative_draft_window_size && ns.speculative_draft_window_size <= 0) {
      add("error", "--speculative-draft-window-size", "window-size", "value",
          "`--speculative-draft-window-size` must be positive (got " + ns.speculative_draft_window_size + ").");
    }
    if (given.speculative_draft_sink_size) {
      if (ns.speculative_draft_sink_size < 0) {
        add("error", "--speculative-draft-sink-size", "sink-size", "value", "`--speculative-draft-sink-size` must not be negative.");
      }
      if (ns.speculative_draft_window_size === null || ns.speculative_draft_window_size === undefined) {
        add("error", "--speculative-draft-sink-size", "sink-size", "value",
            "`--speculative-draft-sink-size` needs `--speculative-draft-window-size`.");
      }
    }
    var capped = ["EAGLE", "EAGLE3", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "FROZEN_KV_MTP"].indexOf(algo) >= 0;
    var defaultCap = v4 ? V4.request_cap : F.request_cap;
    if (capped && !given.max_running_requests && BY_DEST.max_running_requests) {
      add("info", "--max-running-requests", "request-cap", "request-cap",
          "`--max-running-requests` is not set: SGLang sets it to " + defaultCap + (v4
            ? " for " + targetArch + " (its model defaults run before the speculative hook, so the " + F.request_cap + " for speculative decoding does not apply)."
            : " for speculative decoding."));
    }
    // More requests may decode at once than the decode CUDA graphs were captured for: the larger
    // batches run eagerly (decode_cuda_graph_runner.py: can_run_graph looks the batch size up among
    // the captured sizes). With DP attention each rank runs a share, so that case is left alone.
    var cap = given.max_running_requests ? ns.max_running_requests : (capped ? defaultCap : null);
    if (given.cuda_graph_max_bs_decode && cap && !dp && ns.cuda_graph_max_bs_decode < cap) {
      add("warning", "--cuda-graph-max-bs-decode", "graph-below-cap", "example-values",
          "`--cuda-graph-max-bs-decode " + ns.cuda_graph_max_bs_decode + "` is below the " + cap +
          " requests the server may run at once: decode batches of more than " + ns.cuda_graph_max_bs_decode +
          " requests run without CUDA graphs (the decode log shows `cuda graph: False`). Set it to the most " +
          "requests you run at once, or leave it unset.");
    }
    // _maybe_disable_adaptive (speculative_hook.py, adaptive_unsupported_reason): adaptive mode is switched
    // off with a warning, and the static tree is used, for these cases.
    if (ns.speculative_adaptive) {
      var why = adaptiveOffReason(algo, ns, given, dp);
      if (why) {
        add("warning", "--speculative-adaptive", "adaptive-disabled", "adaptive",
            "`--speculative-adaptive` is switched off at start-up with a warning: " + why +
            ". The server runs the static tree instead.");
      }
    }
    if (algo === "EAGLE" || algo === "EAGLE3" || algo === "STANDALONE") eagleFamily(ns, given, algo, dp, add, stated);
    else if (algo === "NGRAM") ngram(ns, given, dp, add);
    else if (algo === "DFLASH") dflash(ns, given, dp, add);
    else if (algo === "DSPARK") dspark(ns, given, dp, add);
    else if (algo === "UNO") uno(ns, given, dp, add);
    return out;
  }

  // Why SGLang switches --speculative-adaptive off (adaptive_spec_params.py: adaptive_unsupported_reason),
  // or null when adaptive mode runs.
  function adaptiveOffReason(algo, ns, given, dp) {
    if (["EAGLE", "EAGLE3"].indexOf(algo) < 0) return "it supports only EAGLE, EAGLE3 and NEXTN, not " + algo;
    if (given.speculative_eagle_topk && ns.speculative_eagle_topk !== 1) return "it supports only `--speculative-eagle-topk 1`";
    if (dp) return "it does not run with DP attention (" + dp + ")";
    return null;
  }

  // DP attention as SGLang resolves it: --attn-dp-size > 1, or the deprecated
  // --enable-dp-attention with --dp-size > 1 (parallel_hook.py: handle_deprecated_dp_attention
  // turns it into --attn-dp-size before any other step when --attn-dp-size is 1).
  // Returns the flag that switches it on ("" when off), so a report points at what was written.
  function dpAttention(ns, given) {
    var attn = ns.attn_dp_size || 1;
    if (attn > 1) return "--attn-dp-size";
    return given.enable_dp_attention && (ns.dp_size || 1) > 1 ? "--enable-dp-attention" : "";
  }

  function backendsOf(ns) {
    var b = [ns.prefill_attention_backend || ns.attention_backend, ns.decode_attention_backend || ns.attention_backend];
    return b.filter(function (x, k) { return x && b.indexOf(x) === k; });
  }

  function givenPage(ns, given) { return given.page_size ? (ns.page_size || 1) : null; }

  // The page size SGLang ends up with (_mla_backend_page_constraints), and why; null when unknown.
  function pageSize(ns, given, add) {
    var size = given.page_size ? (ns.page_size || 1) : null;
    F.forced_page_sizes.forEach(function (rule) {
      var hit = rule.fields.some(function (f) { return rule.backends.indexOf(ns[f]) >= 0 && (f === "attention_backend" ? given.attention_backend : given[f]); });
      if (hit && (rule.allowed.length === 0 || rule.allowed.indexOf(size === null ? 1 : size) < 0)) {
        if (add && size !== rule.to) {
          add("info", "--page-size", "forced-page-size", "page-size", "SGLang sets `--page-size " + rule.to + "` for the " +
              rule.backends.join(" / ") + " attention backend" + (size === null ? "." : " (the command sets " + size + ")."));
        }
        size = rule.to;
      }
    });
    return size;
  }

  function eagleFamily(ns, given, algo, dp, add, stated) {
    // _handle_eagle_family: "Non-overlap (synchronous) spec v2 is used ..." when the overlap scheduler is off.
    if (given.disable_overlap_schedule && ns.disable_overlap_schedule) {
      add("warning", "--disable-overlap-schedule", "overlap-off", "overlap", "`--disable-overlap-schedule` makes the " +
          "speculative worker run synchronously, which is slower; every built-in algorithm runs with the overlap " +
          "scheduler. Leave it out unless you need it for something else.");
    }
    var arch = stated || (given.model_path ? F.architectures[ns.model_path] : undefined);
    if (algo === "STANDALONE" && dp) {
      add("error", dp, "standalone-dp", "dp-attention", "STANDALONE speculative decoding does not " +
          "support DP attention (`--attn-dp-size` > 1, or `--enable-dp-attention` with `--dp-size` > 1).");
    }
    // A draft path written as a variable ($DRAFT) is a draft path, as in the build's check.
    if (!given.speculative_draft_model_path && ns.speculative_draft_model_path == null && !given.draft_misspelt && given.model_path) {
      if (arch === undefined) {
        add("warning", "--speculative-draft-model-path", "draft-path", "draft-path", algo + " without " +
            "`--speculative-draft-model-path`: this page cannot tell whether `" + ns.model_path + "` carries its own " +
            "draft (MTP) layer (add a line `# architecture: <architectures[0] of its config.json>` to say). " +
            "If its architecture is not one that ships one, " +
            "such as " + codeList(F.bundled_draft_architectures.filter(function (a) { return /^Deepseek|^Glm4Moe|^MiMo/.test(a); })) +
            ", SGLang loads the target itself as the draft: pass a draft path.");
      } else if (algo === "STANDALONE" || F.bundled_draft_architectures.indexOf(arch) < 0) {
        add("error", "--speculative-draft-model-path", "draft-path", "draft-path", algo + " needs " +
            "`--speculative-draft-model-path`: `" + ns.model_path + "` (" + arch + ") has no draft layer of its own, " +
            "and without a draft path SGLang loads the target checkpoint as the draft.");
      } else {
        add("info", "--speculative-draft-model-path", "draft-path", "draft-path", "No draft path: `" + ns.model_path +
            "` (" + arch + ") carries its own draft layer, and SGLang uses the target checkpoint as the draft.");
      }
    }
    var knobs = ["speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"];
    var flags = ["--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens"];
    var set = flags.filter(function (f, k) { return ns[knobs[k]] !== null && ns[knobs[k]] !== undefined; });
    var adaptive = !!ns.speculative_adaptive && !adaptiveOffReason(algo, ns, given, dp);
    var partial = set.length > 0 && set.length < 3 && !adaptive;
    if (partial) {
      var missing = flags.filter(function (f) { return set.indexOf(f) < 0; });
      var text = "Set " + codeList(flags) + " together or not at all: this command sets " + codeList(set) +
          " but not " + codeList(missing) + ".";
      if (missing.length === 1 && missing[0] === "--speculative-num-draft-tokens" && ns.speculative_eagle_topk === 1) {
        add("info", "--speculative-num-draft-tokens", "topk-one", "topk-one", "`--speculative-num-draft-tokens` is not " +
            "set: with `--speculative-eagle-topk 1` SGLang sets it to `--speculative-num-steps` + 1 = " +
            (ns.speculative_num_steps + 1) + ".");
      } else if (missing.length === 1 && missing[0] === "--speculative-num-draft-tokens") {
        add("warning", "--speculative-num-steps", "all-or-none", "all-or-none", text + " SGLang's start-up checks " +
            "let this through and leave the draft tokens unset; expect a failure once the server runs.");
      } else {
        // A bare assert (steps unset) names no flag, as the build's check reports it.
        add("error", set.indexOf(flags[0]) < 0 ? null : "--speculative-num-steps", "all-or-none", "all-or-none", text +
            (set.indexOf(flags[0]) < 0 ? " SGLang stops at start-up with a bare AssertionError."
                                       : " SGLang stops at start-up with a TypeError."));
      }
    }
    var topk = given.speculative_eagle_topk ? ns.speculative_eagle_topk : null;
    if (!set.length && !adaptive) {
      if (arch !== undefined) {
        var p = autoParams(algo, arch);
        topk = p[1];  // the rules below apply to the tree SGLang picks, as spec_rules.py does
        add("info", "--speculative-num-steps", "auto-tree", "auto-tree", "No draft tree is set: SGLang picks steps " +
            p[0] + ", topk " + p[1] + ", draft tokens " + p[2] + " for " + arch + ".");
      } else {
        add("info", "--speculative-num-steps", "auto-tree", "auto-tree", "No draft tree is set: SGLang picks one from " +
            "the target's architecture (read from its config.json, which this page does not have).");
      }
    }
    var backends = backendsOf(ns);
    var trtllm = topk !== null && topk > 1 && backends.indexOf("trtllm_mha") >= 0;
    if (trtllm) {
      add("error", "--speculative-eagle-topk", "trtllm-topk", "topk-backends", "The trtllm_mha attention backend supports " +
          "only `--speculative-eagle-topk 1` (got " + topk + ").");
    }
    // With top-k > 1 the draft proposes topk + (steps - 1) * topk^2 candidates and keeps the best
    // draft tokens - 1 with torch.topk, which fails when asked for more (speccheck/check.py::too_few_candidates).
    if (set.length === 3 && topk !== null && topk > 1 && ns.speculative_num_steps >= 1) {
      var steps = ns.speculative_num_steps, tokens = ns.speculative_num_draft_tokens;
      var proposed = topk + (steps - 1) * topk * topk;
      if (tokens - 1 > proposed) {
        add("error", "--speculative-num-draft-tokens", "too-few-candidates", "tree-limits",
            "`--speculative-num-draft-tokens " + tokens + "` keeps the best " + (tokens - 1) + " draft candidates, but " +
            steps + " step(s) with top-k " + topk + " propose only " + proposed + ": SGLang starts, then `torch.topk` " +
            "fails when the draft first runs (CUDA-graph capture or the first request). Use at most " + (proposed + 1) +
            " draft tokens.");
      }
    }
    var rejection = !!ns.speculative_use_rejection_sampling ||
        (!!ns.speculative_use_block_verification && (algo === "EAGLE" || algo === "EAGLE3"));
    if (rejection) {
      if (algo !== "EAGLE" && algo !== "EAGLE3") {
        add("error", "--speculative-use-rejection-sampling", "rejection-sampling", "rejection-sampling",
            "`--speculative-use-rejection-sampling` works only with EAGLE / EAGLE3 / NEXTN, not " + algo + ".");
      }
      if (topk !== null && topk !== 1) {
        add("error", "--speculative-use-rejection-sampling", "rejection-sampling", "rejection-sampling",
            "`--speculative-use-rejection-sampling` needs `--speculative-eagle-topk 1` (got " + topk + ").");
      }
      if (ns.speculative_accept_threshold_single !== 1 || ns.speculative_accept_threshold_acc !== 1) {
        add("error", "--speculative-use-rejection-sampling", "rejection-sampling", "rejection-sampling",
            "`--speculative-use-rejection-sampling` cannot be combined with `--speculative-accept-threshold-single` / " +
            "`--speculative-accept-threshold-acc`.");
      }
    }
    if (!partial && topk === 1 && given.speculative_num_steps && given.speculative_num_draft_tokens &&
        ns.speculative_num_draft_tokens !== ns.speculative_num_steps + 1) {
      add("warning", "--speculative-eagle-topk", "topk-one", "topk-one", "With `--speculative-eagle-topk 1`, SGLang " +
          "replaces `--speculative-num-draft-tokens " + ns.speculative_num_draft_tokens + "` by `--speculative-num-steps` " +
          "+ 1 = " + (ns.speculative_num_steps + 1) + " and logs a warning: write that value.");
    }
    var page = pageSize(ns, given, add);
    if (topk !== null && topk > 1 && page !== null && page > 1 && given.attention_backend &&
        F.page_tree_backends.indexOf(ns.attention_backend) < 0) {
      // Named by topk, or by the page size when the trtllm_mha error already names topk (as the build does).
      add("error", trtllm ? "--page-size" : "--speculative-eagle-topk",
          page === givenPage(ns, given) ? "topk-backends" : "topk-backends-forced", "topk-backends", "`--speculative-eagle-topk " + topk +
          "` with page size " + page + " works only with the attention backends " + codeList(F.page_tree_backends) +
          "; got `--attention-backend " + ns.attention_backend + "`.");
    }
    if (adaptive && (algo === "EAGLE" || algo === "EAGLE3") && (topk === null || topk === 1) && !dp &&
        !ns.speculative_adaptive_config && given.speculative_num_steps &&
        F.adaptive_steps.indexOf(ns.speculative_num_steps) < 0) {
      add("error", "--speculative-num-steps", "adaptive-steps", "all-or-none", "With `--speculative-adaptive`, " +
          "`--speculative-num-steps` must be one of the candidate steps " + codeList(F.adaptive_steps.map(String)) +
          " (got " + ns.speculative_num_steps + ").");
    }
  }

  function autoParams(algo, arch) {
    for (var k = 0; k < F.auto_params.length; k++) {
      var b = F.auto_params[k];
      if (b[0] === "else" || (b[0] === "algorithm" && b[1].indexOf(algo) >= 0) || (b[0] === "arch" && b[1].indexOf(arch) >= 0)) return b[2];
    }
    return [null, null, null];
  }

  function ngram(ns, given, dp, add) {
    if (dp) {
      add("error", dp, "ngram-dp", "dp-attention", "NGRAM speculative decoding does not support " +
          "DP attention (`--attn-dp-size` > 1, or `--enable-dp-attention` with `--dp-size` > 1).");
    }
    if (ns.speculative_use_rejection_sampling) {
      add("warning", "--speculative-use-rejection-sampling", "rejection-sampling", "rejection-sampling",
          "`--speculative-use-rejection-sampling` is implemented only for EAGLE / EAGLE3 / NEXTN; SGLang's NGRAM " +
          "start-up does not check it, so it has no effect here.");
    }
    var width = ns.speculative_ngram_max_bfs_breadth;
    var page = pageSize(ns, given, add);
    if (width > 1 && page !== null && page > 1 && given.attention_backend && ns.attention_backend !== "flashinfer") {
      add("error", "--speculative-ngram-max-bfs-breadth", page === givenPage(ns, given) ? "ngram-page" : "ngram-page-forced", "page-size", "NGRAM with " +
          "`--speculative-ngram-max-bfs-breadth " + width + "` (> 1) and page size " + page + " works only with " +
          "`--attention-backend flashinfer`; got " + ns.attention_backend + ".");
    }
    var draft = given.speculative_num_draft_tokens ? ns.speculative_num_draft_tokens : F.ngram_draft_tokens;
    if (!given.speculative_num_draft_tokens) {
      add("info", "--speculative-num-draft-tokens", "ngram-defaults", "ngram", "`--speculative-num-draft-tokens` is " +
          "not set: SGLang uses " + F.ngram_draft_tokens + " for NGRAM.");
    }
    if (given.speculative_ngram_external_corpus_path) {
      var budget = ns.speculative_ngram_external_sam_budget;
      if (budget <= 0) {
        add("error", "--speculative-ngram-external-sam-budget", "ngram-corpus", "ngram",
            "`--speculative-ngram-external-sam-budget` must be positive with `--speculative-ngram-external-corpus-path`.");
      } else if (budget > draft - 1) {
        add("error", "--speculative-ngram-external-sam-budget", "ngram-corpus", "ngram",
            "`--speculative-ngram-external-sam-budget " + budget + "` must be at most draft tokens - 1 (" + (draft - 1) + ").");
      }
      if (ns.speculative_ngram_external_corpus_max_tokens <= 0) {
        add("error", "--speculative-ngram-external-corpus-max-tokens", "ngram-corpus", "ngram",
            "`--speculative-ngram-external-corpus-max-tokens` must be positive with `--speculative-ngram-external-corpus-path`.");
      }
    }
  }

  function dflash(ns, given, dp, add) {
    if (ns.speculative_draft_model_path === null || ns.speculative_draft_model_path === undefined) {
      add("error", "--speculative-draft-model-path", "dflash-draft", "dflash", "DFLASH needs `--speculative-draft-model-path`.");
    }
    if (dp && !ns.enable_dp_lm_head) {
      add("error", "--enable-dp-lm-head", "dflash-dp", "dp-attention", "DFLASH with DP attention needs `--enable-dp-lm-head`.");
    }
    if ((ns.pp_size || 1) !== 1) {
      add("error", "--pp-size", "dflash-pp", "dflash", "DFLASH supports only `--pp-size 1`.");
    }
    // _handle_dflash: the block size is --speculative-dflash-block-size, else --speculative-num-draft-tokens,
    // else the draft's config.json (not read here, so the window rule is left to the build's check).
    var block = given.speculative_dflash_block_size ? ns.speculative_dflash_block_size : null;
    var tokens = given.speculative_num_draft_tokens ? ns.speculative_num_draft_tokens : null;
    if (block !== null && block <= 0) {
      add("error", "--speculative-dflash-block-size", "dflash-block", "dflash",
          "`--speculative-dflash-block-size` must be positive (got " + block + ").");
      return;
    }
    if (block !== null && tokens !== null && tokens !== block) {
      add("error", "--speculative-num-draft-tokens", "dflash-block", "dflash", "For DFLASH, " +
          "`--speculative-num-draft-tokens` and `--speculative-dflash-block-size` must match (got " + tokens + " and " + block + ").");
      return;
    }
    var size = block !== null ? block : tokens;
    if (size !== null && given.speculative_draft_window_size && ns.speculative_draft_window_size > 0 &&
        ns.speculative_draft_window_size < size) {
      add("error", "--speculative-draft-window-size", "draft-window", "dflash", "`--speculative-draft-window-size " +
          ns.speculative_draft_window_size + "` is below the block size " + size + ": DFLASH needs a window of at least one block.");
    }
    // _handle_dflash (speculative_hook.py) replaces other values by 1 and logs a warning.
    [["speculative_num_steps", "--speculative-num-steps"], ["speculative_eagle_topk", "--speculative-eagle-topk"]]
      .forEach(function (knob) {
        if (given[knob[0]] && ns[knob[0]] !== 1) {
          add("warning", knob[1], "dflash-overrides", "dflash", "DFLASH drafts one block per step: SGLang replaces `" +
              knob[1] + " " + ns[knob[0]] + "` by 1 and logs a warning. Leave it out; the block size (`--speculative-num-draft-tokens`) " +
              "is what DFLASH uses.");
        }
      });
  }

  function dspark(ns, given, dp, add) {
    if (dp && !ns.enable_dp_lm_head) {
      add("error", "--enable-dp-lm-head", "dspark-dp", "dp-attention", "DSPARK with DP attention needs `--enable-dp-lm-head`.");
    }
    if ((ns.pp_size || 1) !== 1 && ns.disaggregation_mode !== "prefill") {
      add("error", "--pp-size", "dspark-pp", "dflash", "DSPARK supports `--pp-size` > 1 only on a prefill server " +
          "(`--disaggregation-mode prefill`).");
    }
    var gamma = given.speculative_dspark_block_size ? ns.speculative_dspark_block_size : null;
    if (gamma !== null && gamma <= 0) {
      add("error", "--speculative-dspark-block-size", "dspark-block", "dflash", "`--speculative-dspark-block-size` must be positive.");
    } else if (gamma !== null && given.speculative_num_draft_tokens && ns.speculative_num_draft_tokens !== gamma + 1) {
      add("error", "--speculative-num-draft-tokens", "dspark-block", "dflash", "For DSPARK, `--speculative-num-draft-tokens` " +
          "must equal `--speculative-dspark-block-size` + 1 = " + (gamma + 1) + ".");
    }
    if (given.speculative_num_draft_tokens && ns.speculative_num_draft_tokens < 2) {
      add("error", "--speculative-num-draft-tokens", "dspark-block", "dflash", "For DSPARK, `--speculative-num-draft-tokens` must be at least 2.");
    }
  }

  function uno(ns, given, dp, add) {
    var first = true;  // SGLang's _handle_uno stops at its first error: report that one
    function e(flag, msg) { if (first) add("error", flag, "uno", "value", msg); first = false; }
    if (given.speculative_draft_model_path) e("--speculative-draft-model-path", "UNO reuses the target model and does not accept `--speculative-draft-model-path`.");
    if (!ns.uno_lora_path) e("--uno-lora-path", "UNO needs `--uno-lora-path`.");
    if (ns.enable_deterministic_inference) e("--enable-deterministic-inference", "UNO does not support `--enable-deterministic-inference`.");
    if (ns.enable_strict_thinking) e("--enable-strict-thinking", "UNO does not support `--enable-strict-thinking`.");
    var q = ns.speculative_num_draft_tokens;
    if (q === null || q === undefined || q < 1) { e("--speculative-num-draft-tokens", "UNO needs `--speculative-num-draft-tokens` (a positive verify width)."); return; }
    var k = ns.speculative_eagle_topk === null || ns.speculative_eagle_topk === undefined ? 1 : ns.speculative_eagle_topk;
    if (k < 1) e("--speculative-eagle-topk", "UNO needs `--speculative-eagle-topk` of at least 1.");
    if (k > 1) {
      var steps = ns.speculative_num_steps;
      if (steps === null || steps === undefined) e("--speculative-num-steps", "UNO's tree mode (topk > 1) needs `--speculative-num-steps`.");
      else if (steps < 1) e("--speculative-num-steps", "UNO's tree mode needs a positive `--speculative-num-steps`.");
      else {
        var width = steps + 1, capacity = 1, nodes = 1;
        for (var s = 0; s < steps; s++) { nodes *= k; capacity += nodes; if (capacity >= q) break; }
        if (q < width) e("--speculative-num-draft-tokens", "UNO's tree mode needs draft tokens >= steps + 1 (" + width + ").");
        else if (q > 128) e("--speculative-num-draft-tokens", "UNO's tree mode supports at most 128 draft tokens.");
        else if (q * k > 2048) e("--speculative-num-draft-tokens", "UNO's tree mode needs draft tokens x topk <= 2048.");
        else if (q > capacity) e("--speculative-num-draft-tokens", "UNO cannot build " + q + " draft tokens from " + steps + " steps and topk " + k + ".");
        else if (q - 1 > k * Math.max(steps - 1, 0) + 1) e("--speculative-num-draft-tokens", "UNO cannot represent " + q + " draft tokens with " + steps + " steps and topk " + k + ".");
      }
      if (ns.enable_pdmux) e("--enable-pdmux", "UNO's tree mode does not support PDMux.");
      if (ns.enable_two_batch_overlap) e("--enable-two-batch-overlap", "UNO's tree mode does not support two-batch overlap.");
      if (ns.speculative_accept_threshold_single !== 1 || ns.speculative_accept_threshold_acc !== 1) {
        e("--speculative-accept-threshold-single", "UNO's tree mode needs both accept thresholds at 1.0.");
      }
    }
    if ((ns.tp_size || 1) !== 1 || (ns.pp_size || 1) !== 1) e(given.tp_size ? "--tp-size" : "--pp-size", "UNO needs `--tp-size 1` and `--pp-size 1`.");
    if (dp || (ns.attn_cp_size || 1) !== 1) e(dp || "--attn-dp-size", "UNO does not support DP attention or context parallelism.");
    if (ns.enable_lora || (ns.lora_paths && ns.lora_paths.length)) e("--enable-lora", "UNO does not support multi-LoRA serving.");
    if (ns.speculative_use_rejection_sampling) e("--speculative-use-rejection-sampling", "UNO does not use `--speculative-use-rejection-sampling`.");
    var pre = ns.prefill_attention_backend || ns.attention_backend, dec = ns.decode_attention_backend || ns.attention_backend;
    if (pre && dec && (pre !== "fa3" || dec !== "fa3")) e("--attention-backend", "UNO needs the fa3 attention backend for prefill and decode.");
  }

  // -- Environment variables ------------------------------------------------------
  function envDiags(env) {
    var out = [];
    env.forEach(function (pair) {
      var h = D.history.env[pair[0]];
      var last = h && h.events.length ? h.events[h.events.length - 1] : null;
      if (last && last.change === "removed") {
        out.push({ severity: "warning", flag: pair[0], rule: "env-removed", link: historyAnchor(pair[0]),
                   message: "SGLang " + D.version + " does not read `" + pair[0] + "`: it is gone from SGLang's " +
                            "code since " + last.release + ", so setting it changes nothing." });
      }
    });
    return out;
  }

  // -- The whole check ------------------------------------------------------------
  function check(text) {
    var cmd = findCommand(String(text || ""));
    if (!cmd) return { command: false, entry: null, diagnostics: [] };
    var diags = envDiags(cmd.env);
    if (cmd.entry.indexOf("python -m ") === 0 && cmd.entry !== "python -m sglang.launch_server") {
      return { command: false, entry: cmd.entry, diagnostics: diags };
    }
    if (cmd.args.indexOf("-h") >= 0 || cmd.args.indexOf("--help") >= 0) return { command: true, entry: cmd.entry, diagnostics: diags };
    if (cmd.unbalanced) {
      diags.push({ severity: "error", flag: cmd.openFlag, rule: "unbalanced-quote", link: null, message: "A quote is " +
                   "not closed" + (cmd.openFlag ? " in the value of `" + cmd.openFlag + "`" : "") + ": the shell would wait for the rest of the command, so the words after it are not " +
                   "what SGLang receives. Close the quote." });
    }
    var p = parse(sglangArgv(cmd.entry, cmd.args));
    diags = diags.concat(p.diags);
    // A misspelt or ambiguous --speculative-draft... flag was an attempt to give the draft (speccheck/check.py).
    p.given.draft_misspelt = p.diags.some(function (d) {
      return d.severity === "error" && d.flag && d.flag.indexOf("--speculative-draft") === 0;
    });
    if (!p.unresolved) diags = diags.concat(rules(p.ns, p.given, cmd.arch));
    else diags.push({ severity: "warning", flag: null, rule: "unresolved", link: null, message: "Part of the command is a " +
                      "shell variable that may hold more flags, so the start-up rules were not applied." });
    return { command: true, entry: cmd.entry, diagnostics: diags };
  }
  window.sglangCheck = check;

  // -- The page -----------------------------------------------------------------------
  // Text with `code` spans, as DOM nodes appended to el.
  function fill(el, text) {
    el.textContent = "";
    String(text).split("`").forEach(function (part, k) {
      if (k % 2) { var c = document.createElement("code"); c.textContent = part; el.appendChild(c); }
      else el.appendChild(document.createTextNode(part));
    });
  }

  function render(root, result) {
    var out = root.querySelector("[data-out=results]");
    var summary = root.querySelector("[data-out=summary]");
    out.textContent = "";
    var text = root.querySelector("textarea").value;
    summary.className = "check-command__summary";
    if (!text.trim()) { summary.textContent = "Paste a command to check it."; return; }
    if (!result.command) {
      fill(summary, result.entry
        ? "This is `" + result.entry + "`, not an SGLang server command. This page checks `python -m sglang.launch_server` and `sglang serve` commands."
        : "No SGLang server command found. Paste a command that starts with `python -m sglang.launch_server`, `python3 -m sglang.launch_server` or `sglang serve` (environment variables before it are fine).");
      summary.className = "check-command__summary check-command__summary--none";
      return;
    }
    var errors = result.diagnostics.filter(function (d) { return d.severity === "error"; }).length;
    var warnings = result.diagnostics.filter(function (d) { return d.severity === "warning"; }).length;
    summary.textContent = errors
      ? errors + (errors === 1 ? " problem" : " problems") + ": SGLang " + D.version + " would refuse to start with this command."
      : "No problems found: SGLang " + D.version + " accepts these flags and start-up rules." + (warnings ? " " + warnings + " warning(s) below." : "");
    summary.className = "check-command__summary check-command__summary--" + (errors ? "error" : "ok");
    var order = { error: 0, warning: 1, info: 2 };
    result.diagnostics.slice().sort(function (a, b) { return order[a.severity] - order[b.severity]; }).forEach(function (d) {
      var li = document.createElement("li");
      li.className = "check-command__item check-command__item--" + d.severity;
      var tag = document.createElement("strong");
      tag.textContent = { error: "Error", warning: "Warning", info: "SGLang will set" }[d.severity] + ": ";
      li.appendChild(tag);
      var msg = document.createElement("span");
      fill(msg, d.message);
      li.appendChild(msg);
      if (d.link) {
        li.appendChild(document.createTextNode(" "));
        var a = document.createElement("a");
        a.href = d.link; a.textContent = "Why";
        a.setAttribute("aria-label", "Why: " + d.rule.replace(/-/g, " ") + (d.flag ? " (" + d.flag + ")" : ""));
        li.appendChild(a);
      }
      out.appendChild(li);
    });
  }

  function setup(root) {
    var area = root.querySelector("textarea"), form = root.querySelector("form"), timer = null;
    function run() { clearTimeout(timer); render(root, check(area.value)); }
    form.addEventListener("submit", function (ev) { ev.preventDefault(); run(); });
    area.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 400); });
    run();
  }

  function start() {
    var root = document.getElementById("check-command");
    if (root) setup(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
