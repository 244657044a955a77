/**
 * Due-date charges (the Central Bank's API Pix `cobv`): what the payer owes on a given day.
 *
 * A due-date charge has an original amount, a due date and the number of calendar days it stays
 * payable after it, and optionally a fine, interest, discounts and an abatement. The standard
 * names the rules (`valor.multa`, `valor.juros`, `valor.desconto`, `valor.abatimento`, their
 * `modalidade`s) and states that every amount is a two-decimal value; where it is silent
 * (rounding mode, the base of a percentage, the length of a month and a year) this module does
 * what docs/decisions.md "Due-date charges" records:
 *
 * - Days are São Paulo calendar days (UTC-3: Brazil keeps no summer time since 2019). Business
 *   days are Monday to Friday except the national bank holidays (`isBusinessDay`).
 * - A due date on a weekend or holiday moves to the next business day, and every rule refers to
 *   that effective due date (the standard: "todos os campos que façam referência a esta data
 *   devem assumir essa prorrogação"). The charge is payable through the effective due date plus
 *   `daysAfterDue` calendar days, that last day itself moved to the next business day (the
 *   standard's examples A to G).
 * - A percent abatement is of the original amount (the standard: "percentual do valor original
 *   do documento"). Percent fines, interest and discounts are of the original amount minus the
 *   abatement, as the Central Bank's rule has the payer's bank compute them: the abatement is a
 *   deduction from the debt itself, so what is late or paid early is what is left of it. Each
 *   part (abatement, discount, fine, interest) is computed exactly (integer and BigInt
 *   arithmetic) and rounded half-up to the centavo once; the amount due is
 *   `original - abatement - discount + fine + interest`, never below 0.01.
 * - The abatement applies on any day. A discount applies on or before the effective due date;
 *   the fine and the interest after it. Interest per month counts 30 days (21 business days), per
 *   year 365 days (252 business days).
 *
 * Values are integers: centavos for amounts, hundredths of a percent for percentages (2.5% is
 * 250), so a term is stored and compared exactly.
 */
import type { Cents } from "./Money.js"

// ---------------------------------------------------------------------------------------------
// Terms
// ---------------------------------------------------------------------------------------------

/** A fine or an abatement: a fixed amount (centavos) or a percentage (hundredths of a percent). */
export interface FlatRule {
  readonly type: "fixed" | "percent"
  readonly value: number
}

/** The standard's interest modalities 1 to 8, by name. */
export const interestTypes = [
  "amountPerDay",
  "percentPerDay",
  "percentPerMonth",
  "percentPerYear",
  "amountPerBusinessDay",
  "percentPerBusinessDay",
  "percentPerMonthBusinessDays",
  "percentPerYearBusinessDays"
] as const
/** An interest modality. */
export type InterestType = (typeof interestTypes)[number]

/** Interest: per day late (amount or percentage), or a percentage per month or per year. */
export interface InterestRule {
  readonly type: InterestType
  readonly value: number
}

/** The standard's fixed-date discount modalities 1 and 2. */
export const dateDiscountTypes = ["fixedUntil", "percentUntil"] as const
/** The standard's per-day anticipation modalities 3 to 6. */
export const dailyDiscountTypes = [
  "amountPerDayEarly",
  "amountPerBusinessDayEarly",
  "percentPerDayEarly",
  "percentPerBusinessDayEarly"
] as const

/** A discount up to one date: an amount (centavos) or a percentage (hundredths). */
export interface DiscountDate {
  /** YYYY-MM-DD, on or before the due date. */
  readonly until: string
  readonly value: number
}

/** A discount: up to fixed dates (1 to 3), or per day paid before the due date. */
export type DiscountRule =
  | { readonly type: (typeof dateDiscountTypes)[number]; readonly dates: ReadonlyArray<DiscountDate> }
  | { readonly type: (typeof dailyDiscountTypes)[number]; readonly value: number }

/** A due-date charge's terms, as stored with the charge. */
export interface DueTerms {
  /** YYYY-MM-DD (São Paulo). */
  readonly dueDate: string
  /** Calendar days the charge stays payable after the (effective) due date; the standard's default is 30. */
  readonly daysAfterDue: number
  readonly fine: FlatRule | null
  readonly interest: InterestRule | null
  readonly discount: DiscountRule | null
  readonly abatement: FlatRule | null
}

/** The standard's default `validadeAposVencimento`. */
export const defaultDaysAfterDue = 30

// ---------------------------------------------------------------------------------------------
// Days
// ---------------------------------------------------------------------------------------------

const dayMs = 86_400_000
/** São Paulo is UTC-3 all year (no summer time since 2019). */
const saoPauloOffsetMs = -3 * 3_600_000

