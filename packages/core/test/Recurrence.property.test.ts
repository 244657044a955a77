import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as DueDate from "../src/domain/DueDate.js"
import * as R from "../src/domain/Recurrence.js"

const day = (s: string) => DueDate.checkedDay(s)
const calendarArb = fc
  .record({
    start: fc.integer({ min: day("2025-06-01"), max: day("2032-12-31") }),
    length: fc.option(fc.integer({ min: 0, max: 3 * 366 }), { nil: null }),
    periodicidade: fc.constantFrom(...R.periodicidades)
  })
  .map(
    ({ start, length, periodicidade }): R.Calendar => ({
      dataInicial: start,
      dataFinal: length === null ? null : start + length,
      periodicidade
    })
  )

describe("Pix Automático's calendar", () => {
  it("Brazilian national holidays, Easter-based ones included", () => {
    const h2026 = DueDate.holidays(2026)
    // Easter 2026 is 5 April: Carnival 16-17 Feb, Good Friday 3 Apr, Corpus Christi 4 Jun.
    for (const d of ["2026-01-01", "2026-02-16", "2026-02-17", "2026-04-03", "2026-04-21", "2026-05-01"])
      expect(h2026.has(day(d))).toBe(true)
    for (const d of ["2026-06-04", "2026-09-07", "2026-10-12", "2026-11-02", "2026-11-15", "2026-11-20"])
      expect(h2026.has(day(d))).toBe(true)
    expect(h2026.has(day("2026-12-25"))).toBe(true)
    // Easter 2027 is 28 March: Good Friday 26 Mar, Carnival 8-9 Feb, Corpus Christi 27 May.
    for (const d of ["2027-03-26", "2027-02-08", "2027-02-09", "2027-05-27"])
      expect(DueDate.holidays(2027).has(day(d))).toBe(true)
    // A due date on a Saturday before a holiday Monday settles on Tuesday.
    expect(DueDate.formatDay(R.settlementDay(day("2026-02-14"), true))).toBe("2026-02-18")
    expect(DueDate.formatDay(R.settlementDay(day("2026-02-14"), false))).toBe("2026-02-14")
  })

  it("monthly cycles keep the start's day, clamped to short months", () => {
    const start = day("2027-01-31")
    const months = [0, 1, 2, 3].map((n) => DueDate.formatDay(R.nominalDueDay(start, "MENSAL", n)))
    expect(months).toEqual(["2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30"])
    expect(DueDate.formatDay(R.nominalDueDay(day("2028-02-29"), "ANUAL", 1))).toBe("2029-02-28")
    expect(DueDate.formatDay(R.nominalDueDay(day("2027-01-10"), "SEMANAL", 2))).toBe("2027-01-24")
    expect(DueDate.formatDay(R.nominalDueDay(day("2027-11-30"), "TRIMESTRAL", 1))).toBe("2028-02-29")
  })

  it("cycles are strictly increasing, never before the start, never after the end", () => {
    fc.assert(
      fc.property(calendarArb, fc.integer({ min: 0, max: 40 }), (calendar, from) => {
        const days = R.dueDays(calendar, from, 30)
        for (let i = 0; i < days.length; i++) {
          expect(days[i]).toBeGreaterThanOrEqual(calendar.dataInicial)
          if (calendar.dataFinal !== null) expect(days[i]).toBeLessThanOrEqual(calendar.dataFinal)
          if (i > 0) expect(days[i]).toBeGreaterThan(days[i - 1] as number)
          // A settlement day is a business day on or after the due date, within a fortnight.
          const settle = R.settlementDay(days[i] as number, true)
          expect(DueDate.isBusinessDay(settle)).toBe(true)
          expect(settle - (days[i] as number)).toBeLessThan(8)
        }
        // Two cycles never share a settlement day (periods are at least 7 days).
        const settles = days.map((d) => R.settlementDay(d, true))
        expect(new Set(settles).size).toBe(settles.length)
        // The next cycle after the last listed one is past the end (or the list is full).
        if (days.length < 30) expect(R.cycleExists(calendar, from + days.length)).toBe(false)
      }),
      { numRuns: 300 }
    )
  })

  it("a cycle's charge is created 2 to 10 days before its due date, or skipped when late", () => {
    fc.assert(
      fc.property(calendarArb, fc.integer({ min: -30, max: 400 }), (calendar, offset) => {
        const today = calendar.dataInicial + offset
        const n = R.firstChargeableCycle(calendar, 0, today)
        if (n === undefined) return
        expect(R.cycleExists(calendar, n)).toBe(true)
        const due = R.nominalDueDay(calendar.dataInicial, calendar.periodicidade, n)
        expect(R.chargeWindow(due).closes).toBeGreaterThanOrEqual(today)
        expect(due - R.chargeWindow(due).opens).toBe(10)
        expect(due - R.chargeWindow(due).closes).toBe(2)
        if (n > 0) {
          const before = R.nominalDueDay(calendar.dataInicial, calendar.periodicidade, n - 1)
          expect(R.chargeWindow(before).closes).toBeLessThan(today)
        }
      }),
      { numRuns: 300 }
    )
  })
})

