// A hand-written SVG line chart, as bench/lib/chart.mjs draws its bars: heap (after a full GC)
// per process over the run, one line per process (a restarted slot draws a new line), with the
// answer time p99 per minute on the same time axis below.

const COLORS = ['#2563eb', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#6b7280'];
const MIB = 1024 * 1024;
const escapeXml = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function panel(parts, { lines, top, height, width, xMax, label }) {
  const plot = { left: 64, right: width - 16, top, bottom: top + height };
  const yMax = niceMax(Math.max(1, ...lines.flatMap((line) => line.points.map(([, y]) => y))));
  const x = (v) => plot.left + ((plot.right - plot.left) * v) / xMax;
  const y = (v) => plot.bottom - ((plot.bottom - plot.top) * v) / yMax;
  for (let i = 0; i <= 4; i++) {
    const value = (yMax * i) / 4;
    parts.push(`<line x1="${plot.left}" x2="${plot.right}" y1="${y(value)}" y2="${y(value)}" stroke="#e5e7eb"/>`);
    parts.push(
      `<text x="${plot.left - 8}" y="${y(value) + 4}" text-anchor="end" fill="#4b5563">${+value.toFixed(1)}</text>`,
    );
  }
  parts.push(
    `<text transform="translate(16 ${(plot.top + plot.bottom) / 2}) rotate(-90)" text-anchor="middle" fill="#4b5563">${escapeXml(label)}</text>`,
  );
  lines.forEach((line, k) => {
    const d = line.points.map(([px, py], i) => `${i ? 'L' : 'M'}${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ');
    parts.push(
      `<path d="${d}" fill="none" stroke="${line.color ?? COLORS[k % COLORS.length]}" stroke-width="1.5"><title>${escapeXml(line.name)}</title></path>`,
    );
  });
  parts.push(`<line x1="${plot.left}" x2="${plot.right}" y1="${plot.bottom}" y2="${plot.bottom}" stroke="#374151"/>`);
}

/** The report's plot: heap MiB per process, then p99 ms per minute, against minutes of the run. */
export function soakChart(result) {
  const width = 760;
  const height = 460;
  const minutes = (t) => (t - result.startedAt) / 60_000;
  const xMax = Math.max(0.1, minutes(result.endedAt));
  const slotColor = new Map();
  const byProcess = new Map();
  for (const s of result.samples) {
    if (s.t < result.startedAt || s.t > result.endedAt) continue;
    if (!slotColor.has(s.name)) slotColor.set(s.name, COLORS[slotColor.size % COLORS.length]);
    const key = `${s.name} (pid ${s.pid})`;
    if (!byProcess.has(key)) byProcess.set(key, { name: key, color: slotColor.get(s.name), points: [] });
    byProcess.get(key).points.push([minutes(s.t), s.heapUsed / MIB]);
  }
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12" role="img">`,
    `<title>${escapeXml(`Soak ${result.label}: heap per process and p99 answer time`)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${escapeXml(`Soak ${result.label}`)}</text>`,
  ];
  panel(parts, { lines: [...byProcess.values()], top: 44, height: 220, width, xMax, label: 'heap after GC (MiB)' });
  const p99 = result.latency.map((row) => [row.minute + 0.5, row.p99]);
  panel(parts, {
    lines: [
      {
        name: 'p99 answer time per minute',
        color: '#111827',
        points:
          p99.length === 1
            ? [
                [0, p99[0][1]],
                [xMax, p99[0][1]],
              ]
            : p99,
      },
    ],
    top: 300,
    height: 110,
    width,
    xMax,
    label: 'p99 (ms)',
  });
  parts.push(`<text x="${width / 2}" y="${height - 30}" text-anchor="middle" fill="#4b5563">minutes of traffic</text>`);
  let legendX = 64;
  for (const [name, color] of slotColor) {
    parts.push(`<rect x="${legendX}" y="${height - 18}" width="12" height="12" fill="${color}"/>`);
    parts.push(`<text x="${legendX + 16}" y="${height - 8}">${escapeXml(name)}</text>`);
    legendX += 28 + name.length * 7;
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function niceMax(value) {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}
