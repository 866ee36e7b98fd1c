/*
 * Speculative decoding speedup calculator (explanation/speedup page).
 *
 * Formulas: Leviathan et al. 2023, "Fast Inference from Transformers via Speculative
 * Decoding" (arXiv 2211.17192), the same ones the expected-speedup notebook checks:
 *   expected tokens per verification step  E = (1 - a^(g+1)) / (1 - a)   (g + 1 when a = 1)
 *   expected wall-time speedup             S = E / (g * c + 1)
 * a = acceptance rate, g = draft tokens per step, c = draft step cost / target step cost.
 * Given a measured accept length instead of a, a is found by bisection (E grows with a).
 * Plain JavaScript, no dependencies; the form works with the keyboard alone.
 */
(function () {
  "use strict";

  function expectedTokens(a, g) {
    if (a >= 1) return g + 1;
    return (1 - Math.pow(a, g + 1)) / (1 - a);
  }

  function acceptanceFromAcceptLength(tau, g) {
    var lo = 0, hi = 1;
    for (var i = 0; i < 60; i++) {
      var mid = (lo + hi) / 2;
      if (expectedTokens(mid, g) < tau) lo = mid; else hi = mid;
    }
    return (lo + hi) / 2;
  }

  // Reads a number from an input; returns NaN for empty or malformed text.
  function readNumber(input) {
    var text = input.value.trim().replace(",", ".");
    return text === "" || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? NaN : Number(text);
  }

  function setup(root) {
    var form = root.querySelector("form");
    var fields = {
      a: root.querySelector("[name=a]"),
      tau: root.querySelector("[name=tau]"),
      g: root.querySelector("[name=g]"),
      c: root.querySelector("[name=c]"),
    };
    var out = {
      tokens: root.querySelector("[data-out=tokens]"),
      speedup: root.querySelector("[data-out=speedup]"),
      a: root.querySelector("[data-out=a]"),
      log: root.querySelector("[data-out=log]"),
      error: root.querySelector("[data-out=error]"),
    };

    function mode() {
      return form.querySelector("[name=mode]:checked").value;
    }

    function showMode() {
      root.querySelectorAll("[data-mode]").forEach(function (el) {
        el.hidden = el.getAttribute("data-mode") !== mode();
      });
    }

    function fail(input, message) {
      input.setAttribute("aria-invalid", "true");
      out.error.textContent = message;
      ["tokens", "speedup", "a", "log"].forEach(function (k) { out[k].textContent = "–"; });
    }

    function update() {
      Object.keys(fields).forEach(function (k) { fields[k].removeAttribute("aria-invalid"); });
      out.error.textContent = "";
      var g = readNumber(fields.g);
      var c = readNumber(fields.c);
      if (!(Number.isInteger(g) && g >= 1 && g <= 64)) return fail(fields.g, "Draft length g must be a whole number from 1 to 64.");
      if (!(c >= 0 && c <= 10)) return fail(fields.c, "Cost ratio c must be a number from 0 to 10.");
      var a, tokens;
      if (mode() === "rate") {
        a = readNumber(fields.a);
        if (!(a >= 0 && a <= 1)) return fail(fields.a, "Acceptance rate a must be a number from 0 to 1.");
        tokens = expectedTokens(a, g);
      } else {
        tokens = readNumber(fields.tau);
        if (!(tokens >= 1 && tokens <= g + 1)) {
          return fail(fields.tau, "With g = " + g + " the accept length must lie between 1 and " + (g + 1) + ".");
        }
        a = acceptanceFromAcceptLength(tokens, g);
      }
      out.tokens.textContent = tokens.toFixed(3);
      out.speedup.textContent = (tokens / (g * c + 1)).toFixed(2) + "×";
      out.a.textContent = a.toFixed(3);
      out.log.textContent = "accept len: " + tokens.toFixed(2) + ", accept rate: " + ((tokens - 1) / g).toFixed(2);
    }

    form.addEventListener("input", function () { showMode(); update(); });
    form.addEventListener("change", function () { showMode(); update(); });
    form.addEventListener("submit", function (event) { event.preventDefault(); update(); });
    showMode();
    update();
  }

  function init() {
    document.querySelectorAll(".spec-calc").forEach(setup);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