describe("Pix Automático's identifiers", () => {
  it("idRec: R, R|N, ISPB, yyyyMMdd, 11 alphanumerics", () => {
    const now = Date.UTC(2026, 11, 2, 12)
    const retry = R.newIdRec("PERMITE_3R_7D", "12345678", now)
    const none = R.newIdRec("NAO_PERMITE", "12345678", now)
    expect(retry).toMatch(/^RR1234567820261202[a-zA-Z0-9]{11}$/)
    expect(none).toMatch(/^RN1234567820261202[a-zA-Z0-9]{11}$/)
    expect(R.isIdRec(retry)).toBe(true)
    expect(R.isIdRec(`${retry}x`)).toBe(false)
    expect(R.newIdSolicRec("12345678", now)).toMatch(/^SC1234567820261202[a-zA-Z0-9]{11}$/)
  })
})

describe("the retry policy", () => {
  const attemptArb = fc.record({
    dataLiquidacao: fc.integer({ min: 0, max: 12 }),
    tipo: fc.constantFrom<R.TentativaTipo>("AGND", "NTAG", "RIFL"),
    status: fc.constantFrom(...R.tentativaStatuses)
  })

  it("never allows a retry outside PERMITE_3R_7D's rules", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...R.politicas),
        fc.constantFrom(...R.cobrStatuses),
        fc.integer({ min: day("2026-01-05"), max: day("2027-12-20") }),
        fc.array(attemptArb, { maxLength: 6 }),
        fc.integer({ min: -3, max: 14 }),
        fc.integer({ min: -2, max: 10 }),
        (politica, status, due, rel, dayOffset, todayOffset) => {
          const attempts = rel.map((a) => ({ ...a, dataLiquidacao: due + a.dataLiquidacao }))
          const verdict = R.retryVerdict({
            politica,
            status,
            due,
            attempts,
            day: due + dayOffset,
            today: due + todayOffset
          })
          if (!verdict.ok) return
          expect(politica).toBe("PERMITE_3R_7D")
          expect(status).toBe("ATIVA")
          expect(attempts.filter((a) => a.tipo === "NTAG").length).toBeLessThan(3)
          expect(attempts.some((a) => a.status === "AGENDADA" || a.status === "SOLICITADA")).toBe(false)
          expect(dayOffset).toBeLessThanOrEqual(7)
          expect(dayOffset).toBeGreaterThan(todayOffset)
          expect(attempts.every((a) => a.dataLiquidacao < due + dayOffset)).toBe(true)
          expect(DueDate.isBusinessDay(due + dayOffset)).toBe(true)
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("allows the third retry and refuses the fourth", () => {
    const due = day("2026-03-10")
    const failed = (d: number, tipo: R.TentativaTipo) => ({
      dataLiquidacao: due + d,
      tipo,
      status: "REJEITADA" as const
    })
    const base = { politica: "PERMITE_3R_7D" as const, status: "ATIVA" as const, due, today: due }
    const three = [failed(0, "AGND"), failed(1, "NTAG"), failed(2, "NTAG")]
    expect(R.retryVerdict({ ...base, attempts: three, day: due + 3 })).toEqual({ ok: true })
    expect(R.retryVerdict({ ...base, attempts: [...three, failed(3, "NTAG")], day: due + 6 })).toEqual({
      ok: false,
      reason: "too_many"
    })
    expect(R.retryVerdict({ ...base, attempts: three, day: due + 8 }).ok).toBe(false)
    expect(R.retryVerdict({ ...base, politica: "NAO_PERMITE", attempts: three, day: due + 3 })).toEqual({
      ok: false,
      reason: "policy_forbids"
    })
  })

  it("state machines: final states are final, CRIADA reaches every end", () => {
    for (const s of R.recStatuses)
      if (R.isFinalRec(s)) for (const t of R.recStatuses) expect(R.canMoveRec(s, t)).toBe(false)
    expect(R.canMoveRec("APROVADA", "CANCELADA")).toBe(true)
    expect(R.canMoveRec("APROVADA", "REJEITADA")).toBe(false)
    expect(R.canMoveCobR("CONCLUIDA", "CANCELADA")).toBe(false)
    expect(R.canMoveSolicRec("RECEBIDA", "ACEITA")).toBe(true)
    expect(R.canMoveSolicRec("CRIADA", "ACEITA")).toBe(false)
    expect(R.canCancelCycle("ATIVA", day("2026-03-10"), day("2026-03-09"))).toBe(true)
    expect(R.canCancelCycle("ATIVA", day("2026-03-10"), day("2026-03-10"))).toBe(false)
  })
})
