/**
 * The amount of a due-date charge (cobv) against an oracle written here from the standard's text
 * and docs/decisions.md "Due-date charges", independently of `DueDate.ts`: exact fractions of
 * BigInts, dates as `YYYY-MM-DD` strings stepped one day at a time, and the bank holidays of
 * 2026 to 2028 as published (a list, not Easter arithmetic).
 */
import { describe, expect, it } from "@effect/vitest"
import { must } from "@pixgate/testkit/must"
import { FastCheck as fc } from "effect"
import * as DueDate from "../src/domain/DueDate.js"
import * as Money from "../src/domain/Money.js"

// --- the oracle ----------------------------------------------------------------------------

/** Published national bank holidays (Carnival and Corpus Christi included: banks close). */
const publishedHolidays = new Set([
  // 2026: Easter April 5
  "2026-01-01", "2026-02-16", "2026-02-17", "2026-04-03", "2026-04-21", "2026-05-01", "2026-06-04",
  "2026-09-07", "2026-10-12", "2026-11-02", "2026-11-15", "2026-11-20", "2026-12-25",
  // 2027: Easter March 28
  "2027-01-01", "2027-02-08", "2027-02-09", "2027-03-26", "2027-04-21", "2027-05-01", "2027-05-27",
  "2027-09-07", "2027-10-12", "2027-11-02", "2027-11-15", "2027-11-20", "2027-12-25",
  // 2028: Easter April 16
  "2028-01-01", "2028-02-28", "2028-02-29", "2028-04-14", "2028-04-21", "2028-05-01", "2028-06-15",
  "2028-09-07", "2028-10-12", "2028-11-02", "2028-11-15", "2028-11-20", "2028-12-25"
]) // biome-ignore format: one year a line

const step = (date: string, days: number): string => {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number]
  const next = new Date(Date.UTC(y, m - 1, d + days))
  return next.toISOString().slice(0, 10)
}
const weekday = (date: string) => new Date(`${date}T12:00:00Z`).getUTCDay()
const business = (date: string) => weekday(date) !== 0 && weekday(date) !== 6 && !publishedHolidays.has(date)
const rollForward = (date: string) => {
  let d = date
  while (!business(d)) d = step(d, 1)
  return d
}
/** Days from a to b (b after a): stepped, not subtracted. */
const daysBetween = (a: string, b: string) => {
  let n = 0
  for (let d = a; d < b; d = step(d, 1)) n++
  return n
}
/** Business days in (a, b]. */
const businessAfterUpTo = (a: string, b: string) => {
  let n = 0
  for (let d = step(a, 1); d <= b; d = step(d, 1)) if (business(d)) n++
  return n
}
/** Business days in [a, b). */
const businessFromBefore = (a: string, b: string) => {
  let n = 0
  for (let d = a; d < b; d = step(d, 1)) if (business(d)) n++
  return n
}

/** A fraction of BigInts. */
type Q = readonly [bigint, bigint]
const q = (n: bigint | number, d: bigint | number = 1n): Q => [BigInt(n), BigInt(d)]
const mul = (a: Q, b: Q): Q => [a[0] * b[0], a[1] * b[1]]
const div = (a: Q, b: Q): Q => [a[0] * b[1], a[1] * b[0]]
/** Nearest integer, halves up (non-negative values). */
const round = (a: Q): bigint => {
  const whole = a[0] / a[1]
  const rest = a[0] - whole * a[1]
  return 2n * rest >= a[1] ? whole + 1n : whole
}
/** A two-decimal value of the API (hundredths) as the decimal it is: reais or percent. */
const decimal = (hundredths: number): Q => q(hundredths, 100)

