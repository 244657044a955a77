/**
 * The panel's CSV and OFX exports over real stores (in memory and a SQLite file), read back with
 * independent parsers from npm: csv-parse (`;` and decimal commas, then `,` and `.`) and two OFX
 * parsers (ofx-js, node-ofx-parser). Amounts are compared with the store's own listing to the
 * centavo, and the statement's movements with its balances. A 50,000-row export shows the first
 * bytes before the second page is read and the store read no faster than the reader takes.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Domain, Fees, Ids, Ledger, MemoryStore, type Money, Store } from "@pixgate/core"
import { SqliteStore } from "@pixgate/store-sqlite"
import { must } from "@pixgate/testkit/must"
import { parse as parseCsv } from "csv-parse/sync"
import { Effect, Layer, ManagedRuntime, Stream } from "effect"
// @ts-expect-error: node-ofx-parser has no types
import nodeOfx from "node-ofx-parser"
import { parse as parseOfx } from "ofx-js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Exports from "../src/Exports.js"

const C = (n: number) => n as Money.Cents

/** 23:30 in São Paulo on 2026-10-28 (02:30 UTC on the 29th): the sale belongs to the 28th. */
const lateEvening = Date.UTC(2026, 9, 29, 2, 30, 15)

interface Fixture {
  readonly merchantId: Domain.MerchantId
  readonly names: ReadonlyArray<string>
}

/** A merchant's month: a top-up, paid and pending charges, a payout, a failed payout, a refund, a payment. */
const seed = Effect.gen(function* () {
  const st = yield* Store.Store
  const at = Date.UTC(2026, 9, 1, 12)
  const merchantId = Ids.merchantId(at)
  const other = Ids.merchantId(at + 1)
  for (const id of [merchantId, other])
    yield* st.createMerchant({
      id,
      name: "Loja",
      city: "SAO PAULO",
      feePlan: Fees.defaultPlan,
      createdAt: at
    })
  yield* st.postEntry(Ledger.sandboxTopUp(merchantId, C(100_000), at))
  const insert = (tx: Domain.Transaction, entry: Domain.JournalEntry | null) =>
    st.insertTransactions({ transactions: [tx], entry, guard: null, effects: { events: [], jobs: [] } })
  const names = [
    'João "Zé" da Silva; Ltda',
    '=HYPERLINK("http://x")',
    "Açaí & Cia <ltda>",
    "Maria\nSegunda linha"
  ]
  let t = at + 60_000
  for (const [i, amount] of [250010, 199, 123456, 700].entries()) {
    const fees = Fees.forCharge(Fees.defaultPlan, C(amount))
    const id = Ids.transactionId(t)
    const tx = Domain.newTransaction({
      id,
      merchantId,
      mode: "test",
      type: "deposit",
      status: "completed",
      amount: C(amount),
      createdAt: i === 0 ? lateEvening : t,
      feeAmount: fees.feeAmount,
      gatewayFeeAmount: fees.gatewayFeeAmount,
      netAmount: fees.netAmount,
      clientName: names[i] ?? null,
      clientDocument: "52998224725",
      description: `Pedido ${i}; "${names[i]}"`,
      txid: `txid${i}abcdefghijklmnopqrstuvwxyz`,
      endToEndId: `E1234567820261028${i}`,
      paidAt: (i === 0 ? lateEvening : t) + 1000
    })
    yield* insert(tx, Ledger.chargeCompleted(tx, tx.paidAt ?? t))
    t += 60_000
  }
  // A pending charge: listed, no movement.
  yield* insert(
    Domain.newTransaction({
      id: Ids.transactionId(t),
      merchantId,
      mode: "test",
      type: "deposit",
      status: "pending",
      amount: C(5000),
      createdAt: t
    }),
    null
  )
  t += 60_000
  const payout = (status: Domain.TransactionStatus, amount: number) => {
    const fees = Fees.forPayout(Fees.defaultPlan, C(amount))
    return Domain.newTransaction({
      id: Ids.transactionId(t),
      merchantId,
      mode: "test",
      type: "withdrawal",
      status,
      amount: C(amount),
      createdAt: t,
      feeAmount: fees.feeAmount,
      gatewayFeeAmount: fees.gatewayFeeAmount,
      netAmount: fees.netAmount,
      pixKey: "ana@aurora.example",
      description: "Saque semanal"
    })
  }
  const sent = payout("completed", 150075)
  yield* insert(sent, Ledger.payoutCreated(sent, t))
  t += 60_000
  const failed = payout("failed", 1234)
  yield* insert(failed, Ledger.payoutCreated(failed, t))
  yield* st.postEntry(Ledger.payoutFailed({ ...failed, failureReason: "bank_rejected" }, t + 5000))
  t += 60_000
  // A refund of part of the first charge, and an internal payment to another merchant.
  const first = must(
    (yield* st.listTransactions({
      merchantId,
      mode: "test",
      type: "deposit",
      offset: 0,
      limit: 100
    })).rows.find((r) => r.createdAt === lateEvening),
    '(yield* st.listTransactions({ merchantId, mode: "test", type: "deposit", offset: 0, limit: 100 })).rows.find((r) => r.createdAt === lateEvening)'
  )
  yield* st.postEntry(
    Ledger.refundCreated(
      {
        id: `rfd_${Ids.newId("x", t).slice(2)}` as Domain.RefundId,
        transactionId: first.id,
        merchantId,
        mode: "test",
        amount: C(1010),
        status: "pending",
        description: null,
        failureReason: null,
        returnId: null,
        createdAt: t,
        updatedAt: t
      },
      t
    )
  )
  t += 60_000
  const sender = Domain.newTransaction({
    id: Ids.transactionId(t),
    merchantId,
    mode: "test",
    type: "payment",
    status: "completed",
    amount: C(333),
    createdAt: t,
    counterpartyId: other
  })
  const receiver = Domain.newTransaction({
    id: Ids.transactionId(t + 1),
    merchantId: other,
    mode: "test",
    type: "payment",
    status: "completed",
    amount: C(333),
    createdAt: t,
    counterpartyId: merchantId
  })
  yield* st.insertTransactions({
    transactions: [sender, receiver],
    entry: Ledger.payment(sender, receiver, t),
    guard: null,
    effects: { events: [], jobs: [] }
  })
  return { merchantId, names } satisfies Fixture
})

