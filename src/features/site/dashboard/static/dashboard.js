// The live dashboard at `/`. Served by nightgate itself under a Content-Security-Policy that runs
// scripts from this server only: no inline code, no CDN. Everything shown comes from this
// server's own routes; data is written with textContent, never parsed as HTML.
// Loaded after dashboard-helpers.js and dashboard-chart.js, whose parts it uses.
'use strict';
(function () {
  var NG = window.nightgate;
  var h = NG.helpers.h,
    field = NG.helpers.field,
    setText = NG.helpers.setText,
    int = NG.helpers.int,
    age = NG.helpers.age,
    scaled = NG.helpers.scaled,
    getJson = NG.helpers.getJson,
    errText = NG.helpers.errText,
    NAMES = NG.helpers.NAMES;
  var HISTORY = NG.chart.HISTORY,
    draw = NG.chart.draw,
    plotWidth = NG.chart.plotWidth;
  var NETWORKS = (document.body.dataset.networks || '').split(',').filter(Boolean);
  /** Block lookups in flight per network: they reach the indexer, so one at a time. */
  var FETCHES = 1;
  /** recent-transactions' largest page. */
  var TX_PAGE = 100;

  // ---- network cards -------------------------------------------------------------------------
  var cards = {};

  function card(name) {
    var chart = h('div', { class: 'chart', 'data-field': 'chart' });
    var root = h('article', { class: 'net', 'data-network': name }, [
      h('header', null, [
        h('h2', { text: NAMES[name] || name }),
        h('span', { class: 'pill', 'data-field': 'status' }, [
          h('span', { class: 'live', 'data-field': 'live', title: 'push channel' }),
          h('span', { 'data-field': 'status-text', text: 'connecting' }),
        ]),
      ]),
      h('div', { class: 'tip' }, [
        h('div', null, [h('span', { class: 'label', text: 'Tip height' }), h('span', { class: 'big', 'data-field': 'height', text: '–' })]),
        h('div', null, [h('span', { class: 'label', text: 'Age' }), h('span', { class: 'val', 'data-field': 'age', text: '–' })]),
        h('div', null, [h('span', { class: 'label', text: 'Protocol · ledger' }), h('span', { class: 'val', 'data-field': 'protocol', text: '–' })]),
      ]),
      chart,
      h('p', { class: 'legend small muted' }, [
        h('span', { class: 'key tx' }),
        'transactions per block ',
        h('span', { class: 'key bt' }),
        'block time, last ' + HISTORY + ' blocks',
      ]),
      h('div', { class: 'epoch' }, [
        h('div', { class: 'row' }, [h('span', { 'data-field': 'epoch', text: 'Epoch –' }), h('span', { 'data-field': 'epoch-left', text: '' })]),
        h('div', { class: 'progress', role: 'progressbar' }, [h('div', { class: 'fill', 'data-field': 'epoch-fill' })]),
      ]),
      h('dl', { class: 'facts' }, [
        h('dt', { text: 'Uptime' }),
        h('dd', { 'data-field': 'uptime', text: '–' }),
        h('dt', { text: 'Average block time' }),
        h('dd', { 'data-field': 'block-time', text: '–' }),
        h('dt', { text: 'Blocks per day (est.)' }),
        h('dd', { 'data-field': 'daily', text: '–' }),
        h('dt', { text: 'NIGHT supply' }),
        h('dd', { 'data-field': 'supply', text: '–' }),
        h('dt', { text: 'Source' }),
        h('dd', { 'data-field': 'source', text: '–' }),
      ]),
      h('p', { class: 'err', 'data-field': 'error', hidden: true }),
    ]);
    // ts: block timestamps (ms) by height; txs: transactions per block by height.
    return {
      name: name,
      root: root,
      chartEl: chart,
      plot: null,
      summary: null,
      receivedAt: 0,
      ts: new Map(),
      txs: new Map(),
      txsBusy: false,
      txsAgain: false,
      queue: [],
      queued: new Set(),
      running: 0,
      ws: null,
      retry: 0,
      drawPending: false,
    };
  }

  function showError(c, text) {
    var e = field(c.root, 'error');
    e.hidden = !text;
    e.textContent = text || '';
  }

  /** No summary yet: the card says why; the push channel stays open and fills it on the first block. */
  function down(c, why) {
    showError(c, why);
    if (c.summary) return;
    field(c.root, 'status').className = 'pill down';
    setText(c.root, 'status-text', 'no data');
  }

  function apply(c, s) {
    if (!s?.latestBlock) return;
    var previous = c.summary;
    c.summary = s;
    c.receivedAt = Date.now();
    var tip = s.latestBlock;
    var hEl = setText(c.root, 'height', int(tip.height));
    hEl.setAttribute('data-value', String(tip.height));
    c.root.setAttribute('data-height', String(tip.height));
    setText(c.root, 'protocol', tip.protocolVersion + ' · ' + (tip.ledger || s.ledger));
    var pill = field(c.root, 'status');
    pill.className = 'pill ' + s.status;
    setText(c.root, 'status-text', s.status + (s.dataAgeSeconds > 10 ? ' · data ' + age(s.dataAgeSeconds) + ' old' : ''));
    var up = s.uptime;
    setText(
      c.root,
      'uptime',
      up
        ? up.status + ' · score ' + up.score.toFixed(2) + (up.epochUtilization !== null ? ' · epoch ' + Math.round(up.epochUtilization * 100) + '%' : '')
        : '–',
    );
    var bt = s.blockTime;
    setText(c.root, 'block-time', bt && bt.averageSeconds !== null ? bt.averageSeconds.toFixed(2) + ' s (target ' + bt.targetSeconds + ' s)' : '–');
    setText(c.root, 'daily', s.blocksProduced && s.blocksProduced.estimatedDaily !== null ? int(s.blocksProduced.estimatedDaily) : '–');
    setText(c.root, 'supply', s.nightSupply ? scaled(s.nightSupply.totalSmallestUnit, s.nightSupply.decimals, 0) + ' NIGHT' : '–');
    setText(c.root, 'source', s.network ? s.network.source : '–');
    showError(c, '');
    tick(c);
    c.ts.set(tip.height, Date.parse(tip.timestamp));
    if (!previous || previous.latestBlock.height !== tip.height) refreshTxs(c);
  }

  /** Age and epoch move between blocks: counted from the moment the summary arrived, not the browser's clock against the chain's. */
  function tick(c) {
    var s = c.summary;
    if (!s) return;
    var since = (Date.now() - c.receivedAt) / 1000;
    setText(c.root, 'age', age(s.latestBlock.ageSeconds + since));
    var e = s.epoch;
    if (e) {
      var elapsed = Math.min(e.durationSeconds, e.elapsedSeconds + since);
      setText(c.root, 'epoch', 'Epoch ' + int(e.number) + ' · ' + Math.floor((elapsed / e.durationSeconds) * 100) + '%');
      setText(c.root, 'epoch-left', age(e.durationSeconds - elapsed) + ' left');
      field(c.root, 'epoch-fill').style.width = ((elapsed / e.durationSeconds) * 100).toFixed(2) + '%';
    } else {
      setText(c.root, 'epoch', 'Epoch: not known for this network');
      setText(c.root, 'epoch-left', '');
    }
  }

  // Transactions per block and most timestamps come from recent-transactions, which the server renders
  // once per block from the blocks it keeps (no indexer request); each pushed summary brings its tip's
  // timestamp. Only a block of the first screen that carries no transaction is looked up, one at a time.
  function refreshTxs(c) {
    if (c.txsBusy) {
      c.txsAgain = true;
      return;
    }
    c.txsBusy = true;
    getJson('/api/v1/' + c.name + '/recent-transactions?limit=' + TX_PAGE)
      .then(
        function (res) {
          if (res.status !== 200 || !c.summary) return;
          var tip = c.summary.latestBlock.height;
          var list = res.body.transactions;
          var counts = new Map();
          list.forEach(function (tx) {
            counts.set(tx.blockHeight, (counts.get(tx.blockHeight) || 0) + 1);
            c.ts.set(tx.blockHeight, Date.parse(tx.timestamp));
          });
          // A full page may have cut the oldest block short: counts are exact above it only.
          var exactFrom = list.length < TX_PAGE ? 0 : list[list.length - 1].blockHeight + 1;
          for (var height = Math.max(exactFrom, tip - HISTORY); height <= tip; height++) c.txs.set(height, counts.get(height) || 0);
        },
        function () {
          /* the next block asks again */
        },
      )
      .then(function () {
        c.txsBusy = false;
        if (c.txsAgain) {
          c.txsAgain = false;
          refreshTxs(c);
          return;
        }
        prune(c);
        lookUpMissing(c);
        draw(c);
      });
  }
  function prune(c) {
    if (!c.summary) return;
    var from = c.summary.latestBlock.height - HISTORY;
    [c.ts, c.txs].forEach(function (m) {
      m.forEach(function (_, height) {
        if (height < from) m.delete(height);
      });
    });
  }
  function lookUpMissing(c) {
    var tip = c.summary.latestBlock.height;
    for (var height = tip; height >= Math.max(0, tip - HISTORY); height--) {
      if ((!c.ts.has(height) || !c.txs.has(height)) && !c.queued.has(height)) {
        c.queued.add(height);
        c.queue.push(height);
      }
    }
    // Newest first: the chart fills from its right edge.
    c.queue.sort(function (a, b) {
      return b - a;
    });
    pump(c);
  }
  function pump(c) {
    while (c.running < FETCHES && c.queue.length > 0) {
      var height = c.queue.shift();
      if (c.ts.has(height) && c.txs.has(height)) {
        c.queued.delete(height);
        continue;
      }
      if (c.summary && height < c.summary.latestBlock.height - HISTORY) {
        c.queued.delete(height);
        continue;
      }
      c.running++;
      (function (height) {
        getJson('/api/v1/' + c.name + '/block?height=' + height)
          .then(
            function (res) {
              if (res.status === 200) {
                c.ts.set(height, Date.parse(res.body.timestamp));
                c.txs.set(height, res.body.transactionCount);
              }
            },
            function () {
              /* the next block asks again */
            },
          )
          .then(function () {
            c.running--;
            c.queued.delete(height);
            draw(c);
            pump(c);
          });
      })(height);
    }
  }

  function connect(c) {
    var url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/api/v1/' + c.name + '/ws';
    var ws = new WebSocket(url);
    c.ws = ws;
    ws.onopen = function () {
      c.retry = 0;
      field(c.root, 'live').className = 'live on';
    };
    ws.onmessage = function (ev) {
      try {
        apply(c, JSON.parse(ev.data));
      } catch (_e) {
        /* a message that is no summary is not ours to show */
      }
    };
    ws.onclose = function () {
      field(c.root, 'live').className = 'live';
      if (c.ws !== ws) return;
      // Back off to 30 s; the summary route fills in while the socket is down.
      var wait = Math.min(30000, 1000 * 2 ** c.retry++);
      setTimeout(function () {
        load(c).then(function () {
          connect(c);
        });
      }, wait);
    };
  }

  function load(c) {
    return getJson('/api/v1/' + c.name + '/summary').then(
      function (res) {
        if (res.status === 200) apply(c, res.body);
        else down(c, errText(res));
      },
      function (err) {
        down(c, 'unreachable: ' + err.message);
      },
    );
  }

  // ---- start ---------------------------------------------------------------------------------
  var grid = document.getElementById('networks');
  if (NETWORKS.length === 0) grid.appendChild(h('p', { class: 'note', text: 'This server serves no network statistics.' }));
  NETWORKS.forEach(function (n) {
    var c = card(n);
    cards[n] = c;
    grid.appendChild(c.root);
    // The push channel sends the current summary on open: the summary route is only a first paint.
    load(c).then(function () {
      connect(c);
    });
  });
  document.getElementById('foot').appendChild(h('span', { 'data-field': 'server', text: '' }));
  setInterval(function () {
    NETWORKS.forEach(function (n) {
      tick(cards[n]);
    });
  }, 1000);
  var resizing = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      NETWORKS.forEach(function (n) {
        var c = cards[n];
        if (c.plot) c.plot.setSize({ width: plotWidth(c), height: 150 });
      });
    }, 100);
  });
})();
