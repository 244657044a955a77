// Run: pnpm exec tsx --conditions=@pixgate/source bench/micro/crypto.ts  (ops/s of ids, hashing, signing: before vs now)
import { cpus, loadavg } from "node:os"
import { performance } from "node:perf_hooks"
import { Ids, WebhookSignature } from "@pixgate/core"
import { Effect } from "effect"
import * as Before from "./baseline.js"

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

/** The same with 64 in flight, as a busy server runs them: Web Crypto overlaps in its thread pool. */
const concurrentBatch =
  (f: () => Effect.Effect<unknown, unknown>): Batch =>
  (ops) =>
    Effect.runPromise(Effect.forEach(Array.from({ length: ops }), f, { concurrency: 64, discard: true }))

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

const cases: ReadonlyArray<readonly [string, Batch, Batch]> = [
  [
    "newId, clock time (mostly same ms)",
    syncBatch(() => Before.newId("tx", Date.now())),
    syncBatch(() => Ids.newId("tx", Date.now()))
  ],
  [
    "newId, a new ms every call",
    syncBatch(() => Before.newId("tx", tick++)),
    syncBatch(() => Ids.newId("tx", tick++))
  ],
  ["randomBase62(32)", syncBatch(() => Before.randomBase62(32)), syncBatch(() => Ids.randomBase62(32))],
  [
    "newEndToEndId",
    syncBatch(() => Before.newEndToEndId("18236120", Date.now())),
    syncBatch(() => Ids.newEndToEndId("18236120", Date.now()))
  ],
  [
    "hashApiKey, 48-char key (Effect)",
    effectBatch(() => Before.hashApiKey(key)),
    effectBatch(() => Ids.hashApiKey(key))
  ],
  [
    "hashApiKey, 64 in flight (Effect)",
    concurrentBatch(() => Before.hashApiKey(key)),
    concurrentBatch(() => Ids.hashApiKey(key))
  ],
  [
    `WebhookSignature.sign, ${body.length}-byte body (Effect)`,
    effectBatch(() => Before.sign(secret, "evt_1", 1_767_225_600, body)),
    effectBatch(() => WebhookSignature.sign(secret, "evt_1", 1_767_225_600, body))
  ],
  [
    "WebhookSignature.sign, 64 in flight (Effect)",
    concurrentBatch(() => Before.sign(secret, "evt_1", 1_767_225_600, body)),
    concurrentBatch(() => WebhookSignature.sign(secret, "evt_1", 1_767_225_600, body))
  ]
]

// Timing two functions that disagree would be meaningless: check they give the same answers first.
const same = async (
  what: string,
  before: Effect.Effect<string, unknown>,
  now: Effect.Effect<string, unknown>
) => {
  const [b, n] = [await Effect.runPromise(before), await Effect.runPromise(now)]
  if (b !== n) throw new Error(`${what} differs: ${b} before, ${n} now`)
}
await same("hashApiKey", Before.hashApiKey(key), Ids.hashApiKey(key))
await same(
  "sign",
  Before.sign(secret, "evt_1", 1_767_225_600, body),
  WebhookSignature.sign(secret, "evt_1", 1_767_225_600, body)
)

const rounds = 7
const roundMs = 300
const format = (n: number) => Math.round(n).toLocaleString("en-US")

console.log(
  `Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "?"}, load ${loadavg()[0].toFixed(1)}`
)
console.log(`median of ${rounds} alternating rounds of ${roundMs} ms each\n`)
console.log("| Operation | Before (ops/s) | Now (ops/s) | Now / before |")
console.log("| --- | ---: | ---: | ---: |")
for (const [name, before, now] of cases) {
  const b: Array<number> = []
  const n: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    b.push(await opsPerSecond(before, roundMs))
    n.push(await opsPerSecond(now, roundMs))
  }
  const [mb, mn] = [median(b), median(n)]
  console.log(`| ${name} | ${format(mb)} | ${format(mn)} | ${(mn / mb).toFixed(1)}x |`)
}
