// The chart of a network card on the dashboard, on `window.nightgate.chart`: transactions per block
// and block time over the last blocks, drawn with uPlot (uplot.js, loaded before it).
'use strict';
(function () {
  /** Blocks kept for the chart: enough to see a trend, few enough to fetch at load without weight on the indexer. */
  var HISTORY = 30;
  /** A longer interval is a halt, not a block time (the statistics' average leaves it out the same way). */
  var HALT_S = 60;

  function chartData(c) {
    var heights = [],
      times = [],
      txs = [];
    var tip = c.summary ? c.summary.latestBlock.height : 0;
    for (var height = Math.max(0, tip - HISTORY + 1); height <= tip; height++) {
      var at = c.ts.get(height);
      var before = c.ts.get(height - 1);
      heights.push(height);
      var dt = at !== undefined && before !== undefined ? (at - before) / 1000 : null;
      times.push(dt !== null && dt >= 0 && dt <= HALT_S ? dt : null);
      var n = c.txs.get(height);
      txs.push(n === undefined ? null : n);
    }
    return [heights, times, txs];
  }

  function plotWidth(c) {
    return Math.max(240, c.chartEl.clientWidth || 300);
  }

  /** Draws `c`, a network card of dashboard.js (its summary, ts and txs by height, chartEl, plot), at the next frame. */
  function draw(c) {
    if (c.drawPending) return;
    c.drawPending = true;
    requestAnimationFrame(function () {
      c.drawPending = false;
      var data = chartData(c);
      if (!window.uPlot) return;
      if (!c.plot) {
        c.plot = new window.uPlot(
          {
            width: plotWidth(c),
            height: 150,
            cursor: { drag: { x: false, y: false } },
            legend: { show: false },
            scales: {
              x: { time: false },
              s: {
                range: function (_u, _min, max) {
                  return [0, Math.max(1, (max || 0) * 1.2)];
                },
              },
              n: {
                range: function (_u, _min, max) {
                  return [0, Math.max(4, (max || 0) * 1.25)];
                },
              },
            },
            series: [
              {
                label: 'Block',
                value: function (_u, v) {
                  return v === null || v === undefined ? '–' : String(v);
                },
              },
              {
                label: 'Transactions',
                scale: 'n',
                stroke: '#13978f',
                fill: 'rgba(19, 151, 143, .22)',
                width: 1,
                points: { show: false },
                paths: window.uPlot.paths.bars({ size: [0.6, 14] }),
                value: function (_u, v) {
                  return v === null || v === undefined ? '–' : String(v);
                },
              },
              {
                label: 'Block time',
                scale: 's',
                stroke: '#6d4aff',
                width: 2,
                spanGaps: false,
                points: { show: true, size: 4 },
                value: function (_u, v) {
                  return v === null || v === undefined ? '–' : v.toFixed(1) + ' s';
                },
              },
            ],
            axes: [
              {
                stroke: '#6b6886',
                grid: { stroke: '#f0eef7' },
                ticks: { show: false },
                values: function (_u, vals) {
                  return vals.map(function (v) {
                    return Number.isInteger(v) ? String(v) : '';
                  });
                },
              },
              {
                scale: 's',
                stroke: '#6d4aff',
                grid: { stroke: '#f0eef7' },
                size: 48,
                values: function (_u, vals) {
                  return vals.map(function (v) {
                    return (v >= 10 ? Math.round(v) : v) + ' s';
                  });
                },
              },
              {
                scale: 'n',
                side: 1,
                stroke: '#13978f',
                grid: { show: false },
                size: 34,
                values: function (_u, vals) {
                  return vals.map(function (v) {
                    return Number.isInteger(v) ? String(v) : '';
                  });
                },
              },
            ],
          },
          [data[0], data[2], data[1]],
          c.chartEl,
        );
      } else {
        c.plot.setData([data[0], data[2], data[1]]);
      }
    });
  }

  var NG = (window.nightgate = window.nightgate || {});
  NG.chart = Object.freeze({ HISTORY: HISTORY, draw: draw, plotWidth: plotWidth });
})();
