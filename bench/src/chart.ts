/** A line chart as SVG: small, dependency-free, readable in a browser or an editor's preview. */
export interface Series {
  name: string;
  points: Array<[number, number]>;
  dashed?: boolean;
}

export interface ChartSpec {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  /** Latencies span decades: a log axis keeps the fast end readable. */
  logY?: boolean;
  logX?: boolean;
}

const W = 800;
const H = 480;
const M = { left: 70, right: 190, top: 56, bottom: 56 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (v: number) =>
  Math.abs(v) >= 1000 ? v.toLocaleString('en-US', { maximumFractionDigits: 0 }) : `${+v.toPrecision(3)}`;

interface Axis {
  at(v: number): number;
  ticks: number[];
}

function axis(values: number[], from: number, to: number, log: boolean): Axis {
  const positive = values.filter((v) => v > 0);
  if (log && positive.length > 0) {
    const lo = Math.floor(Math.log10(Math.min(...positive)));
    const hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...positive))));
    const ticks: number[] = [];
    for (let e = lo; e <= hi; e++) ticks.push(10 ** e);
    const at = (v: number) => from + ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * (to - from);
    return { at, ticks };
  }
  const max = Math.max(1e-9, ...values);
  const min = Math.min(0, ...values);
  const raw = (max - min) / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let v = min; v <= top + step / 2; v += step) ticks.push(v);
  const at = (v: number) => from + ((v - min) / (top - min || 1)) * (to - from);
  return { at, ticks };
}

export function lineChart(spec: ChartSpec): string {
  const all = spec.series.flatMap((s) => s.points);
  const x = axis(
    all.map((p) => p[0]),
    M.left,
    W - M.right,
    spec.logX ?? false,
  );
  const y = axis(
    all.map((p) => p[1]),
    H - M.bottom,
    M.top,
    spec.logY ?? false,
  );
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2 - M.right / 2}" y="24" text-anchor="middle" font-size="16">${esc(spec.title)}</text>`,
  ];
  if (spec.subtitle) {
    out.push(`<text x="${W / 2 - M.right / 2}" y="42" text-anchor="middle" fill="#555">${esc(spec.subtitle)}</text>`);
  }
  for (const t of y.ticks) {
    const py = y.at(t).toFixed(1);
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${py}" y2="${py}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${M.left - 6}" y="${py}" text-anchor="end" dominant-baseline="middle">${fmt(t)}</text>`);
  }
  for (const t of x.ticks) {
    const px = x.at(t).toFixed(1);
    out.push(`<line x1="${px}" x2="${px}" y1="${M.top}" y2="${H - M.bottom}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${px}" y="${H - M.bottom + 16}" text-anchor="middle">${fmt(t)}</text>`);
  }
  out.push(
    `<rect x="${M.left}" y="${M.top}" width="${W - M.left - M.right}" height="${H - M.top - M.bottom}" fill="none" stroke="#333"/>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 14}" text-anchor="middle">${esc(spec.xLabel)}</text>`,
    `<text transform="translate(18 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(spec.yLabel)}</text>`,
  );
  spec.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length]!;
    const path = series.points.map(([px, py]) => `${x.at(px).toFixed(1)},${y.at(py).toFixed(1)}`).join(' ');
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
    if (series.points.length > 1) {
      out.push(`<polyline points="${path}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`);
    }
    for (const [px, py] of series.points) {
      out.push(`<circle cx="${x.at(px).toFixed(1)}" cy="${y.at(py).toFixed(1)}" r="3" fill="${color}"/>`);
    }
    const ly = M.top + 8 + i * 20;
    out.push(
      `<line x1="${W - M.right + 14}" x2="${W - M.right + 38}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`,
    );
    out.push(`<text x="${W - M.right + 44}" y="${ly}" dominant-baseline="middle">${esc(series.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}