/** A calendar day as a number: days since 1970-01-01. */
export type Day = number

/** The day of a `YYYY-MM-DD` text that names a real date, or undefined. */
export const parseDay = (text: string): Day | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return undefined
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const ms = Date.UTC(y, m - 1, d)
  const date = new Date(ms)
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
    ? ms / dayMs
    : undefined
}

/** `YYYY-MM-DD` of a day. */
export const formatDay = (day: Day): string => new Date(day * dayMs).toISOString().slice(0, 10)

/** The São Paulo calendar day of an instant (epoch milliseconds). */
export const dayOf = (ms: number): Day => Math.floor((ms + saoPauloOffsetMs) / dayMs)

/** The first instant after a São Paulo day (its midnight, as epoch milliseconds). */
export const endOfDay = (day: Day): number => (day + 1) * dayMs - saoPauloOffsetMs

// Easter Sunday (Gregorian, the anonymous algorithm) as a day.
const easter = (year: number): Day => {
  const a = year % 19
  const b = Math.floor(year / 100)
  const c = year % 100
  const d = Math.floor(b / 4)
  const e = b % 4
  const f = Math.floor((b + 8) / 25)
  const g = Math.floor((b - f + 1) / 3)
  const h = (19 * a + b - d - g + 15) % 30
  const i = Math.floor(c / 4)
  const k = c % 4
  const l = (32 + 2 * e + 2 * i - h - k) % 7
  const m = Math.floor((a + 11 * h + 22 * l) / 451)
  const month = Math.floor((h + l - 7 * m + 114) / 31)
  const day = ((h + l - 7 * m + 114) % 31) + 1
  return Date.UTC(year, month - 1, day) / dayMs
}

const holidayCache = new Map<number, ReadonlySet<Day>>()

/**
 * The national bank holidays of a year: New Year, Carnival Monday and Tuesday, Good Friday,
 * Tiradentes, Labour Day, Corpus Christi, Independence, Our Lady Aparecida, All Souls, the
 * Republic, Black Consciousness (from 2024) and Christmas. Local holidays are not known.
 */
export const holidays = (year: number): ReadonlySet<Day> => {
  const cached = holidayCache.get(year)
  if (cached !== undefined) return cached
  const fixed = (month: number, day: number) => Date.UTC(year, month - 1, day) / dayMs
  const e = easter(year)
  const days = new Set<Day>([
    fixed(1, 1),
    e - 48,
    e - 47,
    e - 2,
    fixed(4, 21),
    fixed(5, 1),
    e + 60,
    fixed(9, 7),
    fixed(10, 12),
    fixed(11, 2),
    fixed(11, 15),
    ...(year >= 2024 ? [fixed(11, 20)] : []),
    fixed(12, 25)
  ])
  holidayCache.set(year, days)
  return days
}

/** Monday to Friday, not a national bank holiday. */
export const isBusinessDay = (day: Day): boolean => {
  const weekday = new Date(day * dayMs).getUTCDay()
  if (weekday === 0 || weekday === 6) return false
  return !holidays(new Date(day * dayMs).getUTCFullYear()).has(day)
}

/** The day itself when a business day, else the next business day. */
export const nextBusinessDay = (day: Day): Day => {
  let d = day
  while (!isBusinessDay(d)) d++
  return d
}

/** Business days `d` with `from <= d < to`. */
const businessDaysIn = (from: Day, to: Day): number => {
  let n = 0
  for (let d = from; d < to; d++) if (isBusinessDay(d)) n++
  return n
}

/**
 * The day of a date the request schemas already checked (YYYY-MM-DD); anything else is a defect
 * (a bug, not a refusal).
 */
export const checkedDay = (text: string): Day => {
  const day = parseDay(text)
  if (day === undefined) throw new Error(`Not a YYYY-MM-DD date: ${JSON.stringify(text)}`)
  return day
}

/** The due date moved to a business day: the day every rule refers to. */
export const effectiveDueDay = (terms: DueTerms): Day => nextBusinessDay(checkedDay(terms.dueDate))

/** The last day the charge can be paid (inclusive). */
export const lastPayableDay = (terms: DueTerms): Day =>
  nextBusinessDay(effectiveDueDay(terms) + terms.daysAfterDue)

/** The first instant the charge can no longer be paid: the end of its last payable day. */
export const expiresAt = (terms: DueTerms): number => endOfDay(lastPayableDay(terms))

// ---------------------------------------------------------------------------------------------
// Amounts
// ---------------------------------------------------------------------------------------------

/** numerator / denominator rounded half-up (both positive). */
const roundHalfUp = (numerator: bigint, denominator: bigint): number =>
  Number((2n * numerator + denominator) / (2n * denominator))

