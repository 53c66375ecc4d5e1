// A hand-written SVG bar chart: verify throughput in MB/s per body size, one bar per contender.

const COLORS = ['#9ca3af', '#2563eb', '#f59e0b', '#10b981', '#ef4444'];

const escapeXml = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * @param {{ label: string, size: number, results: { name: string, opsPerSecond: number }[] }[]} rows
 * @param {string} caption
 */
export function throughputChart(rows, caption) {
  const names = rows[0].results.map((r) => r.name);
  const mbps = rows.map((row) => row.results.map((r) => (r.opsPerSecond * row.size) / 1e6));
  const top = niceMax(Math.max(...mbps.flat()));
  const width = 760;
  const height = 380;
  const plot = { left: 64, right: width - 16, top: 56, bottom: height - 56 };
  const groupWidth = (plot.right - plot.left) / rows.length;
  const barWidth = Math.min(26, (groupWidth - 24) / names.length);
  const y = (value) => plot.bottom - ((plot.bottom - plot.top) * value) / top;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12" role="img">`,
    `<title>${escapeXml(`${caption}: ${names.join(', ')}`)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${escapeXml(caption)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const value = (top * i) / 4;
    parts.push(`<line x1="${plot.left}" x2="${plot.right}" y1="${y(value)}" y2="${y(value)}" stroke="#e5e7eb"/>`);
    parts.push(
      `<text x="${plot.left - 8}" y="${y(value) + 4}" text-anchor="end" fill="#4b5563">${Math.round(value)}</text>`,
    );
  }
  parts.push(
    `<text transform="translate(16 ${(plot.top + plot.bottom) / 2}) rotate(-90)" text-anchor="middle" fill="#4b5563">MB/s verified (higher is better)</text>`,
  );
  rows.forEach((row, g) => {
    const start = plot.left + g * groupWidth + (groupWidth - barWidth * names.length) / 2;
    mbps[g].forEach((value, k) => {
      const top = y(value);
      parts.push(
        `<rect x="${(start + k * barWidth).toFixed(1)}" y="${top.toFixed(1)}" width="${(barWidth - 3).toFixed(1)}" height="${(plot.bottom - top).toFixed(1)}" fill="${COLORS[k % COLORS.length]}"><title>${escapeXml(`${names[k]}, ${row.label}: ${value.toFixed(1)} MB/s`)}</title></rect>`,
      );
    });
    parts.push(
      `<text x="${(plot.left + (g + 0.5) * groupWidth).toFixed(1)}" y="${plot.bottom + 18}" text-anchor="middle">${escapeXml(row.label)}</text>`,
    );
  });
  parts.push(`<line x1="${plot.left}" x2="${plot.right}" y1="${plot.bottom}" y2="${plot.bottom}" stroke="#374151"/>`);
  let legendX = plot.left;
  names.forEach((name, k) => {
    parts.push(`<rect x="${legendX}" y="${height - 24}" width="12" height="12" fill="${COLORS[k % COLORS.length]}"/>`);
    parts.push(`<text x="${legendX + 16}" y="${height - 14}">${escapeXml(name)}</text>`);
    legendX += 24 + name.length * 7;
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function niceMax(value) {
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}
