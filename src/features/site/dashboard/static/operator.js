// The dashboard's operator panel: with the operator's API key (kept in this tab only), the server
// wallets, the sponsorship pool, fee prices, keys, queue and requests, refreshed every few seconds.
// Loaded after dashboard.js, whose helpers it uses; data is written with textContent, never parsed as HTML.
'use strict';
(function () {
  var D = window.nightgateDashboard;
  var h = D.h,
    setText = D.setText,
    int = D.int,
    age = D.age,
    scaled = D.scaled,
    getJson = D.getJson,
    errText = D.errText,
    NAMES = D.NAMES;
  var KEY_STORE = 'nightgate.operatorKey';
  var OPERATOR_EVERY_MS = 5000;

  var op = { key: null, timer: null, metrics: true, wallets: true, usage: true, busy: false };
  var opBody = document.getElementById('op-body');
  var keyInput = document.getElementById('key');
  var forget = document.getElementById('key-forget');

  function table(headers, rows, attrs) {
    return h('div', { class: 'scroll' }, [
      h('table', attrs || null, [
        h('thead', null, [
          h(
            'tr',
            null,
            headers.map(function (t) {
              return h('th', { text: t });
            }),
          ),
        ]),
        h('tbody', null, rows),
      ]),
    ]);
  }
  function td(text, name) {
    return h('td', name ? { text: text, 'data-field': name } : { text: text });
  }
  /** A fee price as the ledger gives it (a float): four significant digits show a block's change. */
  function price(n) {
    return typeof n === 'number' && Number.isFinite(n) ? String(Number(n.toPrecision(4))) : '–';
  }

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

  /** `{name: n}` → "name n, …", most first; '–' when empty. */
  function counts(map) {
    var names = Object.keys(map || {}).sort(function (a, b) {
      return map[b] - map[a];
    });
    return names.length
      ? names
          .map(function (n) {
            return n + ' ' + int(map[n]);
          })
          .join(', ')
      : '–';
  }

  /** What a key may sponsor, in a few words, from its configuration (docs/policies.md). */
  function policyText(config) {
    if (!config) return '–';
    var p = config.policy;
    var parts = [];
    if (config.revoked) parts.push('revoked');
    if (config.admin) parts.push('admin');
    if (!p) parts.push('any transaction');
    else {
      if (p.allow) {
        var kinds = ['nightTransfers', 'shielded', 'deploys', 'dustRegistrations'].filter(function (k) {
          return p.allow[k];
        });
        var contracts = (p.allow.contracts || []).length;
        parts.push('only ' + (kinds.concat(contracts ? [contracts + (contracts === 1 ? ' contract' : ' contracts')] : []).join(', ') || 'nothing'));
      } else parts.push('any effect');
      if (p.perUser) {
        var caps = [];
        if (p.perUser.maxSponsorships) caps.push(int(p.perUser.maxSponsorships));
        if (p.perUser.maxDust) caps.push(scaled(p.perUser.maxDust, 15, 6) + ' DUST');
        parts.push(caps.join(' / ') + ' per user per ' + duration(p.perUser.windowMs));
      }
      if (p.validFrom) parts.push('from ' + p.validFrom.slice(0, 10));
      if (p.validUntil) parts.push('until ' + p.validUntil.slice(0, 10));
      if (p.webhook) parts.push('webhook (' + p.webhook.onTimeout + ' on timeout)');
    }
    if (config.maxFee) parts.push('fee ≤ ' + scaled(config.maxFee, 15, 6) + ' DUST');
    return parts.join('; ');
  }

  /** `ms` as the largest whole unit: "1 d", "6 h", "30 min", "20 s". */
  function duration(ms) {
    var units = [
      [86400000, 'd'],
      [3600000, 'h'],
      [60000, 'min'],
      [1000, 's'],
    ];
    for (var i = 0; i < units.length; i++) if (ms >= units[i][0] && ms % units[i][0] === 0) return ms / units[i][0] + ' ' + units[i][1];
    return int(ms) + ' ms';
  }

  /** An amount with its unit; its exact figure in the smallest unit in the title. */
  function amount(text, decimals, unit, small, name) {
    var shown = scaled(text, decimals, 6);
    var cell = td(shown === '–' ? '–' : (shown === '0' && text !== '0' ? '< 0.000001' : shown) + ' ' + unit, name);
    if (shown !== '–') cell.title = text + ' ' + small;
    return cell;
  }

  /** Puts `text` on the clipboard: the Clipboard API where the page is a secure context, else a selected textarea. */
  function copy(text, btn) {
    function said(ok) {
      btn.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(function () {
        btn.textContent = 'Copy';
      }, 1500);
    }
    function bySelection() {
      var area = h('textarea', { value: text, readOnly: true, class: 'offscreen' });
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try {
        ok = document.execCommand('copy');
      } catch (_e) {
        ok = false;
      }
      area.remove();
      said(ok);
    }
    if (navigator.clipboard && window.isSecureContext)
      navigator.clipboard.writeText(text).then(function () {
        said(true);
      }, bySelection);
    else bySelection();
  }

  /** A NIGHT address, shortened to its head…tail on screen; the whole is its text (a selection copies it), its title and what Copy copies. */
  function addressCell(a) {
    if (!a) return h('td', { class: 'muted', text: 'not read yet', 'data-field': 'address' });
    var btn = h('button', { type: 'button', class: 'copy', text: 'Copy', title: 'Copy ' + a, 'data-field': 'copy' });
    btn.addEventListener('click', function () {
      copy(a, btn);
    });
    return h('td', { class: 'addr-cell' }, [
      h('span', { class: 'addr', title: a, 'data-field': 'address' }, [
        h('span', { class: 'addr-head', text: a.slice(0, -6) }),
        h('span', { text: a.slice(-6) }),
      ]),
      btn,
    ]);
  }

  /** What `nightgate wallet status` says of a wallet: registered, or what keeps it from generating DUST and what to do. */
  function walletState(w, network) {
    if (w.problem === 'no NIGHT') return { text: 'No NIGHT — send NIGHT to ' + (w.address || 'its NIGHT address'), state: 'no-night' };
    if (w.problem === 'unregistered' || w.registered === false)
      return { text: 'Unregistered — run: ', command: 'nightgate wallet register --network ' + network, state: 'unregistered' };
    if (w.registered) return { text: 'registered', state: 'registered' };
    return { text: 'not read yet', state: 'unknown' };
  }

  /** GET /wallet-status: per network, each server wallet's NIGHT address, NIGHT, DUST and registration. */
  function walletsSection(wallets) {
    var out = [h('h3', { text: 'Server wallets' })];
    var stuck = 0;
    Object.keys(wallets).forEach(function (n) {
      var w = wallets[n],
        list = w.wallets || [];
      var rows = list.map(function (x) {
        var s = walletState(x, n);
        if (s.state === 'no-night' || s.state === 'unregistered') stuck++;
        var nightUtxos = typeof x.nightUtxos === 'number' ? int(x.nightUtxos) + (x.idleNightUtxos ? ' (' + int(x.idleNightUtxos) + ' idle)' : '') : '–';
        var idle = td(nightUtxos, 'night-utxos');
        if (x.idleNightUtxos) idle.title = x.idleNightUtxos + ' of them generate no DUST until the pool keeper splits them';
        var state = h(
          'td',
          { class: 'state ' + (s.state === 'registered' ? 'ok' : s.state === 'unknown' ? 'muted' : 'warn'), 'data-field': 'state', 'data-state': s.state },
          [s.text, s.command ? h('code', { text: s.command }) : null],
        );
        return h('tr', { 'data-wallet': String(x.index), class: s.state === 'registered' || s.state === 'unknown' ? '' : 'warn' }, [
          td(String(x.index), 'index'),
          addressCell(x.address),
          amount(x.night, 6, 'NIGHT', 'STAR', 'night'),
          idle,
          amount(x.balance, 15, 'DUST', 'SPECK', 'dust'),
          td(int(x.utxos), 'dust-utxos'),
          state,
        ]);
      });
      var read = w.walletsReadAt
        ? 'NIGHT and registration read at ' + new Date(w.walletsReadAt).toLocaleTimeString('en-GB') + ' (once a block).'
        : 'NIGHT and registration not read yet (the server reads them once a block).';
      out.push(h('h4', { text: NAMES[n] || n }));
      out.push(
        rows.length
          ? table(['Wallet', 'NIGHT address', 'NIGHT', 'NIGHT UTXOs', 'DUST', 'DUST UTXOs', 'State'], rows, { 'data-wallets': n })
          : h('p', { class: 'small muted', 'data-wallets': n, text: 'No server wallet on this network.' }),
      );
      out.push(h('p', { class: 'small muted', 'data-field': 'wallets-read', text: read }));
    });
    if (stuck)
      out.splice(
        1,
        0,
        h('p', {
          class: 'warn-note',
          'data-field': 'wallet-warning',
          text: (stuck === 1 ? '1 server wallet' : stuck + ' server wallets') + ' cannot generate DUST: see State below.',
        }),
      );
    return out;
  }

  /** GET /usage: per key, its requests since start and what its DUST paid for in the window. */
  function keysSection(usage) {
    var rows = usage.keys.map(function (k) {
      var req = k.requests;
      var refused = req
        ? Object.keys(req.refused).reduce(function (sum, c) {
            return sum + req.refused[c];
          }, 0)
        : null;
      var shown = scaled(k.dust, 15, 6);
      var dust = td((shown === '0' && k.dust !== '0' ? '< 0.000001' : shown) + ' DUST', 'dust');
      dust.title = k.dust + ' SPECK';
      return h('tr', { 'data-key': k.keyId }, [
        td(k.keyId),
        td(req ? int(req.total) : '–', 'requests'),
        td(req ? (refused ? int(refused) + ' · ' + counts(req.refused) : '0') : '–', 'refused'),
        td(int(k.sponsorships), 'sponsorships'),
        dust,
        td(int(k.expired), 'expired'),
        td(counts(k.refusals), 'rules'),
        td(policyText(k.config), 'policy'),
      ]);
    });
    var days = Math.round((Date.parse(usage.to) - Date.parse(usage.from)) / 86400000);
    return [
      h('h3', { text: 'Keys' }),
      table(['Key', 'Requests', 'Refused by code', 'Sponsorships', 'DUST', 'Expired', 'Refused by rule', 'May sponsor'], rows, { 'data-field': 'keys' }),
      h('p', {
        class: 'small muted',
        text:
          'Sponsorships, DUST and refusals by policy rule over the last ' +
          days +
          ' days (UTC days); requests since the server started. An admin key sees every key.',
      }),
    ];
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
