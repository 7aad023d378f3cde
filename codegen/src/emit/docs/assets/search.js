// Search over the index `search-index.js` puts in `window.COVENANT_SEARCH_INDEX`: each entry
// is [kind, name, detail, url relative to the site's folder, description]. A script file,
// not `fetch`, so search works from `file://`. Every word must be found in the name, the
// detail or the description; matches in names rank first.
(function () {
  "use strict";
  var input = document.getElementById("search");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  if (!input || !list || !status) return;
  var root = document.body.getAttribute("data-root") || "";
  var index = window.COVENANT_SEARCH_INDEX || [];
  var LIMIT = 50;
  var ORDER = { endpoint: 0, model: 1, "enum": 2, event: 3, "auth scheme": 4, field: 5, parameter: 6, value: 7 };
  var haystacks = index.map(function (e) {
    var described = e[4] || "";
    return {
      name: e[1].toLowerCase(),
      text: (e[1] + " " + e[2]).toLowerCase(),
      all: (e[1] + " " + e[2] + " " + described).toLowerCase().replace(/\s+/g, " "),
      described: described.replace(/\s+/g, " ")
    };
  });

  function rank(i, q, words) {
    var name = haystacks[i].name;
    if (name === q) return 0;
    if (name.indexOf(q) === 0) return 1;
    if (name.indexOf(q) >= 0) return 2;
    var text = haystacks[i].text;
    if (words.every(function (w) { return text.indexOf(w) >= 0; })) return 3;
    return 4;
  }

  // The words of the description around the first match, for a result found by it.
  function excerpt(i, words) {
    var text = haystacks[i].described;
    var at = text.toLowerCase().indexOf(words[0]);
    if (at < 0) return "";
    var start = Math.max(0, at - 40);
    var end = Math.min(text.length, at + words[0].length + 60);
    return (start > 0 ? "…" : "") + text.slice(start, end).trim() + (end < text.length ? "…" : "");
  }

  function search(query) {
    var q = query.trim().toLowerCase();
    if (!q) return [];
    var words = q.split(/\s+/);
    var found = [];
    for (var i = 0; i < index.length; i++) {
      var all = haystacks[i].all;
      if (words.every(function (w) { return all.indexOf(w) >= 0; })) found.push(i);
    }
    found.sort(function (a, b) {
      var ra = rank(a, q, words), rb = rank(b, q, words);
      if (ra !== rb) return ra - rb;
      var ka = ORDER[index[a][0]], kb = ORDER[index[b][0]];
      ka = ka === undefined ? 9 : ka;
      kb = kb === undefined ? 9 : kb;
      if (ka !== kb) return ka - kb;
      if (index[a][1].length !== index[b][1].length) return index[a][1].length - index[b][1].length;
      return a - b;
    });
    return found;
  }

  function span(cls, text) {
    var s = document.createElement("span");
    s.className = cls;
    s.textContent = text;
    return s;
  }

  function show(query) {
    var found = search(query);
    list.textContent = "";
    if (!query.trim()) {
      list.hidden = true;
      status.textContent = "";
      return;
    }
    found.slice(0, LIMIT).forEach(function (i) {
      var e = index[i];
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = root + e[3];
      a.appendChild(span("result-kind", e[0]));
      a.appendChild(document.createTextNode(" "));
      a.appendChild(span("result-name", e[1]));
      if (e[2]) {
        a.appendChild(document.createTextNode(" "));
        a.appendChild(span("result-detail", e[2]));
      }
      var words = query.trim().toLowerCase().split(/\s+/);
      if (rank(i, query.trim().toLowerCase(), words) === 4) {
        a.appendChild(document.createTextNode(" "));
        a.appendChild(span("result-excerpt", excerpt(i, words)));
      }
      li.appendChild(a);
      list.appendChild(li);
    });
    list.hidden = found.length === 0;
    status.textContent = found.length === 0
      ? "No results for " + query.trim()
      : found.length > LIMIT
        ? found.length + " results, the first " + LIMIT + " shown; arrow keys move through them"
        : found.length + (found.length === 1 ? " result" : " results") + "; arrow keys move through them";
  }

  function links() {
    return Array.prototype.slice.call(list.querySelectorAll("a"));
  }

  function hide() {
    list.hidden = true;
  }

  input.addEventListener("input", function () { show(input.value); });
  input.addEventListener("focus", function () { if (input.value.trim()) show(input.value); });
  input.addEventListener("keydown", function (ev) {
    var all = links();
    if (ev.key === "ArrowDown" && all.length) {
      ev.preventDefault();
      list.hidden = false;
      all[0].focus();
    } else if (ev.key === "Enter" && all.length) {
      ev.preventDefault();
      window.location.href = all[0].href;
    } else if (ev.key === "Escape") {
      input.value = "";
      show("");
    }
  });
  list.addEventListener("keydown", function (ev) {
    var all = links();
    var at = all.indexOf(document.activeElement);
    if (ev.key === "ArrowDown") {
      ev.preventDefault();
      if (at < all.length - 1) all[at + 1].focus();
    } else if (ev.key === "ArrowUp") {
      ev.preventDefault();
      if (at > 0) all[at - 1].focus(); else input.focus();
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      hide();
      input.focus();
    }
  });
  var box = input.closest("[role=search]") || input.parentNode;
  box.addEventListener("focusout", function (ev) {
    if (!ev.relatedTarget || !box.contains(ev.relatedTarget)) hide();
  });
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    var typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable);
    if (ev.key === "/" && !typing && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
      ev.preventDefault();
      input.focus();
    }
  });
})();
