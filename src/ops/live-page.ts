/**
 * The live page at `/`: one self-contained HTML document (no build step, no external assets, since
 * the ops server may run where nothing else is reachable). It polls `/api/summary` once a second
 * and follows `/streams/transitions` and `/streams/dead-letters` over SSE; the Service Bus section shows
 * the publisher of Operation events when there is one.
 */
export function livePage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>opstream — live</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#0f1419;color:#d8dee9}
 header{padding:10px 16px;background:#1b2430;display:flex;gap:16px;align-items:baseline}
 h1{font-size:18px;margin:0} h2{font-size:14px;margin:0 0 8px;color:#88c0d0;text-transform:uppercase;letter-spacing:.05em}
 main{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:12px;padding:12px}
 section{background:#1b2430;border-radius:6px;padding:12px;overflow:auto;max-height:360px}
 table{border-collapse:collapse;width:100%} td,th{padding:2px 6px;text-align:left;border-bottom:1px solid #2e3a48;white-space:nowrap}
 .num{text-align:right;font-variant-numeric:tabular-nums} .big{font-size:28px;font-weight:600}
 .Succeeded{color:#a3be8c}.Failed{color:#bf616a}.Canceled{color:#d08770}.Accepted,.Provisioning,.Updating,.Deleting{color:#ebcb8b}
 #conn{font-size:12px;color:#8a96a3} code{font-size:12px}
</style></head>
<body>
<header><h1>opstream</h1><span id="instance"></span><span id="conn">connecting…</span></header>
<main>
 <section><h2>Operations by status</h2><table id="statuses"><tbody></tbody></table></section>
 <section><h2>Throughput and latency</h2>
  <div><span class="big" id="tps">0</span> transitions/s</div>
  <table id="latency"><tbody></tbody></table></section>
 <section><h2>Leases</h2><table id="leases"><thead><tr><th>lease</th><th>owner</th><th class="num">lag</th></tr></thead><tbody></tbody></table></section>
 <section><h2>Latest transitions</h2><table id="transitions"><tbody></tbody></table></section>
 <section><h2>Latest dead letters</h2><table id="deadletters"><tbody></tbody></table></section>
 <section id="events" hidden><h2>Operation events (Service Bus)</h2><table id="eventstats"><tbody></tbody></table></section>
</main>
<script>
const token = new URLSearchParams(location.search).get('token');
const q = token ? '?token=' + encodeURIComponent(token) : '';
const el = (id) => document.querySelector('#' + id + ' tbody');
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
function rows(id, list, render, max) {
  el(id).innerHTML = list.slice(0, max || 50).map(render).join('');
}
async function refresh() {
  try {
    const r = await fetch('/api/summary' + q, token ? { headers: { authorization: 'Bearer ' + token } } : {});
    const s = await r.json();
    document.getElementById('instance').textContent = s.instance || '';
    document.getElementById('conn').textContent = 'updated ' + new Date().toLocaleTimeString();
    rows('statuses', Object.entries(s.operationsByStatus || {}), ([k, v]) => '<tr><td class="' + esc(k) + '">' + esc(k) + '</td><td class="num">' + v + '</td></tr>');
    document.getElementById('tps').textContent = (s.transitionsPerSecond || 0).toFixed(1);
    rows('latency', Object.entries(s.latencyMs || {}), ([k, v]) => '<tr><td>' + esc(k) + '</td><td class="num">' + (v == null ? '–' : Number(v).toFixed(1) + ' ms') + '</td></tr>');
    rows('leases', s.leases || [], (l) => '<tr><td><code>' + esc(l.leaseToken) + '</code></td><td>' + esc(l.owner) + '</td><td class="num">' + esc(l.lag) + '</td></tr>');
    const ev = s.operationEvents;
    document.getElementById('events').hidden = !ev;
    if (ev) rows('eventstats', [['topic', ev.topic], ['published', ev.published], ['send failures', ev.failures], ['publish lag p50', ev.lagMs.p50 == null ? '–' : ev.lagMs.p50 + ' ms'], ['publish lag p99', ev.lagMs.p99 == null ? '–' : ev.lagMs.p99 + ' ms'], ['last error', ev.lastError || '–']], ([k, v]) => '<tr><td>' + esc(k) + '</td><td class="num">' + esc(v) + '</td></tr>');
    rows('deadletters', s.deadLetters || [], (d) => '<tr><td>' + esc(d.at) + '</td><td><code>' + esc(d.documentId) + '</code></td><td>' + esc(d.reason) + '</td></tr>');
  } catch (e) {
    document.getElementById('conn').textContent = 'ops server unreachable';
  }
}
const transitions = [];
function follow(stream, onEvent) {
  const es = new EventSource('/streams/' + stream + q);
  es.addEventListener(stream, (m) => onEvent(JSON.parse(m.data)));
}
follow('transitions', (e) => {
  transitions.unshift(e);
  transitions.length = Math.min(transitions.length, 50);
  rows('transitions', transitions, (t) => '<tr><td>' + esc(t.at.slice(11, 23)) + '</td><td class="' + esc(t.data.status) + '">' + esc(t.data.status) + '</td><td><code>' + esc(t.data.resourceId) + '</code></td></tr>');
});
refresh();
setInterval(refresh, 1000);
</script>
</body></html>`;
}
