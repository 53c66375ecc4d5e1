/**
 * The page's one stylesheet, inlined in a single `<style>` element and allowed by its hash in
 * the Content-Security-Policy: no `style` attribute anywhere, so `'unsafe-inline'` is never
 * needed. The chart's colours are SVG presentation attributes, which CSP does not govern.
 */
export const PAGE_STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1b1b1b;background:#fff}
h1{font-size:1.4rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
table{border-collapse:collapse;width:100%;font-size:12px}
th,td{border-bottom:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere;max-width:18rem;white-space:pre-wrap}
th{background:#f4f4f4;position:sticky;top:0}
tr.unverified td{background:#fff6e5}
.label{font-size:11px;padding:1px 4px;border-radius:3px;white-space:nowrap}
.label.verified{background:#e3f5e1}.label.unverified-label{background:#fde2b8}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin-bottom:1rem}
form.filters label{display:flex;flex-direction:column;font-size:12px}
.notice{padding:.5rem .75rem;background:#eef4ff;border:1px solid #bcd0f7;margin:0 0 1rem}
.muted{color:#666}
svg{max-width:100%;height:auto}
nav.pages{margin:.75rem 0}`;