/** What the standard's rules ask for on `pay`, in centavos, and whether it may still be paid. */
const oracle = (originalCents: number, t: DueDate.DueTerms, pay: string) => {
  const original = q(originalCents, 100) // reais
  const pct = (p: Q) => div(mul(original, p), q(100))
  const due = rollForward(t.dueDate)
  const last = rollForward(step(due, t.daysAfterDue))
  const cents = (reais: Q) => round(mul(reais, q(100)))
  let abatement = 0n
  if (t.abatement !== null)
    abatement = cents(
      t.abatement.type === "fixed" ? decimal(t.abatement.value) : pct(decimal(t.abatement.value))
    )
  // Percent fines, interest and discounts: of the original less the abatement (the Central
  // Bank's rule); nothing to take a percentage of once the abatement covers the original.
  const left = BigInt(originalCents) - abatement
  const rest = q(left > 0n ? left : 0n, 100) // reais
  const pctLeft = (p: Q) => div(mul(rest, p), q(100))
  let discount = 0n
  if (t.discount !== null && pay <= due) {
    const r = t.discount
    if (r.type === "fixedUntil" || r.type === "percentUntil") {
      const open = r.dates
        .map((d) => ({ until: d.until === t.dueDate ? due : d.until, value: d.value }))
        .filter((d) => pay <= d.until)
        .sort((a, b) => (a.until < b.until ? -1 : 1))
      if (open.length > 0) {
        const v = decimal(open[0].value)
        discount = cents(r.type === "fixedUntil" ? v : pctLeft(v))
      }
    } else if ("value" in r) {
      const early = r.type.includes("Business") ? businessFromBefore(pay, due) : daysBetween(pay, due)
      const v = decimal(r.value)
      discount = cents(r.type.startsWith("amount") ? mul(v, q(early)) : mul(pctLeft(v), q(early)))
    }
  }
  let fine = 0n
  let interest = 0n
  if (pay > due) {
    if (t.fine !== null)
      fine = cents(t.fine.type === "fixed" ? decimal(t.fine.value) : pctLeft(decimal(t.fine.value)))
    if (t.interest !== null) {
      const v = decimal(t.interest.value)
      const calendar = daysBetween(due, pay)
      const biz = businessAfterUpTo(due, pay)
      const perDay: Record<DueDate.InterestType, Q> = {
        amountPerDay: mul(v, q(calendar)),
        percentPerDay: mul(pctLeft(v), q(calendar)),
        percentPerMonth: div(mul(pctLeft(v), q(calendar)), q(30)),
        percentPerYear: div(mul(pctLeft(v), q(calendar)), q(365)),
        amountPerBusinessDay: mul(v, q(biz)),
        percentPerBusinessDay: mul(pctLeft(v), q(biz)),
        percentPerMonthBusinessDays: div(mul(pctLeft(v), q(biz)), q(21)),
        percentPerYearBusinessDays: div(mul(pctLeft(v), q(biz)), q(252))
      }
      interest = cents(perDay[t.interest.type])
    }
  }
  let total = BigInt(originalCents) - abatement - discount + fine + interest
  if (total < 1n) total = 1n
  return {
    abatement: Number(abatement),
    discount: Number(discount),
    fine: Number(fine),
    interest: Number(interest),
    total: Number(total),
    payable: pay <= last
  }
}

// --- generators ------------------------------------------------------------------------------

const firstDay = must(DueDate.parseDay("2026-01-01"), 'DueDate.parseDay("2026-01-01")')
const dayText = (offset: number) => DueDate.formatDay(firstDay + offset)

const flatRule = fc.record({
  type: fc.constantFrom("fixed" as const, "percent" as const),
  value: fc.integer({ min: 1, max: 9_999 })
})
const interestRule = fc.record({
  type: fc.constantFrom(...DueDate.interestTypes),
  value: fc.integer({ min: 1, max: 5_000 })
})

const scenario = fc
  .record({
    original: fc.integer({ min: 1, max: 100_000_000 }),
    created: fc.integer({ min: 0, max: 540 }),
    dueIn: fc.integer({ min: 0, max: 120 }),
    daysAfterDue: fc.integer({ min: 0, max: 60 }),
    payIn: fc.integer({ min: 0, max: 240 }),
    fine: fc.option(flatRule),
    interest: fc.option(interestRule),
    abatement: fc.option(flatRule),
    discountKind: fc.constantFrom("none", "dates", "daily"),
    dateType: fc.constantFrom(...DueDate.dateDiscountTypes),
    dailyType: fc.constantFrom(...DueDate.dailyDiscountTypes),
    dates: fc.uniqueArray(
      fc.record({ before: fc.integer({ min: 0, max: 120 }), value: fc.integer({ min: 1, max: 9_999 }) }),
      {
        minLength: 1,
        maxLength: 3,
        selector: (d) => d.before
      }
    ),
    dailyValue: fc.integer({ min: 1, max: 500 })
  })
  .map((s) => {
    const due = s.created + s.dueIn
    const discount: DueDate.DiscountRule | null =
      s.discountKind === "none"
        ? null
        : s.discountKind === "dates"
          ? {
              type: s.dateType,
              dates: s.dates.map((d) => ({
                until: dayText(due - Math.min(d.before, s.dueIn)),
                value: d.value
              }))
            }
          : { type: s.dailyType, value: s.dailyValue }
    const terms: DueDate.DueTerms = {
      dueDate: dayText(due),
      daysAfterDue: s.daysAfterDue,
      fine: s.fine,
      interest: s.interest,
      abatement: s.abatement,
      discount
    }
    return { original: Money.Cents(s.original), terms, pay: dayText(s.created + s.payIn) }
  })

