/**
 * Dates of Pix Automático: São Paulo days, the business-day adjustment of a due date (national
 * bank holidays: the simulator knows no municipal ones) and the cycle a due date falls in.
 */
import { dateOf, rollForward, saoPauloDay } from "../Cobv.js"
import type { Periodicidade } from "./Model.js"

const day = 86_400_000

/** `YYYY-MM-DD` of a day number. */
export const dateText = (d: number) => new Date(d * day).toISOString().slice(0, 10)

/** Today in São Paulo, as `YYYY-MM-DD`. */
export const today = (now: Date) => dateText(saoPauloDay(now))

/** Whether `text` is a real `YYYY-MM-DD` date. */
export const isDate = (text: unknown): text is string =>
  typeof text === "string" && /^\d{4}-\d{2}-\d{2}$/.test(text) && dateText(dateOf(text)) === text

/** The date itself, or the next business day when `ajuste` and the date is not one. */
export const settlementDate = (dataDeVencimento: string, ajuste: boolean) =>
  ajuste ? dateText(rollForward(dateOf(dataDeVencimento))) : dataDeVencimento

/** Days from `a` to `b` (both `YYYY-MM-DD`). */
export const daysBetween = (a: string, b: string) => dateOf(b) - dateOf(a)

/** `date` plus `n` days. */
export const addDays = (date: string, n: number) => dateText(dateOf(date) + n)

const monthsPer: Record<Exclude<Periodicidade, "SEMANAL">, number> = {
  MENSAL: 1,
  TRIMESTRAL: 3,
  SEMESTRAL: 6,
  ANUAL: 12
}

/** The cycle (0 for the first) a due date falls in, from `dataInicial`; -1 before it. */
export const cycleOf = (dataInicial: string, periodicidade: Periodicidade, due: string) => {
  if (due < dataInicial) return -1
  if (periodicidade === "SEMANAL") return Math.floor(daysBetween(dataInicial, due) / 7)
  const [ys, ms, ds] = dataInicial.split("-").map(Number) as [number, number, number]
  const [yd, md, dd] = due.split("-").map(Number) as [number, number, number]
  const months = (yd - ys) * 12 + (md - ms) - (dd < ds ? 1 : 0)
  return Math.floor(months / monthsPer[periodicidade])
}
