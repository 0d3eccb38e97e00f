// Progressive enhancement of the faceted pages: facet links, chips and the search
// form update the results in place and keep the URL (and the back button) in step.
// Without this file every control is a plain link or GET form and works the same.
(function () {
  "use strict";
  var results = document.querySelector("[data-results]");
  if (!results || !window.fetch || !window.history.pushState) return;
  var form = document.querySelector("[data-facet-form]");

  function swap(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.querySelector("[data-results]");
    var freshForm = doc.querySelector("[data-facet-form]");
    if (!fresh) return false;
    results.innerHTML = fresh.innerHTML;
    if (form && freshForm) form.innerHTML = freshForm.innerHTML;
    document.title = doc.title;
    var count = results.querySelector(".count");
    if (count) { count.setAttribute("tabindex", "-1"); count.focus({ preventScroll: true }); }
    return true;
  }

  function load(url, push) {
    results.setAttribute("aria-busy", "true");
    return fetch(url, { headers: { "X-Requested-With": "fetch" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        if (!swap(html)) { window.location.assign(url); return; }
        if (push) window.history.pushState({ facets: true }, "", url);
      })
      .catch(function () { window.location.assign(url); })
      .finally(function () { results.removeAttribute("aria-busy"); });
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest("a[data-facet-link]");
    if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    load(link.href, true);
  });

  if (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var params = new URLSearchParams(new FormData(form));
      load(window.location.pathname + "?" + params.toString(), true);
    });
  }

  window.addEventListener("popstate", function () { load(window.location.href, false); });
})();