describe("DueDate", () => {
  it.prop(
    "the amount due on any day is the standard's, computed independently",
    [scenario],
    ([s]) => {
      const expected = oracle(s.original, s.terms, s.pay)
      const actual = DueDate.amountDue(
        s.original,
        s.terms,
        must(DueDate.parseDay(s.pay), "DueDate.parseDay(s.pay)")
      )
      expect({
        abatement: actual.abatement,
        discount: actual.discount,
        fine: actual.fine,
        interest: actual.interest,
        total: actual.total,
        payable: actual.payable
      }).toEqual(expected)
    },
    { fastCheck: { numRuns: 2000 } }
  )

  it.prop(
    "with an abatement, percentages are of what is left of the original, as the payer's bank computes them",
    [scenario.filter((s) => s.terms.abatement !== null)],
    ([s]) => {
      const day = must(DueDate.parseDay(s.pay), "DueDate.parseDay(s.pay)")
      expect(DueDate.amountDue(s.original, s.terms, day).total).toBe(oracle(s.original, s.terms, s.pay).total)
    },
    { fastCheck: { numRuns: 5000 } }
  )

  it("6.66 with a fixed abatement of 1.00, a 10% fine and 1% a day, paid 9 days late, asks 6.74", () => {
    const terms: DueDate.DueTerms = {
      dueDate: "2026-03-10",
      daysAfterDue: 30,
      fine: { type: "percent", value: 1_000 },
      interest: { type: "percentPerDay", value: 100 },
      discount: null,
      abatement: { type: "fixed", value: 100 }
    }
    const paid = must(DueDate.parseDay("2026-03-19"), "DueDate.parseDay(2026-03-19)")
    // 5.66 left after the abatement: fine 0.566 -> 0.57, interest 9% = 0.5094 -> 0.51.
    expect(DueDate.amountDue(Money.Cents(666), terms, paid)).toMatchObject({
      abatement: 100,
      fine: 57,
      interest: 51,
      total: 674
    })
  })

  it.prop(
    "the holidays computed from Easter are the published ones",
    [fc.integer({ min: 0, max: 3 * 366 })],
    ([offset]) => {
      const day = firstDay + offset
      const text = DueDate.formatDay(day)
      if (text > "2028-12-31") return
      expect(DueDate.isBusinessDay(day)).toBe(business(text))
    }
  )

  // The standard's examples A to G of `validadeAposVencimento` (2020 and 2021 calendars).
  it.each([
    ["2020-10-20", 4, "2020-10-26"],
    ["2020-12-25", 0, "2020-12-28"],
    ["2020-12-25", 1, "2020-12-29"],
    ["2020-12-25", 3, "2020-12-31"],
    ["2020-12-25", 4, "2021-01-04"],
    ["2021-08-27", 5, "2021-09-01"],
    ["2021-08-28", 5, "2021-09-06"]
  ])("due %s, %i days after: payable through %s", (dueDate, daysAfterDue, last) => {
    const terms: DueDate.DueTerms = {
      dueDate,
      daysAfterDue,
      fine: null,
      interest: null,
      discount: null,
      abatement: null
    }
    expect(DueDate.formatDay(DueDate.lastPayableDay(terms))).toBe(last)
    const lastDay = must(DueDate.parseDay(last), "DueDate.parseDay(last)")
    expect(DueDate.amountDue(Money.Cents(100), terms, lastDay).payable).toBe(true)
    expect(DueDate.amountDue(Money.Cents(100), terms, lastDay + 1).payable).toBe(false)
  })

  it("São Paulo days: a charge expires at the end of its last day, 03:00 UTC the next", () => {
    const terms: DueDate.DueTerms = {
      dueDate: "2026-03-10",
      daysAfterDue: 0,
      fine: null,
      interest: null,
      discount: null,
      abatement: null
    }
    expect(new Date(DueDate.expiresAt(terms)).toISOString()).toBe("2026-03-11T03:00:00.000Z")
    expect(DueDate.formatDay(DueDate.dayOf(Date.parse("2026-03-11T02:59:59.999Z")))).toBe("2026-03-10")
    expect(DueDate.formatDay(DueDate.dayOf(Date.parse("2026-03-11T03:00:00.000Z")))).toBe("2026-03-11")
  })
})
