/**
 * The bank's side of a due-date charge (cobv): what the payer's bank asks for on the day of
 * payment, from the cobv's `valor` as the API Pix writes it (`multa`, `juros`, `desconto`,
 * `abatimento`, each with its `modalidade` and two-decimal `valorPerc`). Written for the
 * simulator on its own (it shares no code with the engine), with the conventions the engine
 * documents where the standard is silent: São Paulo days (UTC-3); a due date or last payable day
 * on a weekend or national bank holiday moves to the next business day; a percent abatement of
 * the original amount, percent fines, interest and discounts of the original less the abatement
 * (as payers' banks compute them); each part rounded half-up to the centavo; a month of 30 days (21 business
 * days) and a year of 365 (252 business days).
 */
import { toCents } from "./Model.js"

/** A rule as the API Pix writes it. */
export interface Rule {
  readonly modalidade: number
  readonly valorPerc?: string
  readonly descontoDataFixa?: ReadonlyArray<{ readonly data: string; readonly valorPerc: string }>
}

/** A cobv's terms as received. */
export interface CobvTerms {
  readonly dataDeVencimento: string
  readonly validadeAposVencimento: number
  readonly multa?: Rule
  readonly juros?: Rule
  readonly desconto?: Rule
  readonly abatimento?: Rule
}

const day = 86_400_000
/** The day number of a `YYYY-MM-DD` date. */
export const dateOf = (text: string) => Date.parse(`${text}T00:00:00Z`) / day

/** The São Paulo calendar day (days since 1970-01-01) of an instant. */
export const saoPauloDay = (at: Date) => Math.floor((at.getTime() - 3 * 3_600_000) / day)

const holidayYears = new Map<number, Set<number>>()
const holidaysOf = (year: number) => {
  let set = holidayYears.get(year)
  if (set) return set
  // Easter by Meeus/Jones/Butcher.
  const a = year % 19
  const b = Math.floor(year / 100)
  const c = year % 100
  const h = (19 * a + b - Math.floor(b / 4) - Math.floor((b - Math.floor((b + 8) / 25) + 1) / 3) + 15) % 30
  const l = (32 + 2 * (b % 4) + 2 * Math.floor(c / 4) - h - (c % 4)) % 7
  const m = Math.floor((a + 11 * h + 22 * l) / 451)
  const month = Math.floor((h + l - 7 * m + 114) / 31)
  const date = ((h + l - 7 * m + 114) % 31) + 1
  const easter = Date.UTC(year, month - 1, date) / day
  const fixed = (mm: number, dd: number) => Date.UTC(year, mm - 1, dd) / day
  set = new Set([
    fixed(1, 1),
    easter - 48,
    easter - 47,
    easter - 2,
    fixed(4, 21),
    fixed(5, 1),
    easter + 60,
    fixed(9, 7),
    fixed(10, 12),
    fixed(11, 2),
    fixed(11, 15),
    fixed(12, 25)
  ])
  if (year >= 2024) set.add(fixed(11, 20))
  holidayYears.set(year, set)
  return set
}

export const isBusiness = (d: number) => {
  const date = new Date(d * day)
  const weekday = date.getUTCDay()
  return weekday !== 0 && weekday !== 6 && !holidaysOf(date.getUTCFullYear()).has(d)
}
export const rollForward = (d: number) => {
  let x = d
  while (!isBusiness(x)) x++
  return x
}
const businessBetween = (from: number, to: number) => {
  let n = 0
  for (let d = from; d < to; d++) if (isBusiness(d)) n++
  return n
}

/** round(cents x hundredths x count / (10000 x per)), half-up. */
const share = (cents: number, hundredths: number, count: number, per: number) => {
  const num = BigInt(cents) * BigInt(hundredths) * BigInt(count)
  const den = 10_000n * BigInt(per)
  return Number((2n * num + den) / (2n * den))
}

/** The last day the cobv can be paid (São Paulo day number). */
export const lastDay = (terms: CobvTerms) =>
  rollForward(rollForward(dateOf(terms.dataDeVencimento)) + terms.validadeAposVencimento)

/** What a cobv asks for on one day, in centavos: its parts and the total (`final`). */
export interface Parts {
  readonly abatimento: number
  readonly desconto: number
  readonly multa: number
  readonly juros: number
  readonly final: number
}

/** The parts of the amount due on São Paulo day `pay` for a cobv of `original` (centavos). */
export const partsOn = (original: number, terms: CobvTerms, pay: number): Parts => {
  const due = rollForward(dateOf(terms.dataDeVencimento))
  const value = (rule: Rule) => toCents(rule.valorPerc ?? "0.00")
  const flat = (rule: Rule | undefined, of: number) =>
    rule === undefined ? 0 : rule.modalidade === 1 ? value(rule) : share(of, value(rule), 1, 1)
  const abatimento = flat(terms.abatimento, original)
  // Percent fines, interest and discounts are of what is left after the abatement.
  const base = Math.max(0, original - abatimento)
  let desconto = 0
  const d = terms.desconto
  if (d !== undefined && pay <= due) {
    if (d.modalidade === 1 || d.modalidade === 2) {
      const open = (d.descontoDataFixa ?? [])
        .map((x) => ({
          until: x.data === terms.dataDeVencimento ? due : dateOf(x.data),
          v: toCents(x.valorPerc)
        }))
        .filter((x) => pay <= x.until)
        .sort((x, y) => x.until - y.until)[0]
      if (open) desconto = d.modalidade === 1 ? open.v : share(base, open.v, 1, 1)
    } else {
      const early = d.modalidade === 4 || d.modalidade === 6 ? businessBetween(pay, due) : due - pay
      desconto = d.modalidade <= 4 ? value(d) * early : share(base, value(d), early, 1)
    }
  }
  let multa = 0
  let juros = 0
  if (pay > due) {
    multa = flat(terms.multa, base)
    const j = terms.juros
    if (j !== undefined) {
      const calendar = pay - due
      const business = businessBetween(due + 1, pay + 1)
      const n = j.modalidade <= 4 ? calendar : business
      const per = [1, 1, 30, 365, 1, 1, 21, 252][j.modalidade - 1] ?? 1
      juros = j.modalidade === 1 || j.modalidade === 5 ? value(j) * n : share(base, value(j), n, per)
    }
  }
  const final = Math.max(1, original - abatimento - desconto + multa + juros)
  return { abatimento, desconto, multa, juros, final }
}

/** The amount due (centavos) on São Paulo day `pay` for a cobv of `original` (centavos). */
export const amountOn = (original: number, terms: CobvTerms, pay: number) =>
  partsOn(original, terms, pay).final
