/**
 * The baselines, as a child process loaded exactly like Pixgate's server: a bare node:http
 * server that answers a fixed JSON (`GET /health`) and, with `BASELINE_DATABASE` set, does the
 * least SQL each operation needs through the driver Pixgate uses (better-sqlite3 for SQLite,
 * node-postgres for Postgres, pool of 10 like `PgStore`), on the same schema:
 *
 * - `POST /payout {account, merchantId, amount}`: one transaction of the guarded
 *   `UPDATE balances ... WHERE amount >= debit` and one `INSERT INTO transactions`;
 * - `POST /charge {merchantId, amount}`: one `INSERT INTO transactions` (no BR Code, no QR);
 * - `GET /list?merchant&status&from&to`: the page of 20 and the total of the same filter from the
 *   per-day counts, the statements Pixgate's store runs.
 *
 * Run: `node --import tsx bench/lib/baseline-server.ts` with PORT, HOST and BASELINE_DATABASE.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import Database from "better-sqlite3"
import pg from "pg"

type Row = Record<string, unknown>

interface Ops {
  readonly payout: (account: string, merchantId: string, amount: number) => Promise<boolean>
  readonly charge: (merchantId: string, amount: number) => Promise<void>
  readonly list: (
    merchantId: string,
    status: string,
    from: number,
    to: number
  ) => Promise<{ rows: Row[]; total: number }>
}

const fee = 33
let counter = 0
const nextId = () => `tx_baseline_${process.pid}_${++counter}`
const random = (n: number) => randomBytes(n).toString("base64url").replace(/[-_]/g, "0").slice(0, n)

// The same two statements Pixgate's store runs for this filter: the page, and the total summed
// from the per-day counts (the bounds are whole UTC days).
const listSql = (p: (i: number) => string) => {
  const where = `merchant_id = ${p(1)} AND mode = 'test' AND status = ${p(2)} AND created_at >= ${p(3)} AND created_at < ${p(4)}`
  return {
    page: `SELECT * FROM transactions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0`,
    count: `SELECT COALESCE(SUM(n), 0) AS n FROM transaction_counts WHERE merchant_id = ${p(1)} AND mode = 'test'
      AND status = ${p(2)} AND day >= CAST(${p(3)} AS BIGINT) / 86400000 AND day < CAST(${p(4)} AS BIGINT) / 86400000`
  }
}

const insertPayout = (p: (i: number) => string) =>
  `INSERT INTO transactions (id, merchant_id, mode, type, status, amount, fee_amount, gateway_fee_amount,
    net_amount, pix_key, pix_key_type, end_to_end_id, created_at, updated_at)
   VALUES (${p(1)}, ${p(2)}, 'test', 'withdrawal', 'pending', ${p(3)}, ${fee}, 10, ${p(4)}, 'cliente@example.com',
    'email', ${p(5)}, ${p(6)}, ${p(6)})`

const insertCharge = (p: (i: number) => string) =>
  `INSERT INTO transactions (id, merchant_id, mode, type, status, amount, fee_amount, gateway_fee_amount,
    net_amount, txid, qr_code, expires_at, created_at, updated_at)
   VALUES (${p(1)}, ${p(2)}, 'test', 'deposit', 'pending', ${p(3)}, 0, 0, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(7)})`

const debitSql = (p: (i: number) => string) =>
  `UPDATE balances SET amount = amount - ${p(1)} WHERE mode = 'test' AND account = ${p(2)} AND amount >= ${p(1)} RETURNING account`

const qrText = (txid: string) =>
  `00020101021226850014br.gov.bcb.pix2563pix.pixgate.dev/v2/cob/${txid}5204000053039865802BR`

// better-sqlite3 binds named parameters from an object: @p1, @p2, ...
const named = (values: ReadonlyArray<unknown>) => Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v]))

const sqlite = (filename: string): Ops => {
  const db = new Database(filename)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
  db.pragma("busy_timeout = 5000")
  const q = (i: number) => `@p${i}`
  const debit = db.prepare(debitSql(q))
  const insert = db.prepare(insertPayout(q))
  const charge = db.prepare(insertCharge(q))
  const list = listSql(q)
  const page = db.prepare(list.page)
  const count = db.prepare(list.count)
  const payout = db.transaction((account: string, merchantId: string, amount: number) => {
    if (debit.get(named([amount + fee, account])) === undefined) return false
    insert.run(named([nextId(), merchantId, amount, amount, `E99999999${random(23)}`, Date.now()]))
    return true
  })
  return {
    payout: async (account, merchantId, amount) => payout(account, merchantId, amount),
    charge: async (merchantId, amount) => {
      const now = Date.now()
      const txid = random(32)
      charge.run(named([nextId(), merchantId, amount, txid, qrText(txid), now + 3_600_000, now]))
    },
    list: async (merchantId, status, from, to) => {
      const params = named([merchantId, status, from, to])
      return {
        rows: page.all(params) as Row[],
        total: Number((count.get(params) as { n: number }).n)
      }
    }
  }
}

const postgres = (url: string): Ops => {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const q = (i: number) => `$${i}`
  const list = listSql(q)
  return {
    payout: async (account, merchantId, amount) => {
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        const debited = await client.query(debitSql(q), [amount + fee, account])
        if (debited.rowCount === 0) {
          await client.query("ROLLBACK")
          return false
        }
        const now = Date.now()
        await client.query(insertPayout(q), [
          nextId(),
          merchantId,
          amount,
          amount,
          `E99999999${random(23)}`,
          now
        ])
        await client.query("COMMIT")
        return true
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined)
        throw error
      } finally {
        client.release()
      }
    },
    charge: async (merchantId, amount) => {
      const now = Date.now()
      const txid = random(32)
      await pool.query(insertCharge(q), [
        nextId(),
        merchantId,
        amount,
        txid,
        qrText(txid),
        now + 3_600_000,
        now
      ])
    },
    list: async (merchantId, status, from, to) => {
      const params = [merchantId, status, from, to]
      const rows = (await pool.query(list.page, params)).rows as Row[]
      const total = Number((await pool.query(list.count, params)).rows[0]?.n ?? 0)
      return { rows, total }
    }
  }
}

const database = process.env.BASELINE_DATABASE ?? ""
const ops: Ops | null =
  database === ""
    ? null
    : database.startsWith("sqlite:")
      ? sqlite(database.slice("sqlite:".length))
      : postgres(database)

const fixed = JSON.stringify({ status: "ok", timestamp: new Date().toISOString() })

const send = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

const readJson = (req: IncomingMessage): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>)
      } catch (error) {
        reject(error)
      }
    })
    req.on("error", reject)
  })

const iso = (ms: unknown) => new Date(Number(ms)).toISOString()
const reais = (cents: unknown) => Number(cents) / 100

const handle = async (req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url ?? "/", "http://baseline")
  if (req.method === "GET" && url.pathname === "/health") return send(res, 200, fixed)
  if (ops === null) return send(res, 404, '{"error":"Not found"}')
  if (req.method === "POST" && url.pathname === "/payout") {
    const body = await readJson(req)
    const ok = await ops.payout(
      String(body.account),
      String(body.merchantId),
      Math.round(Number(body.amount) * 100)
    )
    return ok
      ? send(res, 201, JSON.stringify({ status: "pending" }))
      : send(res, 422, '{"error":"Insufficient balance"}')
  }
  if (req.method === "POST" && url.pathname === "/charge") {
    const body = await readJson(req)
    await ops.charge(String(body.merchantId), Math.round(Number(body.amount) * 100))
    return send(res, 201, JSON.stringify({ status: "pending" }))
  }
  if (req.method === "GET" && url.pathname === "/list") {
    const p = url.searchParams
    const { rows, total } = await ops.list(
      p.get("merchant") ?? "",
      p.get("status") ?? "",
      Number(p.get("from")),
      Number(p.get("to"))
    )
    const data = rows.map((r) => ({
      id: r.id,
      type: r.type,
      status: r.status,
      amount: reais(r.amount),
      clientName: r.client_name,
      clientDocument: r.client_document,
      pixKey: r.pix_key,
      txid: r.txid,
      endToEndId: r.end_to_end_id,
      feeAmount: reais(r.fee_amount),
      gatewayFeeAmount: reais(r.gateway_fee_amount),
      netAmount: reais(r.net_amount),
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at)
    }))
    return send(res, 200, JSON.stringify({ data, total, page: 1, limit: 20, pages: Math.ceil(total / 20) }))
  }
  return send(res, 404, '{"error":"Not found"}')
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    send(res, 500, JSON.stringify({ error: error instanceof Error ? error.message : String(error) }))
  })
})
server.keepAliveTimeout = 65_000
const port = Number(process.env.PORT ?? 0)
const host = process.env.HOST ?? "127.0.0.1"
server.listen(port, host, () => {
  const address = server.address()
  const actual = typeof address === "object" && address !== null ? address.port : port
  process.stdout.write(`baseline listening on http://${host}:${actual}\n`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
