(function () {
  var box = document.getElementById("filter-text");
  var table = document.getElementById("receipt-table");
  if (!box || !table) { return; }
  var toggles = document.querySelectorAll("input[data-filter-outcome]");
  var shown = document.getElementById("filter-shown");
  function apply() {
    var text = box.value.toLowerCase();
    var wanted = {};
    toggles.forEach(function (t) { wanted[t.getAttribute("data-filter-outcome")] = t.checked; });
    var count = 0;
    table.querySelectorAll("tbody tr").forEach(function (row) {
      var outcome = row.getAttribute("data-outcome");
      var ok = (wanted[outcome] !== false) &&
        (text === "" || row.textContent.toLowerCase().indexOf(text) >= 0);
      row.hidden = !ok;
      if (ok) { count += 1; }
    });
    if (shown) { shown.textContent = String(count); }
  }
  box.addEventListener("input", apply);
  toggles.forEach(function (t) { t.addEventListener("change", apply); });
  // "show" in the by-check table: filter the receipt table to one check id, then jump to it.
  document.querySelectorAll("a[data-filter]").forEach(function (link) {
    link.addEventListener("click", function () {
      box.value = link.getAttribute("data-filter");
      toggles.forEach(function (t) { t.checked = true; });
      apply();
    });
  });
  var params = new URLSearchParams(window.location.hash.replace(/^#filter:/, ""));
  if (window.location.hash.indexOf("#filter:") === 0 && params.get("q") !== null) {
    box.value = params.get("q");
  }
  apply();
})();