/** Reais text as centavos: `2500,10` / `2500.10` / `-12.34`, exactly. */
const cents = (text: string, separator: "," | "."): number => {
  const m = (separator === "," ? /^(-?)(\d+),(\d{2})$/ : /^(-?)(\d+)\.(\d{2})$/).exec(text)
  if (m === null) throw new Error(`not an amount with two places: ${text}`)
  const value = Number(m[2]) * 100 + Number(m[3])
  return m[1] === "-" ? -value : value
}

const stores = [
  ["memory", () => Effect.succeed(MemoryStore.layer)],
  [
    "SQLite",
    () =>
      Effect.promise(() => mkdtemp(join(tmpdir(), "pixgate-exports-"))).pipe(
        Effect.map((dir) => {
          dirs.push(dir)
          return SqliteStore.layer({ filename: join(dir, "store.db") }) as Layer.Layer<Store.Stores, never>
        })
      )
  ]
] as const

const dirs: Array<string> = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

describe.each(stores)("exports over the %s store", (_name, makeLayer) => {
  let runtime: ManagedRuntime.ManagedRuntime<Store.Stores, never>
  let fixture: Fixture
  const run = <A>(e: Effect.Effect<A, Store.StoreError, Store.Store>) => runtime.runPromise(e)
  const now = Date.UTC(2026, 10, 26, 12)

  beforeAll(async () => {
    runtime = ManagedRuntime.make(await Effect.runPromise(makeLayer()))
    fixture = await run(seed)
  })
  afterAll(() => runtime?.dispose())

  const listing = () =>
    run(
      Effect.flatMap(Store.Store, (st) =>
        st.listTransactions({ merchantId: fixture.merchantId, mode: "test", offset: 0, limit: 1000 })
      )
    )

  it("writes the Brazilian CSV a pt-BR spreadsheet opens: BOM, `;`, decimal comma, São Paulo days, Portuguese", async () => {
    const text = await run(
      Exports.text(Exports.csv({ merchantId: fixture.merchantId, mode: "test" }, "br", now))
    )
    expect(text.startsWith("\uFEFF")).toBe(true)
    const rows: Array<Record<string, string>> = parseCsv(text, { delimiter: ";", bom: true, columns: true })
    const engine = (await listing()).rows
    expect(rows.map((r) => r.ID)).toEqual(engine.map((tx) => tx.id))
    for (const [i, tx] of engine.entries()) {
      const row = must(rows[i], "rows[i]")
      // Signed (issue 38): money in positive, payouts and fees negative.
      expect(cents(must(row.Valor, "row.Valor"), ",")).toBe(tx.type === "withdrawal" ? -tx.amount : tx.amount)
      expect(cents(must(row.Tarifa, "row.Tarifa"), ",")).toBe(0 - tx.feeAmount)
      expect(row.Descrição).toBe(tx.description ?? "")
    }
    const sum = (k: string) => rows.reduce((s, r) => s + cents(must(r[k], "r[k]"), ","), 0)
    expect(sum("Valor")).toBe(
      engine.reduce((s, tx) => s + (tx.type === "withdrawal" ? -tx.amount : tx.amount), 0)
    )
    expect(sum("Tarifa")).toBe(-engine.reduce((s, tx) => s + tx.feeAmount, 0))
    // Two places always (2500,10, never 2500,1), no platform cost, Portuguese words with agreement.
    expect(text).toContain(";2500,10;")
    expect(text).not.toMatch(/gatewayFee|gateway/i)
    expect(Object.keys(must(rows[0], "rows[0]"))).toEqual([
      "ID",
      "Data",
      "Hora",
      "Tipo",
      "Status",
      "Valor",
      "Tarifa",
      "Efeito no saldo",
      "Descrição",
      "Nome do pagador ou recebedor",
      "CPF ou CNPJ",
      "Chave PIX",
      "Identificador da cobrança (txid)",
      "ID fim a fim (E2E)",
      "Motivo da falha",
      "Data do pagamento",
      "Hora do pagamento",
      "Cobrança devolvida"
    ])
    const late = must(
      rows.find((r) => r.Valor === "2500,10"),
      'rows.find((r) => r.Valor === "2500,10")'
    )
    expect([late.Data, late.Hora, late.Tipo, late.Status]).toEqual([
      "28/10/2026",
      "23:30:15",
      "Cobrança",
      "Paga"
    ])
    expect(late["Nome do pagador ou recebedor"]).toBe('João "Zé" da Silva; Ltda')
    const payout = must(
      rows.find((r) => r.Valor === "-1500,75"),
      'rows.find((r) => r.Valor === "-1500,75")'
    )
    expect([payout.Tipo, payout.Status]).toEqual(["Saque", "Concluído"])
    expect(rows.find((r) => r.Status === "Falhou")?.Tipo).toBe("Saque")
    // A formula is text, a line break stays inside its field.
    expect(rows.some((r) => r["Nome do pagador ou recebedor"] === `'=HYPERLINK("http://x")`)).toBe(true)
    expect(rows.some((r) => r["Nome do pagador ou recebedor"] === "Maria\nSegunda linha")).toBe(true)
  })

  it("writes the international CSV: `,`, `.`, ISO-8601 UTC, English values", async () => {
    const text = await run(
      Exports.text(Exports.csv({ merchantId: fixture.merchantId, mode: "test" }, "international", now))
    )
    expect(text.startsWith("\uFEFF")).toBe(false)
    const rows: Array<Record<string, string>> = parseCsv(text, { delimiter: ",", columns: true })
    const engine = (await listing()).rows
    expect(rows.map((r) => cents(must(r.amount, "r.amount"), "."))).toEqual(
      engine.map((tx) => (tx.type === "withdrawal" ? -tx.amount : tx.amount))
    )
    expect(rows.map((r) => cents(must(r.feeAmount, "r.feeAmount"), "."))).toEqual(
      engine.map((tx) => 0 - tx.feeAmount)
    )
    const late = must(
      rows.find((r) => r.amount === "2500.10"),
      'rows.find((r) => r.amount === "2500.10")'
    )
    expect([late.createdAt, late.type, late.status]).toEqual([
      "2026-10-29T02:30:15.000Z",
      "deposit",
      "completed"
    ])
  })

  it("filters the CSV like the list (type, status, São Paulo period)", async () => {
    const text = await run(
      Exports.text(
        Exports.csv({ merchantId: fixture.merchantId, mode: "test", type: "withdrawal" }, "br", now)
      )
    )
    const rows: Array<Record<string, string>> = parseCsv(text, { delimiter: ";", bom: true, columns: true })
    expect(rows.map((r) => r.Tipo)).toEqual(["Saque", "Saque"])
  })

  it("writes an OFX statement two independent parsers read, whose movements add up to the balances", async () => {
    const from = Date.UTC(2026, 9, 1, 3)
    const q = { merchantId: fixture.merchantId, mode: "test" as const, from, to: now }
    const text = await run(Exports.text(Exports.ofx(q, now)))
    const account = Domain.availableAccount(fixture.merchantId)
    const [opening, closing, balance] = await run(
      Effect.flatMap(Store.Store, (st) =>
        Effect.all([
          st.accountBalanceBefore("test", account, from),
          st.accountBalanceBefore("test", account, now),
          st.balance(fixture.merchantId, "test")
        ])
      )
    )
    expect(closing).toBe(balance.available)

    const parsed = await parseOfx(text)
    const stmt = parsed.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS
    expect(stmt.CURDEF).toBe("BRL")
    const list = stmt.BANKTRANLIST.STMTTRN
    const trns = Array.isArray(list) ? list : [list]
    const amounts = trns.map((t: { TRNAMT: string }) => cents(t.TRNAMT, "."))
    expect(cents(stmt.LEDGERBAL.BALAMT, ".")).toBe(closing)
    expect(opening + amounts.reduce((s: number, a: number) => s + a, 0)).toBe(closing)
    // FITIDs unique; types follow the sign; fees are lines of their own.
    const fitIds = trns.map((t: { FITID: string }) => t.FITID)
    expect(new Set(fitIds).size).toBe(fitIds.length)
    for (const t of trns) expect(t.TRNTYPE).toBe(cents(t.TRNAMT, ".") < 0 ? "DEBIT" : "CREDIT")
    const feeLines = trns.filter((t: { NAME: string }) => t.NAME.startsWith("Tarifa"))
    const movements = await run(
      Effect.flatMap(Store.Store, (st) => st.listAccountMovements({ mode: "test", account, limit: 1000 }))
    )
    const feeOf = (kind: string) =>
      movements.filter((m) => m.kind === kind).reduce((s, m) => s + (m.transaction?.feeAmount ?? 0), 0)
    expect(feeLines.reduce((s: number, t: { TRNAMT: string }) => s + cents(t.TRNAMT, "."), 0)).toBe(
      -feeOf("charge.completed") - feeOf("payout.created") + feeOf("payout.failed")
    )
    // The gross charges are credits of their own: 2500.10 arrives whole, its fee leaves apart.
    expect(amounts).toContain(250010)
    expect(amounts).toContain(-150075)

    // The same file through a second parser.
    const other = nodeOfx.parse(text)
    const list2 = other.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.BANKTRANLIST.STMTTRN
    const sum2 = (Array.isArray(list2) ? list2 : [list2]).reduce(
      (s: number, t: { TRNAMT: string }) => s + cents(String(t.TRNAMT), "."),
      0
    )
    expect(opening + sum2).toBe(closing)
    // The same export twice: the same FITIDs (an import twice makes no duplicates).
    const again = await run(Exports.text(Exports.ofx(q, now)))
    expect(again.match(/<FITID>[^\r\n]+/g)).toEqual(text.match(/<FITID>[^\r\n]+/g))
    // A later period alone starts from the balance before it.
    const mid = Date.UTC(2026, 9, 1, 12, 4)
    const later = await parseOfx(await run(Exports.text(Exports.ofx({ ...q, from: mid }, now))))
    const laterList = later.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.BANKTRANLIST.STMTTRN
    const laterSum = (Array.isArray(laterList) ? laterList : [laterList]).reduce(
      (s: number, t: { TRNAMT: string }) => s + cents(t.TRNAMT, "."),
      0
    )
    const beforeMid = await run(
      Effect.flatMap(Store.Store, (st) => st.accountBalanceBefore("test", account, mid))
    )
    expect(beforeMid + laterSum).toBe(closing)
  })
})

