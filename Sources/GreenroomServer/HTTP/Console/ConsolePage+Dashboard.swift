extension ConsolePage {
    /// The dashboard tab's script, served after ``script`` in the same file (it uses its
    /// helpers): every two seconds it reads this node's `/metrics` and the cluster's
    /// `/v1/nodes`, keeps the last three minutes, and draws each figure as a small SVG line
    /// chart. Rates and the delivery latency's quantiles come from the differences between
    /// two readings, as Prometheus's `rate` and `histogram_quantile` make them.
    static let dashboardScript = #"""

    // ---- Dashboard ----------------------------------------------------------------------
    const dashboard = { samples: [], interval: 2000, keep: 90, timer: null };
    const colors = ['#1d5c3a', '#d9822b', '#2f6fb0', '#a23b72', '#6b7280', '#b8860b'];

    function parseMetrics(text) {
      const values = {};
      for (const line of text.split('\n')) {
        if (!line || line.startsWith('#')) continue;
        const space = line.lastIndexOf(' ');
        values[line.slice(0, space)] = Number(line.slice(space + 1));
      }
      return values;
    }
    const metric = (sample, name) => sample.metrics[name] || 0;
    function rate(previous, sample, name) {
      const seconds = (sample.at - previous.at) / 1000;
      return seconds > 0 ? Math.max(0, metric(sample, name) - metric(previous, name)) / seconds : 0;
    }
    /// The q-quantile (ms) of the delivery latencies between two readings, interpolated
    /// within the bucket it falls in; null when nothing was delivered.
    function latency(previous, sample, q) {
      const prefix = 'greenroom_delivery_latency_seconds_bucket{le="';
      const buckets = Object.keys(sample.metrics).filter((key) => key.startsWith(prefix))
        .map((key) => ({ le: key.slice(prefix.length, -2), count: metric(sample, key) - metric(previous, key) }))
        .map((b) => ({ le: b.le === '+Inf' ? Infinity : Number(b.le), count: b.count }))
        .sort((a, b) => a.le - b.le);
      const total = buckets.length ? buckets[buckets.length - 1].count : 0;
      if (total <= 0) return null;
      const target = q * total;
      let lower = 0, below = 0;
      for (const bucket of buckets) {
        if (bucket.count >= target) {
          const upper = bucket.le === Infinity ? lower : bucket.le;
          const inside = bucket.count - below;
          return 1000 * (inside > 0 ? lower + (upper - lower) * (target - below) / inside : upper);
        }
        lower = bucket.le;
        below = bucket.count;
      }
      return null;
    }

    /// The charts: each a title and its series, a series a name and its value at sample i.
    function charts() {
      const s = dashboard.samples;
      const each = (f) => s.map((sample, i) => (i === 0 ? null : f(s[i - 1], sample)));
      const gauge = (name) => s.map((sample) => metric(sample, name));
      const nodeIds = [...new Set(s.flatMap((sample) => sample.nodes.map((n) => n.id)))].sort();
      return [
        { id: 'connections', title: 'Connections by node', series: nodeIds.map((id) => ({
          name: id, values: s.map((sample) => { const n = sample.nodes.find((x) => x.id === id); return n ? n.connections : null; }) })) },
        { id: 'events', title: 'Events per second (this node)', series: [
          { name: 'appended', values: each((a, b) => rate(a, b, 'greenroom_events_appended_total')) },
          { name: 'delivered', values: each((a, b) => rate(a, b, 'greenroom_events_delivered_total')) }] },
        { id: 'latency', title: 'Delivery latency, ms (commit to queued on subscribers)', series: [
          { name: 'p50', values: each((a, b) => latency(a, b, 0.5)) },
          { name: 'p99', values: each((a, b) => latency(a, b, 0.99)) }] },
        { id: 'queues', title: 'Writer queue and commands waiting', series: [
          { name: 'writer', values: gauge('greenroom_writer_queue') },
          { name: 'commands', values: gauge('greenroom_commands_queued') }] },
        { id: 'webhooks', title: 'Webhook backlog', series: [
          { name: 'waiting', values: gauge('greenroom_webhook_queue_length') },
          { name: 'oldest (s)', values: gauge('greenroom_webhook_queue_age_seconds') }] },
        { id: 'push', title: 'Push per second', series: [
          { name: 'queued', values: each((a, b) => rate(a, b, 'greenroom_push_queued_total')) },
          { name: 'sent', values: each((a, b) => rate(a, b, 'greenroom_push_sent_total')) },
          { name: 'failed', values: each((a, b) => rate(a, b, 'greenroom_push_failures_total')) }] },
        { id: 'media', title: 'Media rooms and livestreams', series: [
          { name: 'rooms', values: gauge('greenroom_media_rooms') },
          { name: 'livestreams', values: gauge('greenroom_livestreams') }] },
      ];
    }

    const svgNS = 'http://www.w3.org/2000/svg';
    function svg(tag, attributes) {
      const node = document.createElementNS(svgNS, tag);
      for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
      return node;
    }
    const figure = (value) => (value === null || value === undefined ? '–' : (Math.round(value * 100) / 100).toLocaleString());
    function drawChart(chart) {
      const width = 320, height = 90, keep = dashboard.keep;
      const all = chart.series.flatMap((series) => series.values).filter((v) => v !== null);
      const top = Math.max(1, ...all);
      const picture = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': chart.title });
      picture.append(svg('rect', { x: 0, y: 0, width, height, fill: '#fff', stroke: '#e3e6eb' }));
      chart.series.forEach((series, index) => {
        const offset = keep - series.values.length;
        const points = series.values.map((value, i) => (value === null ? null
          : `${((offset + i) * (width - 4) / (keep - 1) + 2).toFixed(1)},${(height - 4 - value / top * (height - 12)).toFixed(1)}`))
          .filter((p) => p !== null);
        picture.append(svg('polyline', { points: points.join(' '), fill: 'none', stroke: colors[index % colors.length],
          'stroke-width': 1.6, 'data-series': series.name }));
        // The newest reading as a dot, so that a series of one reading shows too.
        if (points.length) {
          const [x, y] = points[points.length - 1].split(',');
          picture.append(svg('circle', { cx: x, cy: y, r: 2.2, fill: colors[index % colors.length] }));
        }
      });
      const top_ = svg('text', { x: 4, y: 11, 'font-size': 9, fill: '#6b7280' });
      top_.textContent = figure(top);
      picture.append(top_);
      const legend = el('div', { class: 'legend' }, chart.series.map((series, index) => {
        const last = [...series.values].reverse().find((v) => v !== null);
        return el('span', { style: `color: ${colors[index % colors.length]}` }, '■ ', series.name, ' ', el('b', {}, figure(last)));
      }));
      return el('figure', { class: 'chart', 'data-chart': chart.id }, el('figcaption', {}, chart.title), picture, legend);
    }

    function drawDashboard() {
      const latest = dashboard.samples[dashboard.samples.length - 1];
      const nodes = latest ? latest.nodes : [];
      $('view').replaceChildren(
        el('p', { class: 'muted' }, 'This node\u2019s figures, and every node\u2019s connections; read every ', dashboard.interval / 1000,
          ' s, the last ', dashboard.keep * dashboard.interval / 60000, ' minutes kept. Prometheus and Grafana: docs/monitoring/.'),
        table(['Node', 'Connections', 'Started', 'Last heard'], nodes.map((n) => el('tr', { 'data-node': n.id },
          el('td', {}, el('code', {}, n.id)), el('td', {}, n.connections), el('td', {}, n.startedAt), el('td', {}, n.seenAt)))),
        el('div', { class: 'charts' }, charts().map(drawChart)));
    }

    async function sampleDashboard() {
      const [metricsText, nodes] = await Promise.all([
        fetch('/metrics', { headers: { 'Authorization': 'Bearer ' + sessionStorage.getItem(keyName) } }).then((response) => {
          if (!response.ok) throw new Refused(response.status, null);
          return response.text();
        }),
        api('GET', '/v1/nodes'),
      ]);
      dashboard.samples.push({ at: Date.now(), metrics: parseMetrics(metricsText), nodes: nodes.items });
      if (dashboard.samples.length > dashboard.keep) dashboard.samples.shift();
      if (state.view === 'dashboard') drawDashboard();
    }

    views.dashboard = () => {
      drawDashboard();
      const tick = () => act('Reading the metrics', sampleDashboard);
      tick();
      state.streamTimer = setInterval(tick, dashboard.interval);
    };
    window.console_.dashboard = () => ({
      samples: dashboard.samples.length,
      charts: charts().map((chart) => ({ id: chart.id, series: chart.series.map((s) => ({ name: s.name, values: s.values })) })),
    });
    """#
}
