// Progressive enhancement of citation blocks: a "Copy" button per block copies its
// text and says "Copied" through a live region. Without this file the buttons stay
// hidden and the text in each <pre> is there to select by hand.
(function () {
  "use strict";
  var buttons = document.querySelectorAll("[data-copy-target]");
  var status = document.querySelector("[data-copy-status]");
  if (!buttons.length) return;

  // The older route for pages served without a secure context (plain HTTP).
  function copyBySelection(element) {
    var selection = window.getSelection();
    var range = document.createRange();
    range.selectNodeContents(element);
    selection.removeAllRanges();
    selection.addRange(range);
    var done = false;
    try { done = document.execCommand("copy"); } catch (e) { done = false; }
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function copy(element) {
    var text = element.textContent;
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () {
        return copyBySelection(element);
      });
    }
    return copyBySelection(element);
  }

  function announce(message) {
    if (!status) return;
    // Clear first so that the same message twice is read out twice.
    status.textContent = "";
    window.setTimeout(function () { status.textContent = message; }, 50);
  }

  Array.prototype.forEach.call(buttons, function (button) {
    var target = document.getElementById(button.getAttribute("data-copy-target"));
    if (!target) return;
    var label = button.getAttribute("data-copy-label") || "Text";
    var idle = button.innerHTML;
    var timer = null;
    button.hidden = false;
    button.addEventListener("click", function () {
      copy(target).then(function () {
        button.textContent = "Copied";
        announce("Copied " + label);
      }, function () {
        announce("Could not copy; the " + label + " is selected, copy it with your keyboard");
      }).then(function () {
        window.clearTimeout(timer);
        timer = window.setTimeout(function () { button.innerHTML = idle; }, 2000);
      });
    });
  });
})();