describe("a 50,000-row export from a SQLite file", () => {
  it("streams: the first bytes come before the second page is read, and the store is read only as fast as the reader takes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pixgate-exports-"))
    dirs.push(dir)
    const runtime = ManagedRuntime.make(
      SqliteStore.layer({ filename: join(dir, "big.db") }) as Layer.Layer<Store.Stores, never>
    )
    const rows = 50_000
    const merchantId = Ids.merchantId(Date.UTC(2026, 0, 1))
    let reads = 0
    await runtime.runPromise(
      Effect.gen(function* () {
        const st = yield* Store.Store
        yield* st.createMerchant({
          id: merchantId,
          name: "Loja",
          city: "SAO PAULO",
          feePlan: Fees.defaultPlan,
          createdAt: 0
        })
        const base = Date.UTC(2026, 0, 1)
        for (let i = 0; i < rows; i += 1000) {
          const batch = Array.from({ length: 1000 }, (_, j) =>
            Domain.newTransaction({
              id: Ids.transactionId(base + i + j),
              merchantId,
              mode: "test",
              type: "deposit",
              status: "pending",
              amount: C(100 + ((i + j) % 9000)),
              createdAt: base + (i + j) * 1000,
              description: `Pedido ${i + j}`
            })
          )
          yield* st.insertTransactions({
            transactions: batch,
            entry: null,
            guard: null,
            effects: { events: [], jobs: [] }
          })
        }
      })
    )
    // Count the store's page reads as the stream pulls them.
    const counting = Layer.effect(
      Store.Store,
      Effect.map(Store.Store, (st) => ({
        ...st,
        listTransactions: (q: Store.TransactionQuery) => {
          reads++
          return st.listTransactions(q)
        }
      }))
    )
    const readable = await runtime.runPromise(
      Stream.toReadableStreamEffect(
        Exports.csv({ merchantId, mode: "test" }, "br", Date.now()).pipe(Stream.provideLayer(counting))
      )
    )
    const reader = readable.getReader()
    const first = await reader.read()
    expect(first.done).toBe(false)
    // The header and at most a page or two ahead: far from the 100 pages of the whole list.
    expect(reads).toBeLessThan(5)
    let bytes = first.value?.length ?? 0
    let lines = 0
    let chunks = 1
    let ahead = 0
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      chunks++
      bytes += next.value.length
      for (const b of next.value) if (b === 10) lines++
      // Backpressure: the store is read only as the reader takes chunks (one page per chunk after
      // the header), never the whole list ahead of it.
      ahead = Math.max(ahead, reads - chunks)
    }
    expect(lines).toBe(rows)
    expect(reads).toBeGreaterThanOrEqual(rows / Exports.pageSize)
    expect(ahead).toBeLessThanOrEqual(2)
    expect(bytes).toBeGreaterThan(2_000_000)
    await runtime.dispose()
  })
})
