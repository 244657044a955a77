/** The overview's chart: three series per day as grouped SVG bars, with an accessible table behind it. */
import { type Html, html } from "./Html.js"

/** One day of the chart, in centavos. */
export interface Day {
  readonly day: string
  readonly received: number
  readonly sent: number
  readonly fees: number
}

const colors = { received: "#116329", sent: "#0b5fff", fees: "#a40e26" } as const

/** The SVG of `days` (oldest first), titled for assistive technology. */
export const svg = (
  days: ReadonlyArray<Day>,
  title: string,
  format: (cents: number) => string,
  names: {
    readonly received: string
    readonly sent: string
    readonly fees: string
    /** A day `YYYY-MM-DD` as the page writes it (`28/10/2026`). */
    readonly day: (day: string) => string
  } = { received: "received", sent: "sent", fees: "fees", day: (d) => d }
): Html => {
  const width = 900
  const height = 240
  const top = 10
  const bottom = 24
  const max = Math.max(1, ...days.flatMap((d) => [d.received, d.sent, d.fees]))
  const slot = width / Math.max(1, days.length)
  const bar = Math.max(1, (slot - 4) / 3)
  const scale = (v: number) => (v / max) * (height - top - bottom)
  const bars = days.map((d, i) =>
    (["received", "sent", "fees"] as const).map((series, j) => {
      const h = scale(d[series])
      const x = i * slot + 2 + j * bar
      return html`<rect class="bar-${series}" data-day="${d.day}" x="${x.toFixed(1)}" y="${(height - bottom - h).toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" fill="${colors[series]}"><title>${names.day(d.day)} · ${names[series]}: ${format(d[series])}</title></rect>`
    })
  )
  const labels = days.map((d, i) =>
    i % 5 === 0 || i === days.length - 1
      ? html`<text x="${(i * slot + slot / 2).toFixed(1)}" y="${height - 6}" font-size="11" text-anchor="middle" fill="#57606a">${names.day(d.day).slice(0, 5)}</text>`
      : ""
  )
  return html`<svg role="img" aria-labelledby="chart-title" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg"><title id="chart-title">${title}</title><line x1="0" x2="${width}" y1="${height - bottom}" y2="${height - bottom}" stroke="#d0d7de"/>${bars}${labels}</svg>`
}
