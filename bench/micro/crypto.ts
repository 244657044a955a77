// Run: pnpm exec tsx --conditions=@pixgate/source bench/micro/crypto.ts
// Ops/s of core's ids, key hashing and webhook signing (portable TypeScript, no node: imports)
// next to node:crypto doing the same work natively, in the same run.
import { createHash, createHmac, randomBytes } from "node:crypto"
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { Ids, WebhookSignature } from "@pixgate/core"
import { Effect } from "effect"

/** Runs `ops` calls of the operation; may return a promise. */
type Batch = (ops: number) => unknown

const syncBatch =
  (f: () => unknown): Batch =>
  (ops) => {
    for (let i = 0; i < ops; i++) f()
  }

/** Effects are timed the way the engine runs them: yielded one after another in one fiber. */
const effectBatch =
  (f: () => Effect.Effect<unknown, unknown>): Batch =>
  (ops) =>
    Effect.runPromise(
      Effect.gen(function* () {
        for (let i = 0; i < ops; i++) yield* f()
      })
    )

/** Ops/s over about `ms` milliseconds, in batches of about 10 ms. */
const opsPerSecond = async (run: Batch, ms: number): Promise<number> => {
  let size = 1
  for (;;) {
    const start = performance.now()
    await run(size)
    if (performance.now() - start >= 10) break
    size *= 2
  }
  let ops = 0
  const start = performance.now()
  while (performance.now() - start < ms) {
    await run(size)
    ops += size
  }
  return (ops * 1000) / (performance.now() - start)
}

const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const key = Ids.newApiKey("test")
const secret = `whsec_${btoa(String.fromCharCode(...globalThis.crypto.getRandomValues(new Uint8Array(24))))}`
const body = new TextEncoder().encode(
  JSON.stringify({
    id: "evt_01KAQ7N2X4R8V6M3T9B5C1D0EF",
    event: "transaction.completed",
    data: {
      transactionId: "tx_01KAQ7N2X4R8V6M3T9B5C1D0EF",
      type: "deposit",
      status: "completed",
      amount: 1234.56,
      txid: Ids.newTxid(Date.now()),
      endToEndId: Ids.newEndToEndId("18236120", Date.now()),
      pixKey: "cliente@example.com"
    },
    timestamp: new Date().toISOString()
  })
)
let tick = 1_767_225_600_000

const signingKey = WebhookSignature.signingKey(secret)
const nodeSign = (id: string, timestamp: number, payload: Uint8Array) =>
  `v1,${createHmac("sha256", signingKey).update(`${id}.${timestamp}.`).update(payload).digest("base64")}`

const cases: ReadonlyArray<readonly [string, Batch, Batch]> = [
  [
    "newId vs randomUUID (clock time)",
    syncBatch(() => globalThis.crypto.randomUUID()),
    syncBatch(() => Ids.newId("tx", Date.now()))
  ],
  [
    "newId, a new ms every call",
    syncBatch(() => globalThis.crypto.randomUUID()),
    syncBatch(() => Ids.newId("tx", tick++))
  ],
  [
    "randomBase62(32) vs randomBytes(24) base64url",
    syncBatch(() => randomBytes(24).toString("base64url")),
    syncBatch(() => Ids.randomBase62(32))
  ],
  [
    "hashApiKey, 48-char key vs createHash",
    syncBatch(() => createHash("sha256").update(key).digest("hex")),
    syncBatch(() => Ids.hashApiKey(key))
  ],
  [
    `WebhookSignature.sign, ${body.length}-byte body (Effect) vs createHmac`,
    syncBatch(() => nodeSign("evt_1", 1_767_225_600, body)),
    effectBatch(() => WebhookSignature.sign(secret, "evt_1", 1_767_225_600, body))
  ]
]

// Timing two functions that disagree would be meaningless: check they give the same answers first.
const same = async (what: string, expected: string, now: Effect.Effect<string, unknown>) => {
  const n = await Effect.runPromise(now)
  if (n !== expected) throw new Error(`${what} differs: ${expected} from node:crypto, ${n} from core`)
}
await same(
  "hashApiKey",
  createHash("sha256").update(key).digest("hex"),
  Effect.sync(() => Ids.hashApiKey(key))
)
await same(
  "sign",
  nodeSign("evt_1", 1_767_225_600, body),
  WebhookSignature.sign(secret, "evt_1", 1_767_225_600, body)
)

const rounds = 7
const roundMs = 300
const format = (n: number) => Math.round(n).toLocaleString("en-US")

console.log(
  `Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "?"}, load ${loadavg()[0].toFixed(1)}`
)
console.log(`median of ${rounds} alternating rounds of ${roundMs} ms each\n`)
console.log("| Operation | node:crypto (ops/s) | core (ops/s) | core / node:crypto |")
console.log("| --- | ---: | ---: | ---: |")
for (const [name, native, now] of cases) {
  const b: Array<number> = []
  const n: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    b.push(await opsPerSecond(native, roundMs))
    n.push(await opsPerSecond(now, roundMs))
  }
  const [mb, mn] = [median(b), median(n)]
  console.log(`| ${name} | ${format(mb)} | ${format(mn)} | ${(mn / mb).toFixed(1)}x |`)
}
