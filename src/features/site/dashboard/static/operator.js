// The dashboard's operator panel: with the operator's API key (kept in this tab only), the server
// wallets, the sponsorship pool, fee prices, keys, queue and requests, refreshed every few seconds.
// Loaded after dashboard-helpers.js and operator-tables.js, whose parts it uses; data is written
// with textContent, never parsed as HTML.
'use strict';
(function () {
  var NG = window.nightgate;
  var h = NG.helpers.h,
    setText = NG.helpers.setText,
    int = NG.helpers.int,
    age = NG.helpers.age,
    scaled = NG.helpers.scaled,
    getJson = NG.helpers.getJson,
    errText = NG.helpers.errText,
    NAMES = NG.helpers.NAMES;
  var table = NG.operatorTables.table,
    td = NG.operatorTables.td,
    price = NG.operatorTables.price,
    walletsSection = NG.operatorTables.walletsSection,
    keysSection = NG.operatorTables.keysSection;
  var KEY_STORE = 'nightgate.operatorKey';
  var OPERATOR_EVERY_MS = 5000;

  var op = { key: null, timer: null, metrics: true, wallets: true, usage: true, busy: false };
  var opBody = document.getElementById('op-body');
  var keyInput = document.getElementById('key');
  var forget = document.getElementById('key-forget');

  /** Prometheus text → [{name, labels, value}]. */
  function samples(text) {
    var out = [];
    text.split('\n').forEach(function (line) {
      if (line === '' || line[0] === '#') return;
      var m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
      if (!m) return;
      var labels = {};
      var re = /(\w+)="((?:[^"\\]|\\.)*)"/g,
        l;
      while ((l = re.exec(m[2] || '')) !== null) labels[l[1]] = l[2];
      out.push({ name: m[1], labels: labels, value: Number(m[3]) });
    });
    return out;
  }

  function renderOperator(wallets, health, metrics, notes, usage) {
    var parts = [];
    if (wallets) {
      var rows = Object.keys(wallets).map(function (n) {
        var w = wallets[n],
          pool = w.pool;
        return h('tr', { 'data-pool': n }, [
          td(NAMES[n] || n),
          td(w.sync?.phase ? w.sync.phase : '–', 'sync'),
          td(int(w.utxos.free), 'free'),
          td(int(w.utxos.reserved), 'reserved'),
          td(pool ? int(pool.live) + ' / ' + int(pool.target) : int(w.utxos.total), 'target'),
          td(scaled(w.balance, 15, 3) + ' DUST', 'balance'),
          td(pool ? pool.sustainableTxPerSecond.toFixed(2) + ' tx/s' : '–', 'rate'),
          td(
            pool
              ? pool.maintenance.state +
                  (pool.maintenance.pendingSplits ? ' · ' + pool.maintenance.pendingSplits + ' splits' : '') +
                  (pool.maintenance.reason ? ' · ' + pool.maintenance.reason : '')
              : 'off',
            'keeper',
          ),
          td(w.backlog ? w.backlog.blocks.toFixed(1) + ' / ' + int(w.backlog.limitBlocks) + ' blocks' : '–', 'backlog'),
          td(w.backlog ? int(w.backlog.expiredUnlanded) + ' of ' + int(w.backlog.landed + w.backlog.expiredUnlanded) : '–', 'expired-unlanded'),
        ]);
      });
      parts.push(
        h('h3', { text: 'Sponsorship pool' }),
        table(
          ['Network', 'Wallet sync', 'Free', 'Reserved', 'Held / target', 'DUST balance', 'Sustains', 'Keeper', 'Unlanded backlog', 'Expired unlanded'],
          rows,
          { 'data-field': 'pool' },
        ),
      );
      parts.push.apply(parts, walletsSection(wallets));
      var frows = Object.keys(wallets).map(function (n) {
        var f = wallets[n].fees,
          p = f ? f.prices : {};
        return h('tr', { 'data-fees': n }, [
          td(NAMES[n] || n),
          td(f ? int(f.atHeight) : 'not read yet', 'at-height'),
          td(price(p.overall), 'overall'),
          td(price(p.read), 'read'),
          td(price(p.compute), 'compute'),
          td(price(p.blockUsage), 'block-usage'),
          td(price(p.write), 'write'),
        ]);
      });
      parts.push(
        h('h3', { text: 'Fee prices' }),
        table(['Network', 'At block', 'Overall', 'Read', 'Compute', 'Block usage', 'Write'], frows, { 'data-field': 'fees' }),
      );
      parts.push(
        h('p', {
          class: 'small muted',
          text:
            "The tip's prices the wallets price each fee from: overall, the price of a full block in an average dimension; the " +
            'others, the factor of each dimension.',
        }),
      );
    }
    if (usage) parts.push.apply(parts, keysSection(usage));
    var left = [],
      right = [];
    var comps = health?.components;
    if (comps) {
      var pool = comps['worker-pool'],
        prover = comps.prover,
        sp = comps.sponsorship;
      var qrows = [];
      if (pool)
        qrows.push(
          h('tr', { 'data-field': 'worker-pool' }, [
            td('Worker pool'),
            td(int(pool.queueSize) + ' / ' + int(pool.maxQueue)),
            td(int(pool.running) + ' of ' + int(pool.threads)),
            td(int(pool.completed)),
            td(int(pool.failed)),
          ]),
        );
      if (prover?.networks) {
        Object.keys(prover.networks).forEach(function (n) {
          var p = prover.networks[n];
          qrows.push(h('tr', null, [td('Prover ' + n), td(p.backend + ' · ' + p.status), td(''), td(''), td('')]));
        });
      }
      if (metrics) {
        metrics
          .filter(function (s) {
            return s.name === 'nightgate_proving_queue_depth';
          })
          .forEach(function (s) {
            var cap = metrics.find(function (x) {
              return x.name === 'nightgate_proving_queue_capacity' && x.labels.backend === s.labels.backend;
            });
            qrows.push(h('tr', null, [td('Queue (' + s.labels.backend + ')'), td(int(s.value) + (cap ? ' / ' + int(cap.value) : '')), td(''), td(''), td('')]));
          });
      }
      left.push(h('h3', { text: 'Proving queue' }), table(['', 'Waiting / capacity', 'Running', 'Done', 'Failed'], qrows, { 'data-field': 'queue' }));
      if (sp)
        left.push(
          h('p', {
            class: 'small muted',
            text: 'Sponsorships: ' + int(sp.sponsored) + ' sponsored, ' + int(sp.failed) + ' failed, ' + int(sp.inFlight) + ' in flight (' + sp.status + ').',
          }),
        );
      setText(document, 'server', 'nightgate ' + health.version + ' · ' + health.status + ' · up ' + age(health.uptimeSeconds));
    }
    if (metrics) {
      var byRoute = {};
      metrics
        .filter(function (s) {
          return s.name === 'nightgate_http_requests_total';
        })
        .forEach(function (s) {
          var r = byRoute[s.labels.route] || (byRoute[s.labels.route] = { ok: 0, refused: 0 });
          if (/^[23]/.test(s.labels.status_class)) r.ok += s.value;
          else r.refused += s.value;
        });
      var rrows = Object.keys(byRoute)
        .sort(function (a, b) {
          return byRoute[b].ok + byRoute[b].refused - (byRoute[a].ok + byRoute[a].refused);
        })
        .slice(0, 12)
        .map(function (r) {
          return h('tr', null, [td(r), td(int(byRoute[r].ok)), td(int(byRoute[r].refused))]);
        });
      right.push(h('h3', { text: 'Requests by route' }), table(['Route', 'Answered', 'Refused / failed'], rrows, { 'data-field': 'requests' }));
      var erows = metrics
        .filter(function (s) {
          return s.name === 'nightgate_http_errors_total' && s.value > 0;
        })
        .sort(function (a, b) {
          return b.value - a.value;
        })
        .slice(0, 10)
        .map(function (s) {
          return h('tr', null, [td(s.labels.code), td(s.labels.status), td(int(s.value))]);
        });
      right.push(
        h('h3', { text: 'Refusals by code' }),
        erows.length ? table(['Code', 'Status', 'Count'], erows, { 'data-field': 'refusals' }) : h('p', { class: 'small muted', text: 'None since start.' }),
      );
    }
    parts.push(h('div', { class: 'cols' }, [h('div', null, left), h('div', null, right)]));
    notes.forEach(function (n) {
      parts.push(h('p', { class: 'gap', text: n }));
    });
    opBody.replaceChildren.apply(opBody, parts);
  }

  function refreshOperator() {
    if (!op.key || op.busy) return;
    op.busy = true;
    var headers = { 'X-API-Key': op.key };
    var notes = [];
    Promise.all([
      op.wallets ? getJson('/wallet-status', headers) : Promise.resolve(null),
      getJson('/health', headers),
      op.metrics
        ? fetch('/metrics', { headers: headers, cache: 'no-store' }).then(function (r) {
            return r.text().then(function (t) {
              return { status: r.status, text: t };
            });
          })
        : Promise.resolve(null),
      op.usage ? getJson('/usage?groupBy=day', headers) : Promise.resolve(null),
    ])
      .then(
        function (res) {
          var w = res[0],
            hl = res[1],
            m = res[2],
            u = res[3];
          if (hl.status === 401 || (w && w.status === 401) || (u && u.status === 401)) {
            stopOperator('This key was not accepted (401). Enter another.');
            return;
          }
          // A server without balancing or /usage, or a key /metrics does not serve: asked once, not every 5 s.
          if (w && w.status !== 200) {
            op.wallets = false;
            op.walletNote = 'Sponsorship pool: ' + errText(w);
          }
          if (m && m.status !== 200) {
            op.metrics = false;
            op.metricsNote =
              'Metrics: ' +
              (m.status === 403 ? 'this key may not read /metrics (metrics.keyIds) from this address' : 'HTTP ' + m.status) +
              ': requests, refusals and queue depth are not shown.';
          }
          if (u && u.status !== 200) {
            op.usage = false;
            op.usageNote = 'Keys: ' + errText(u);
          }
          if (op.walletNote) notes.push(op.walletNote);
          if (op.metricsNote) notes.push(op.metricsNote);
          if (op.usageNote) notes.push(op.usageNote);
          renderOperator(
            w && w.status === 200 ? w.body : null,
            hl.status === 200 ? hl.body : null,
            m && m.status === 200 ? samples(m.text) : null,
            notes,
            u && u.status === 200 ? u.body : null,
          );
        },
        function (err) {
          opBody.replaceChildren(h('p', { class: 'err', text: 'Operator data unreachable: ' + err.message }));
        },
      )
      .then(function () {
        op.busy = false;
      });
  }

  function startOperator(key) {
    op.key = key;
    op.metrics = true;
    op.wallets = true;
    op.usage = true;
    op.walletNote = op.metricsNote = op.usageNote = undefined;
    sessionStorage.setItem(KEY_STORE, key);
    forget.hidden = false;
    keyInput.value = '';
    keyInput.placeholder = 'key set for this tab';
    opBody.replaceChildren(h('p', { class: 'small muted', text: 'Loading…' }));
    clearInterval(op.timer);
    op.timer = setInterval(refreshOperator, OPERATOR_EVERY_MS);
    refreshOperator();
  }
  function stopOperator(message) {
    op.key = null;
    clearInterval(op.timer);
    sessionStorage.removeItem(KEY_STORE);
    forget.hidden = true;
    keyInput.placeholder = 'operator key';
    opBody.replaceChildren(message ? h('p', { class: 'err', text: message }) : h('span'));
  }

  document.getElementById('key-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var key = keyInput.value.trim();
    if (key) startOperator(key);
  });
  forget.addEventListener('click', function () {
    stopOperator('');
  });

  var saved = sessionStorage.getItem(KEY_STORE);
  if (saved) startOperator(saved);
})();
