// ReDoc 2 draws Redocly's logo in its side menu from cdn.redoc.ly, with no option
// to turn it off; the site's Content-Security-Policy refuses it, and a reader's
// browser should ask nothing of another host. The image gets an empty picture of
// our own instead (the "API docs by Redocly" credit stays). Loaded before ReDoc.
(function () {
  "use strict";
  var remote = /^https:\/\/cdn\.redoc\.ly\//;
  var empty = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";
  var property = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src");
  Object.defineProperty(HTMLImageElement.prototype, "src", {
    get: property.get,
    set: function (value) {
      property.set.call(this, remote.test(value) ? empty : value);
    },
    configurable: true,
    enumerable: property.enumerable,
  });
  var setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (this instanceof HTMLImageElement && name === "src" && remote.test(value)) {
      value = empty;
    }
    return setAttribute.call(this, name, value);
  };
})();
