import type { CostReport } from './cost-report';
import { WINDOW } from './cost-report';

const WIDTH = 1000;
const PANEL_HEIGHT = 270;
const MARGIN = { left: 80, right: 300, top: 40, gap: 70 };
// The anchor first, in black; the project's arms after it.
const COLOURS = ['#222222', '#1f77b4', '#2ca02c', '#d62728', '#9467bd'];

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A round step that splits `max` into about five intervals. */
function step(max: number): number {
  const rough = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 2.5, 5, 10].map((factor) => factor * magnitude).find((value) => value >= rough) ?? rough;
}

function label(value: number): string {
  return value >= 1e6 ? `${value / 1e6}M` : value >= 1e3 ? `${value / 1e3}k` : String(value);
}

function panel(title: string, series: { values: readonly number[]; colour: string }[], top: number): string[] {
  const turns = series[0]!.values.length;
  const max = Math.max(...series.flatMap(({ values }) => values));
  const unit = step(max);
  const ceiling = Math.ceil(max / unit) * unit;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const x = (turn: number) => MARGIN.left + ((turn - 1) / Math.max(1, turns - 1)) * plotWidth;
  const y = (value: number) => top + PANEL_HEIGHT - (value / ceiling) * PANEL_HEIGHT;
  const parts = [`<text x="${MARGIN.left}" y="${top - 12}" class="title">${escape(title)}</text>`];
  for (let value = 0; value <= ceiling + unit / 2; value += unit) {
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" class="grid"/>`,
      `<text x="${MARGIN.left - 8}" y="${(y(value) + 4).toFixed(1)}" class="tick" text-anchor="end">${label(value)}</text>`,
    );
  }
  const tick = turns >= 200 ? 50 : turns >= 50 ? 10 : 5;
  for (let turn = tick; turn <= turns; turn += tick) {
    parts.push(
      `<text x="${x(turn).toFixed(1)}" y="${top + PANEL_HEIGHT + 18}" class="tick" text-anchor="middle">${turn}</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotWidth / 2}" y="${top + PANEL_HEIGHT + 38}" class="tick" text-anchor="middle">turn</text>`,
  );
  for (const { values, colour } of series) {
    const points = values.map((value, index) => `${x(index + 1).toFixed(1)},${y(value).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${points}" fill="none" stroke="${colour}" stroke-width="2"/>`);
  }
  return parts;
}

/**
 * The bench's curves as a hand-written SVG: per turn (the mean of the last {@link WINDOW} turns) and cumulative, one
 * line per arm, the anchor in black.
 */
export function costChart(report: CostReport): string {
  const curves = [report.anchor, ...report.arms.map((arm) => arm.curve)];
  const height = MARGIN.top + 2 * PANEL_HEIGHT + MARGIN.gap + 60;
  const perTurn = curves.map((curve, index) => ({ values: curve.perTurnMean, colour: COLOURS[index]! }));
  const cumulative = curves.map((curve, index) => ({ values: curve.cumulative, colour: COLOURS[index]! }));
  const legendX = WIDTH - MARGIN.right + 20;
  const legend = curves.flatMap((curve, index) => {
    const y = MARGIN.top + 20 + index * 24;
    return [
      `<line x1="${legendX}" x2="${legendX + 24}" y1="${y}" y2="${y}" stroke="${COLOURS[index]}" stroke-width="3"/>`,
      `<text x="${legendX + 32}" y="${y + 4}" class="legend">${escape(curve.arm.label)}</text>`,
    ];
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">`,
    '<style>',
    '  text { font-family: Helvetica, Arial, sans-serif; fill: #222; }',
    '  .title { font-size: 15px; font-weight: bold; }',
    '  .tick { font-size: 11px; fill: #555; }',
    '  .legend { font-size: 12px; }',
    '  .grid { stroke: #ddd; stroke-width: 1; }',
    '</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    ...panel(
      `Cost-weighted input tokens per turn (mean of ${WINDOW} turns), ${report.turns} turns`,
      perTurn,
      MARGIN.top,
    ),
    ...panel('Cumulative cost-weighted input tokens', cumulative, MARGIN.top + PANEL_HEIGHT + MARGIN.gap),
    ...legend,
    `<text x="${legendX}" y="${MARGIN.top + 40 + curves.length * 24}" class="tick">npm run bench:cost</text>`,
    '</svg>',
    '',
  ].join('\n');
}
