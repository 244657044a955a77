/**
 * The overview's chart: three series per day as grouped SVG bars, with an accessible table behind
 * it. The SVG has no `viewBox`: bars are placed in percentages of its width and the text is in
 * CSS pixels, so the labels keep their size (13 px) at any width instead of shrinking with the
 * drawing (a 900-unit drawing squeezed into a phone's 360 px would have 4 px labels). Each day has
 * a tooltip (the SVG `<title>` of a full-height hover target) with the three amounts.
 */
import { type Html, html } from "./Html.js"
import { calendarDay, type Lang } from "./I18n.js"

/** One day of the chart, in centavos. */
export interface Day {
  /** `YYYY-MM-DD`. */
  readonly day: string
  readonly received: number
  readonly sent: number
  readonly fees: number
}

/** How the chart writes its series and days (the page's language). */
export interface Words {
  readonly received: string
  readonly sent: string
  readonly fees: string
  /** A day `YYYY-MM-DD` as the tooltip shows it (`28/10/2026`). */
  readonly day: (day: string) => string
  /** A day `YYYY-MM-DD` as an axis label (`28/10`). */
  readonly shortDay: (day: string) => string
}

/** Without words: the series' names and ISO days. */
const plain: Words = {
  received: "received",
  sent: "sent",
  fees: "fees",
  day: (d) => d,
  shortDay: (d) => d.slice(5)
}

const series = ["received", "sent", "fees"] as const

const colors = { received: "#116329", sent: "#0b5fff", fees: "#a40e26" } as const

/** Height of the drawing in CSS pixels, and its margins for the labels. */
export const height = 240
const top = 22
const bottom = 26

const pct = (n: number) => `${n.toFixed(3)}%`

/** The SVG of `days` (oldest first), titled for assistive technology. */
export const svg = (
  days: ReadonlyArray<Day>,
  title: string,
  money: (cents: number) => string,
  w: Words = plain
): Html => {
  const max = Math.max(0, ...days.flatMap((d) => [d.received, d.sent, d.fees]))
  const n = Math.max(1, days.length)
  const slot = 100 / n
  const gap = slot * 0.15
  const bar = (slot - 2 * gap) / 3
  const plot = height - top - bottom
  const scale = (v: number) => (max === 0 ? 0 : (v / max) * plot)
  const groups = days.map((d, i) => {
    const x0 = i * slot
    const tip = `${w.day(d.day)} · ${w.received}: ${money(d.received)} · ${w.sent}: ${money(d.sent)} · ${w.fees}: ${money(d.fees)}`
    return html`<g class="day" data-day="${d.day}">${series.map((s, j) => {
      const h = scale(d[s])
      return html`<rect class="bar-${s}" data-day="${d.day}" x="${pct(x0 + gap + j * bar)}" y="${(height - bottom - h).toFixed(1)}" width="${pct(bar)}" height="${h.toFixed(1)}" fill="${colors[s]}"></rect>`
    })}<rect class="hit" x="${pct(x0)}" y="${top}" width="${pct(slot)}" height="${plot}" fill="transparent"><title>${tip}</title></rect></g>`
  })
  // A label every 7 days, counted back from today (the last), so today is always labelled.
  const labels = days.map((d, i) => {
    if ((days.length - 1 - i) % 7 !== 0) return ""
    const last = i === days.length - 1
    const first = i === 0
    const x = last ? 100 : first ? 0 : (i + 0.5) * slot
    const anchor = last ? "end" : first ? "start" : "middle"
    return html`<text class="axis" x="${pct(x)}" y="${height - 8}" text-anchor="${anchor}">${w.shortDay(d.day)}</text>`
  })
  return html`<svg class="bars" role="img" aria-labelledby="chart-title" width="100%" height="${height}" xmlns="http://www.w3.org/2000/svg"><title id="chart-title">${title}</title><text class="axis" x="0" y="14">${money(max)}</text><line x1="0" x2="100%" y1="${top}" y2="${top}" stroke="#d0d7de" stroke-dasharray="4 4"></line><line x1="0" x2="100%" y1="${height - bottom}" y2="${height - bottom}" stroke="#8c959f"></line>${groups}${labels}</svg>`
}

/** The chart's words in a language: the dictionary's series names, `28/10/2026` and `28/10`. */
export const wordsOf = (
  lang: Lang,
  t: { readonly received: string; readonly sent: string; readonly fees: string }
): Words => ({
  received: t.received,
  sent: t.sent,
  fees: t.fees,
  day: (d) => calendarDay(lang, d),
  shortDay: (d) => calendarDay(lang, d).slice(0, 5)
})