/** `base x hundredths% x count / per`, rounded half-up to the centavo. */
const percentOf = (base: number, hundredths: number, count: number, per: number): number =>
  roundHalfUp(BigInt(base) * BigInt(hundredths) * BigInt(count), 10_000n * BigInt(per))

/** A fixed amount, or a percentage of `base`. */
const flat = (base: number, rule: FlatRule | null): number =>
  rule === null ? 0 : rule.type === "fixed" ? rule.value : percentOf(base, rule.value, 1, 1)

/**
 * The amount percent fines, interest and discounts are taken of: the original less the
 * abatement (never below 0: an abatement the request schemas let through as large as the
 * original leaves nothing to take a percentage of).
 */
const baseOf = (original: Cents, abatement: number): number => Math.max(0, original - abatement)

/** The parts of what is due on a day, in centavos. */
export interface AmountDue {
  readonly original: Cents
  readonly abatement: Cents
  readonly discount: Cents
  readonly fine: Cents
  readonly interest: Cents
  /** `original - abatement - discount + fine + interest`, at least 1. */
  readonly total: Cents
  /** False after the last payable day: a PIX then is returned, not credited. */
  readonly payable: boolean
}

/** The discount on `day` (before or on the due date), percentages of `base`. */
const discountOn = (base: number, terms: DueTerms, day: Day, due: Day): number => {
  const rule = terms.discount
  if (rule === null || day > due) return 0
  switch (rule.type) {
    case "fixedUntil":
    case "percentUntil": {
      // The first deadline not yet passed; one on the due date moves with it.
      const deadlines = rule.dates
        .map((d) => ({ until: d.until === terms.dueDate ? due : checkedDay(d.until), value: d.value }))
        .filter((d) => day <= d.until)
        .sort((a, b) => a.until - b.until)
      const applicable = deadlines[0]
      if (applicable === undefined) return 0
      return rule.type === "fixedUntil" ? applicable.value : percentOf(base, applicable.value, 1, 1)
    }
    case "amountPerDayEarly":
      return rule.value * (due - day)
    case "amountPerBusinessDayEarly":
      return rule.value * businessDaysIn(day, due)
    case "percentPerDayEarly":
      return percentOf(base, rule.value, due - day, 1)
    case "percentPerBusinessDayEarly":
      return percentOf(base, rule.value, businessDaysIn(day, due), 1)
  }
}

/** The interest on `day` (after the due date), percentages of `base`. */
const interestOn = (base: number, rule: InterestRule | null, day: Day, due: Day): number => {
  if (rule === null || day <= due) return 0
  const calendar = day - due
  const business = businessDaysIn(due + 1, day + 1)
  switch (rule.type) {
    case "amountPerDay":
      return rule.value * calendar
    case "percentPerDay":
      return percentOf(base, rule.value, calendar, 1)
    case "percentPerMonth":
      return percentOf(base, rule.value, calendar, 30)
    case "percentPerYear":
      return percentOf(base, rule.value, calendar, 365)
    case "amountPerBusinessDay":
      return rule.value * business
    case "percentPerBusinessDay":
      return percentOf(base, rule.value, business, 1)
    case "percentPerMonthBusinessDays":
      return percentOf(base, rule.value, business, 21)
    case "percentPerYearBusinessDays":
      return percentOf(base, rule.value, business, 252)
  }
}

/** What a due-date charge of `original` with `terms` asks for a PIX paid on `day`. */
export const amountDue = (original: Cents, terms: DueTerms, day: Day): AmountDue => {
  const due = effectiveDueDay(terms)
  const abatement = flat(original, terms.abatement)
  const base = baseOf(original, abatement)
  const discount = discountOn(base, terms, day, due)
  const late = day > due
  const fine = late ? flat(base, terms.fine) : 0
  const interest = interestOn(base, terms.interest, day, due)
  const total = Math.max(1, original - abatement - discount + fine + interest)
  return {
    original,
    abatement: abatement as Cents,
    discount: discount as Cents,
    fine: fine as Cents,
    interest: interest as Cents,
    total: total as Cents,
    payable: day <= lastPayableDay(terms)
  }
}

/** `amountDue` for an instant. */
export const amountDueAt = (original: Cents, terms: DueTerms, ms: number): AmountDue =>
  amountDue(original, terms, dayOf(ms))

/** The largest raw reduction (abatement + discount) on any day from `from` on, unclamped. */
export const largestReductionFrom = (original: Cents, terms: DueTerms, from: Day): number => {
  const due = effectiveDueDay(terms)
  const abatement = flat(original, terms.abatement)
  const base = baseOf(original, abatement)
  let most = 0
  for (let d = from; d <= due; d++) most = Math.max(most, discountOn(base, terms, d, due))
  return abatement + most
}
