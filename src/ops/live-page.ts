/**
 * The live page at `/`: one self-contained HTML document (no build step, no external assets, since
 * the ops server may run where nothing else is reachable). It polls `/api/summary` once a second
 * and follows `/streams/transitions` over SSE; the ARM notifications section lists the latest
 * attempts (delivered, failed or given up, which attempt, ARM's HTTP status); the Service Bus section shows the publisher of
 * Operation events when there is one. When the server answers 401 it asks for the token, keeps it
 * in the tab's sessionStorage and sends it in the Authorization header only, never in a URL; so it
 * reads the stream with fetch (EventSource cannot send headers).
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
 #login{padding:10px 16px;background:#2e3a48;display:flex;gap:8px;align-items:center}
 #login[hidden]{display:none} #login input{font:inherit;padding:2px 6px}
</style></head>
<body>
<header><h1>opstream</h1><span id="instance"></span><span id="conn">connecting…</span></header>
<form id="login" hidden autocomplete="off"><label for="token">ops token (ops.token)</label>
 <input id="token" name="token" type="password" required><button type="submit">connect</button><span id="login-why"></span></form>
<main>
 <section><h2>Operations by status</h2><table id="statuses"><tbody></tbody></table></section>
 <section><h2>Throughput and latency</h2>
  <div><span class="big" id="tps">0</span> transitions/s</div>
  <table id="latency"><tbody></tbody></table></section>
 <section><h2>Leases</h2><table id="leases"><thead><tr><th>lease</th><th>owner</th><th class="num">lag</th></tr></thead><tbody></tbody></table></section>
 <section><h2>Latest transitions</h2><table id="transitions"><tbody></tbody></table></section>
 <section><h2>Latest dead letters</h2><table id="deadletters"><tbody></tbody></table></section>
 <section><h2>ARM notifications</h2><div id="notifycounts"></div><table id="notifications"><tbody></tbody></table></section>
 <section id="events" hidden><h2>Operation events (Service Bus)</h2><table id="eventstats"><tbody></tbody></table></section>
</main>
<script>
// The token lives in this tab's sessionStorage and travels in the Authorization header only.
const KEY = 'opstream.ops.token';
let token = sessionStorage.getItem(KEY) || '';
let tokenChanged = () => {};
const headers = (extra) => Object.assign(token ? { authorization: 'Bearer ' + token } : {}, extra || {});
const el = (id) => document.querySelector('#' + id + ' tbody');
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
function rows(id, list, render, max) {
  el(id).innerHTML = list.slice(0, max || 50).map(render).join('');
}
function askToken() {
  document.getElementById('conn').textContent = 'token needed';
  document.getElementById('login-why').textContent = token ? 'the ops server refused this token' : '';
  document.getElementById('login').hidden = false;
}
document.getElementById('login').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = document.getElementById('token');
  token = input.value;
  input.value = '';
  sessionStorage.setItem(KEY, token);
  document.getElementById('login').hidden = true;
  tokenChanged();
  refresh();
});
async function refresh() {
  try {
    const r = await fetch('/api/summary', { headers: headers(), cache: 'no-store' });
    if (r.status === 401) return askToken();
    if (!r.ok) {
      document.getElementById('conn').textContent = 'ops server answered ' + r.status;
      return;
    }
    const s = await r.json();
    document.getElementById('login').hidden = true;
    document.getElementById('instance').textContent = s.instance || '';
    document.getElementById('conn').textContent = 'updated ' + new Date().toLocaleTimeString();
    rows('statuses', Object.entries(s.operationsByStatus || {}), ([k, v]) => '<tr><td class="' + esc(k) + '">' + esc(k) + '</td><td class="num">' + v + '</td></tr>');
    document.getElementById('tps').textContent = (s.transitionsPerSecond || 0).toFixed(1);
    rows('latency', Object.entries(s.latencyMs || {}), ([k, v]) => '<tr><td>' + esc(k) + '</td><td class="num">' + (v == null ? '–' : Number(v).toFixed(1) + ' ms') + '</td></tr>');
    rows('leases', s.leases || [], (l) => '<tr><td><code>' + esc(l.leaseToken) + '</code></td><td>' + esc(l.owner) + '</td><td class="num">' + esc(l.lag) + '</td></tr>');
    const ev = s.operationEvents;
    document.getElementById('events').hidden = !ev;
    if (ev) rows('eventstats', [['topic', ev.topic], ['published', ev.published], ['send failures', ev.failures], ['publish lag p50', ev.lagMs.p50 == null ? '–' : ev.lagMs.p50 + ' ms'], ['publish lag p99', ev.lagMs.p99 == null ? '–' : ev.lagMs.p99 + ' ms'], ['last error', ev.lastError || '–']], ([k, v]) => '<tr><td>' + esc(k) + '</td><td class="num">' + esc(v) + '</td></tr>');
    const n = s.notifications || { delivered: 0, failed: 0, givenUp: 0, latest: [] };
    document.getElementById('notifycounts').textContent = n.delivered + ' delivered · ' + n.failed + ' failed attempts · ' + n.givenUp + ' given up';
    rows('notifications', n.latest, (a) => '<tr><td>' + esc(a.at.slice(11, 23)) + '</td><td class="' + (a.outcome === 'delivered' ? 'Succeeded' : 'Failed') + '">' + esc(a.outcome) + '</td><td>' + (a.attempt ? 'attempt ' + a.attempt : '–') + '</td><td>' + (a.httpStatus ? 'HTTP ' + a.httpStatus : esc(a.reason || 'no answer')) + '</td><td><code>' + esc(a.resourceId || a.operationId) + '</code></td></tr>');
    rows('deadletters', s.deadLetters || [], (d) => '<tr><td>' + esc(d.at) + '</td><td><code>' + esc(d.documentId) + '</code></td><td>' + esc(d.reason) + '</td></tr>');
  } catch (e) {
    document.getElementById('conn').textContent = 'ops server unreachable';
  }
}
// Server-sent events read with fetch; after an end, a refusal or an error, again 2 s later (or at once with a new token).
async function follow(stream, onEvent) {
  for (;;) {
    try {
      const r = await fetch('/streams/' + stream, { headers: headers({ accept: 'text/event-stream' }), cache: 'no-store' });
      if (r.ok && r.body) {
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\\n\\n')) >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let event = 'message';
            const data = [];
            for (const line of message.split('\\n')) {
              if (line.startsWith('event:')) event = line.slice(6).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            if (event === stream && data.length) onEvent(JSON.parse(data.join('\\n')));
          }
        }
      }
    } catch (e) {}
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 2000);
      tokenChanged = () => { clearTimeout(timer); resolve(); };
    });
  }
}
const transitions = [];
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
