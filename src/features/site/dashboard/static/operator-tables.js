// The tables of the dashboard's operator panel, on `window.nightgate.operatorTables`: the server
// wallets (NIGHT address, NIGHT, DUST, registration) and the keys (requests, sponsorships, policy).
// Loaded after dashboard-helpers.js, whose helpers it uses; data is written with textContent, never parsed as HTML.
'use strict';
(function () {
  var NG = window.nightgate;
  var h = NG.helpers.h,
    int = NG.helpers.int,
    scaled = NG.helpers.scaled,
    NAMES = NG.helpers.NAMES;

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

  NG.operatorTables = Object.freeze({ table: table, td: td, price: price, walletsSection: walletsSection, keysSection: keysSection });
})();
