// Helpers shared by the dashboard's scripts (dashboard.js, operator.js and their parts), on
// `window.nightgate.helpers`: building elements, formatting figures, fetching this server's JSON.
// Loaded first; data is written with textContent, never parsed as HTML.
'use strict';
(function () {
  /** The networks' names as shown. */
  var NAMES = { mainnet: 'Mainnet', preprod: 'Preprod', preview: 'Preview' };

  function h(tag, props, children) {
    var e = document.createElement(tag);
    if (props) {
      for (var k in props) {
        if (k === 'text') e.textContent = props[k];
        else if (k === 'class') e.className = props[k];
        else if (k.slice(0, 5) === 'data-') e.setAttribute(k, props[k]);
        else e[k] = props[k];
      }
    }
    (children || []).forEach(function (c) {
      if (c !== null && c !== undefined) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return e;
  }
  function field(root, name) {
    return root.querySelector('[data-field="' + name + '"]');
  }
  function setText(root, name, text) {
    var e = field(root, name);
    if (e && e.textContent !== text) e.textContent = text;
    return e;
  }
  function int(n) {
    return typeof n === 'number' ? n.toLocaleString('en-US') : '–';
  }
  function age(s) {
    if (typeof s !== 'number' || !Number.isFinite(s)) return '–';
    s = Math.max(0, Math.round(s));
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }
  /** A decimal string of `unit`s as a number of whole units with up to `digits` decimals (BigInt: SPECK overflow doubles). */
  function scaled(text, decimals, digits) {
    if (typeof text !== 'string' || !/^[0-9]+$/.test(text)) return '–';
    var v = BigInt(text);
    var unit = BigInt(10) ** BigInt(decimals);
    var whole = v / unit;
    var frac = (v % unit).toString().padStart(decimals, '0').slice(0, digits).replace(/0+$/, '');
    return whole.toLocaleString('en-US') + (frac ? '.' + frac : '');
  }
  function getJson(url, headers) {
    return fetch(url, { headers: headers || {}, cache: 'no-store' }).then(function (r) {
      return r.text().then(function (t) {
        var body = null;
        try {
          body = JSON.parse(t);
        } catch (_e) {
          body = t;
        }
        return { status: r.status, body: body };
      });
    });
  }
  function errText(res) {
    var b = res.body;
    return b && typeof b === 'object' && b.code ? b.code + ': ' + b.message : 'HTTP ' + res.status;
  }

  var NG = (window.nightgate = window.nightgate || {});
  NG.helpers = Object.freeze({
    h: h,
    field: field,
    setText: setText,
    int: int,
    age: age,
    scaled: scaled,
    getJson: getJson,
    errText: errText,
    NAMES: NAMES,
  });
})();
