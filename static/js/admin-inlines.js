// Progressive enhancement of the admin's inline tables. Without this file every
// position is typed and every printed name too; the server accepts both as typed.
//
// - An inline whose fieldset has the class "ordered-rows" gets "Move up" and "Move
//   down" buttons beside each row's position; a move renumbers the rows 1, 2, 3…
//   in their new order, and a row added at the end is numbered after the others.
// - In the authors' table (class "authors"), picking a member fills in the printed
//   name when it is blank, as the server does on save.
(function () {
  "use strict";

  function formRows(tbody) {
    return Array.prototype.slice.call(
      tbody.querySelectorAll("tr.form-row:not(.empty-form)")
    );
  }

  function positionOf(row) {
    return row.querySelector("td.field-position input");
  }

  function isDeleted(row) {
    var box = row.querySelector("td.delete input[type=checkbox]");
    return Boolean(box && box.checked);
  }

  function renumber(tbody) {
    var next = 1;
    formRows(tbody).forEach(function (row) {
      var input = positionOf(row);
      if (input && !isDeleted(row)) {
        input.value = String(next);
        next += 1;
      }
    });
  }

  // A row's errors are shown in a row of their own just before it: they move with it.
  function withErrors(row) {
    var before = row.previousElementSibling;
    if (before && before.classList.contains("row-form-errors")) return [before, row];
    return [row];
  }

  function move(row, step) {
    var tbody = row.parentNode;
    var rows = formRows(tbody);
    var other = rows[rows.indexOf(row) + step];
    if (!other) return;
    var moving = withErrors(row);
    var anchor = step < 0 ? withErrors(other)[0] : other.nextElementSibling;
    moving.forEach(function (element) {
      tbody.insertBefore(element, anchor);
    });
    renumber(tbody);
  }

  function addControls(row) {
    var cell = row.querySelector("td.field-position");
    if (!cell || cell.querySelector(".order-controls")) return;
    var controls = document.createElement("span");
    controls.className = "order-controls";
    [
      [-1, "\u2191", "Move up"],
      [1, "\u2193", "Move down"],
    ].forEach(function (spec) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = spec[1];
      button.title = spec[2];
      button.setAttribute("aria-label", spec[2]);
      button.addEventListener("click", function () {
        move(row, spec[0]);
        button.focus();
      });
      controls.appendChild(button);
    });
    cell.appendChild(controls);
  }

  function numberAfterTheOthers(row) {
    var input = positionOf(row);
    if (!input || input.value) return;
    var highest = 0;
    formRows(row.parentNode).forEach(function (other) {
      var value = parseInt((positionOf(other) || {}).value, 10);
      if (value > highest) highest = value;
    });
    input.value = String(highest + 1);
  }

  function fillName(select) {
    var row = select.closest("tr");
    var name = row && row.querySelector("td.field-name input");
    var option = select.options[select.selectedIndex];
    if (name && !name.value.trim() && option && option.value) {
      name.value = option.textContent.trim();
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("fieldset.ordered-rows tbody").forEach(function (tbody) {
      formRows(tbody).forEach(addControls);
    });
    var selector = "fieldset.authors td.field-person select";
    // The member picker (select2) announces a choice through jQuery's events only.
    if (window.django && window.django.jQuery) {
      window.django.jQuery(document).on("change", selector, function (event) {
        fillName(event.target);
      });
    } else {
      document.addEventListener("change", function (event) {
        if (event.target.matches(selector)) fillName(event.target);
      });
    }
  });

  document.addEventListener("formset:added", function (event) {
    var row = event.target;
    if (!row.closest("fieldset.ordered-rows")) return;
    addControls(row);
    numberAfterTheOthers(row);
  });
})();
