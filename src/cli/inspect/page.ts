/**
 * The inspector page: plain HTML, CSS and a small script, no framework. Every recorded value
 * is set with textContent, never parsed as HTML: bodies come from the network.
 */
export const INSPECTOR_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Webhook deliveries · webhook-cms-receiver inspect</title>
<style>
  :root { color-scheme: light; --fg: #1b1f24; --muted: #4a5360; --line: #d0d7de; --ok: #116329; --warn: #7d4e00; --bad: #a40e26; --focus: #0550ae; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: #fff; }
  header { padding: 12px 20px; border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: 16px; align-items: end; }
  h1 { font-size: 18px; margin: 0 auto 0 0; }
  label { display: flex; flex-direction: column; font-size: 13px; color: var(--muted); gap: 2px; }
  select, button { font: inherit; padding: 4px 8px; border: 1px solid #8c959f; border-radius: 6px; background: #f6f8fa; color: var(--fg); }
  button { cursor: pointer; }
  button:focus-visible, select:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; }
  main { display: grid; grid-template-columns: minmax(0, 1.5fr) minmax(0, 1fr); min-height: calc(100vh - 70px); }
  #list { overflow: auto; border-right: 1px solid var(--line); }
  table { width: 100%; border-collapse: collapse; font-size: 14px; }
  th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); white-space: nowrap; }
  th { position: sticky; top: 0; background: #f6f8fa; }
  tr[aria-selected="true"] { background: #ddf4ff; }
  td button { background: none; border: none; padding: 0; color: var(--focus); text-decoration: underline; }
  .accepted { color: var(--ok); font-weight: 600; } .refused { color: var(--warn); font-weight: 600; } .failed { color: var(--bad); font-weight: 600; }
  #detail { padding: 12px 20px; overflow: auto; }
  #detail h2 { font-size: 16px; margin: 4px 0 8px; } #detail h3 { font-size: 14px; margin: 14px 0 4px; }
  pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: 8px; white-space: pre-wrap; word-break: break-all; max-height: 40vh; overflow: auto; font-size: 13px; }
  .actions { display: flex; gap: 8px; flex-wrap: wrap; margin-top: 8px; }
  output { display: block; margin-top: 8px; font-family: ui-monospace, monospace; font-size: 13px; }
  .empty { color: var(--muted); padding: 20px; }
</style>
</head>
<body>
<header>
  <h1>Webhook deliveries</h1>
  <label>Verdict <select id="verdict"><option value="">All</option><option value="accepted">Accepted</option><option value="refused">Refused</option><option value="failed">Failed</option></select></label>
  <label>Event <select id="event"><option value="">All</option></select></label>
  <label>New delivery <select id="send-event"><option>test</option><option>article.sync</option><option>article.trash</option></select></label>
  <button id="send" type="button">Send</button>
</header>
<main>
  <section id="list" aria-label="Deliveries">
    <table><thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Delivery id</th><th scope="col">Verdict</th><th scope="col">ms</th></tr></thead>
    <tbody id="rows"></tbody></table>
    <p class="empty" id="empty">No deliveries yet. Recording starts when your receiver is given <code>createInspector</code> (from <code>webhook-cms-receiver/testing</code>), in development: <code>createReceiver({ token, inspect: createInspector({ token }) })</code>. It writes <code>.webhook-inspector/deliveries.jsonl</code> under the server's working directory, so start <code>inspect</code> in that same working directory (or give it <code>--file</code>); this page reads <code id="file"></code>. Then point the service (or <code>npx webhook-cms-receiver send</code>) at your endpoint.</p>
  </section>
  <section id="detail" aria-live="polite" aria-label="Delivery detail"><p class="empty">Choose a delivery to see its headers, body and diagnosis.</p></section>
</main>
<p id="status" class="empty" role="status"></p>
<script>
const config = __CONFIG__;
document.getElementById('file').textContent = config.file;
const records = [];
let selected = null;
const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => { const node = document.createElement(tag); if (text !== undefined) node.textContent = text; if (cls) node.className = cls; return node; };
const verdictOf = (r) => r.status < 300 ? 'accepted' : r.status < 500 ? 'refused' : 'failed';
const verdictText = (r) => {
  const answer = r.answer || {};
  const extra = answer.duplicate ? ' (duplicate)' : answer.stale ? ' (stale)' : '';
  return r.status + ' ' + (answer.error || 'OK') + extra;
};
function render() {
  const verdict = $('verdict').value, event = $('event').value, rows = $('rows');
  rows.replaceChildren();
  const shown = records.filter((r) => (!verdict || verdictOf(r) === verdict) && (!event || (r.event ? r.event.name : r.headers['x-service-event'] || '(none)') === event));
  for (const r of shown.slice().reverse()) {
    const tr = el('tr'); tr.dataset.id = r.id; tr.dataset.verdict = verdictOf(r);
    tr.setAttribute('aria-selected', String(selected === r.id));
    const open = el('button', new Date(r.receivedAt).toLocaleTimeString()); open.type = 'button';
    open.setAttribute('aria-label', 'Open delivery received at ' + r.receivedAt); open.onclick = () => show(r.id);
    const time = el('td'); time.append(open); tr.append(time);
    tr.append(el('td', r.event ? r.event.name : (r.headers['x-service-event'] || '—')));
    tr.append(el('td', (r.event && r.event.deliveryId) || r.headers['x-service-delivery-id'] || '—'));
    tr.append(el('td', verdictText(r), verdictOf(r)));
    tr.append(el('td', String(r.durationMs)));
    rows.append(tr);
  }
  $('empty').hidden = records.length > 0;
  const events = new Set(records.map((r) => r.event ? r.event.name : r.headers['x-service-event'] || '(none)'));
  const select = $('event'), current = select.value;
  select.replaceChildren(el('option', 'All'));
  select.firstChild.value = '';
  for (const name of events) select.append(el('option', name));
  select.value = current;
}
function show(id) {
  const r = records.find((x) => x.id === id); if (!r) return;
  selected = id; render();
  const detail = $('detail'); detail.replaceChildren();
  detail.append(el('h2', (r.event ? r.event.name : 'Delivery') + ' · ' + verdictText(r)));
  if (r.error) detail.append(el('p', 'Reason: ' + r.error.reason));
  const d = r.diagnosis;
  if (d) {
    detail.append(el('h3', 'Diagnosis'));
    if (d.cause) { detail.append(el('p', d.cause.message, 'diagnosis-cause')); if (d.cause.fix) detail.append(el('p', 'Fix: ' + d.cause.fix)); }
    if (Array.isArray(d.checks)) { const ul = el('ul'); for (const c of d.checks) ul.append(el('li', c.name + ': ' + c.outcome + (c.detail ? ' — ' + c.detail : ''))); detail.append(ul); }
    if (d.error) detail.append(el('p', d.error));
  }
  detail.append(el('h3', 'Headers'), el('pre', Object.entries(r.headers).map(([k, v]) => k + ': ' + v).join('\\n')));
  detail.append(el('h3', 'Body' + (r.bodyTruncated ? ' (truncated)' : r.bodyBase64 ? ' (not UTF-8, base64)' : '')), el('pre', r.body !== undefined ? r.body : (r.bodyBase64 || '(none)')));
  const actions = el('div', undefined, 'actions'), output = el('output'); output.id = 'result';
  const wrongToken = r.status === 401 || (r.error && r.error.code === 'invalid_token');
  for (const [label, fresh] of [['Replay re-signed (same delivery id)', false], ['Replay re-signed (new delivery id)', true]]) {
    const b = el('button', label); b.type = 'button'; b.disabled = !config.canSend || wrongToken || Boolean(r.bodyTruncated) || (r.body === undefined && r.bodyBase64 === undefined);
    b.onclick = () => act('replay', { id: r.id, newDeliveryId: fresh }, output); actions.append(b);
  }
  detail.append(el('h3', 'Replay'), actions, output);
  if (wrongToken) detail.append(el('p', 'Not replayable: it was refused for its token, and re-signing it would authenticate a request from someone without the token.'));
  if (!config.canSend) detail.append(el('p', 'Start inspect with --target URL and WEBHOOK_TOKEN set to replay.'));
}
async function act(route, body, output) {
  output.textContent = 'Sending…';
  const response = await fetch(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const result = await response.json();
  output.textContent = response.ok ? 'Target answered ' + result.status + ' ' + JSON.stringify(result.body) + ' (delivery ' + result.deliveryId + ')' : 'Not sent: ' + result.error;
}
$('verdict').onchange = render; $('event').onchange = render;
$('send').disabled = !config.canSend;
$('send').onclick = () => act('send', { event: $('send-event').value }, $('status'));
const stream = new EventSource('events');
stream.addEventListener('reset', (e) => { records.length = 0; for (const line of JSON.parse(e.data)) { try { records.push(JSON.parse(line)); } catch {} } render(); });
// A record can come twice: in the reset a new page gets, and again from the poll that had not read it yet.
stream.addEventListener('delivery', (e) => { try { const r = JSON.parse(e.data); if (records.some((x) => x.id === r.id)) return; records.push(r); render(); $('status').textContent = records.length + ' deliveries'; } catch {} });
</script>
</body>
</html>
`;

/** Characters that could end the script or the page inside a JSON value, as JSON escapes. */
const UNSAFE_IN_SCRIPT = /[<>&\u2028\u2029]/g;

/**
 * The page with its config as a JSON literal. Inserted with split/join, not
 * String.replace, whose replacement text gives `$'` and `$&` a meaning; and with `<`, `>`,
 * `&` escaped, so a value holding `</script>` stays a string.
 */
export function inspectorPage(config: Record<string, unknown>): string {
  const json = JSON.stringify(config).replace(
    UNSAFE_IN_SCRIPT,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return INSPECTOR_PAGE.split('__CONFIG__').join(json);
}
