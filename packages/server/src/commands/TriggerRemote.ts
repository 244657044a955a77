/**
 * `pixgate trigger EVENT --server URL`: the event made through a running server's API. Charges
 * and payouts go through the public API with the merchant's test key; the sandbox actions
 * (pay, settle, chargebacks), top-ups, refunds and `webhook.test` through the admin API, with
 * `PIXGATE_ADMIN_TOKEN` and `--merchant`. Without the token, what the sandbox does by itself
 * takes its place (a charge paid 2-3 s later, a 7.77 charge's chargeback); what has no such
 * path (refunds, `webhook.test`, a top-up) asks for the token.
 */
import { randomUUID } from "node:crypto"
import type { Domain } from "@pixgate/core"
import { Effect } from "effect"
import { UsageError } from "./Command.js"
import { fields, plus, Readable, reais } from "./Output.js"
import { type Credential, RemoteFailure, request, type Server } from "./Remote.js"
import { consent, topUpAmount } from "./TopUp.js"

const encode = encodeURIComponent

/** A field of a JSON answer, as text (the server's answers are the API's documents). */
const field = (value: unknown, name: string): string => {
  const found =
    typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined
  return typeof found === "string" || typeof found === "number" ? String(found) : ""
}

/** What a server-side trigger needs: the checks of its credentials, the calls, the steps so far. */
const baseSession = (server: Server, event: Domain.EventType, topUp: boolean) => {
  const steps: Array<string> = []
  const needKey = Effect.suspend(() =>
    server.apiKey === undefined
      ? Effect.fail(
          new UsageError({
            message: `trigger ${event} --server needs the merchant's test key (--api-key - or PIXGATE_API_KEY)`
          })
        )
      : server.apiKey.startsWith("sk_live_")
        ? Effect.fail(
            new UsageError({
              message: "trigger makes test-mode events only: give the merchant's test key (sk_test_...)"
            })
          )
        : Effect.void
  )
  const admin = server.adminToken !== undefined && server.merchant !== undefined
  const needAdmin = (what: string) =>
    admin
      ? Effect.void
      : Effect.fail(
          new UsageError({ message: `${what} needs PIXGATE_ADMIN_TOKEN and --merchant (the admin API)` })
        )
  const call = (
    credential: Credential,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    headers?: Record<string, string>
  ) => request(server, credential, method, path, body, headers)
  const merchantPath = `/admin/merchants/${encode(server.merchant ?? "")}`
  return { event, topUp, steps, needKey, admin, needAdmin, call, merchantPath }
}

type Base = ReturnType<typeof baseSession>

/** A test charge through the public API. */
const remoteCharge =
  (b: Base) =>
  (amount: number, extra: Record<string, unknown> = {}) =>
    Effect.gen(function* () {
      yield* b.needKey
      const created = yield* b.call("key", "POST", "/api/v1/charges", {
        amount,
        description: `pixgate trigger ${b.event}`,
        ...extra
      })
      const id = field(created, "transactionId")
      b.steps.push(`created charge ${id} (${reais(amount)})`)
      return id
    })

/** A charge paid now (admin), or by the sandbox 2-3 s later. */
const remotePaid = (b: Base, charge: ReturnType<typeof remoteCharge>) =>
  Effect.gen(function* () {
    const id = yield* charge(10)
    if (!b.admin) {
      b.steps.push(`the sandbox pays ${id} 2-3 s later (with PIXGATE_ADMIN_TOKEN and --merchant: at once)`)
      return id
    }
    const tx = yield* b.call("admin", "POST", `/admin/sandbox/transactions/${encode(id)}/pay`)
    b.steps.push(
      `paid ${id}: the balance grew by ${reais(Number(field(tx, "netAmount")))} (10.00 less its fee)`
    )
    return id
  })

/** Tops the test balance up (with consent) when it does not cover `need`; admin only. */
const remoteTopUp = (b: Base) => (what: string, need: number) =>
  Effect.gen(function* () {
    if (!b.admin) return
    const before = yield* b.call("admin", "GET", `${b.merchantPath}/balance?mode=test`)
    const available = Number(field(before, "available"))
    if (available >= need) return
    yield* consent(b.topUp, available, what)
    const after = yield* b.call("admin", "POST", `${b.merchantPath}/sandbox/topup`, { amount: topUpAmount })
    b.steps.push(
      `topped up the test balance with ${reais(topUpAmount)}: ${reais(available)} -> ${reais(Number(field(after, "available")))}`
    )
  })

/** A test payout of 1.00 through the public API, the balance topped up first if short. */
const remotePayout = (b: Base, topUpIfShort: ReturnType<typeof remoteTopUp>) =>
  Effect.gen(function* () {
    yield* b.needKey
    // The payout's fee is the merchant's plan's; 1.00 plus the default 0.33 is asked for, a
    // larger fee is refused by the server and reported.
    yield* topUpIfShort("a payout of 1.00 and its fee", 1.33)
    const created = yield* b.call(
      "key",
      "POST",
      "/api/v1/payouts",
      { amount: 1, pixKey: "sandbox@example.com", description: `pixgate trigger ${b.event}` },
      { "idempotency-key": `trigger-${randomUUID()}` }
    )
    const id = field(created, "transactionId")
    const fee = Number(field((created as { fees?: unknown }).fees, "feeAmount"))
    b.steps.push(
      `created payout ${id} (1.00 to sandbox@example.com): the balance fell by ${reais(plus(1, fee))}`
    )
    return id
  })

/** What a server-side trigger needs and does. */
const session = (server: Server, event: Domain.EventType, topUp: boolean) => {
  const b = baseSession(server, event, topUp)
  const charge = remoteCharge(b)
  const topUpIfShort = remoteTopUp(b)
  const { steps, admin, needAdmin, call, merchantPath } = b
  return {
    steps,
    admin,
    needAdmin,
    call,
    charge,
    paid: remotePaid(b, charge),
    payout: remotePayout(b, topUpIfShort),
    topUpIfShort,
    merchantPath
  }
}

type Session = ReturnType<typeof session>

/** `chargeback.created` and `chargeback.updated`: a paid charge disputed (admin), or the sandbox's 7.77 charge. */
const remoteChargeback = (s: Session, event: Domain.EventType) =>
  Effect.gen(function* () {
    let transactionId = ""
    if (!s.admin) {
      transactionId = yield* s.charge(7.77)
      s.steps.push(
        `the sandbox pays ${transactionId} 2-3 s later, opens a chargeback 1 s after (chargeback.created) and resolves it for the payer 2 s after that (chargeback.updated)`
      )
      return transactionId
    }
    transactionId = yield* s.paid
    const opened = yield* s.call(
      "admin",
      "POST",
      `/admin/sandbox/transactions/${encode(transactionId)}/chargebacks`,
      {}
    )
    const chargebackId = field(opened, "chargebackId")
    s.steps.push(`opened chargeback ${chargebackId}: 10.00 held`)
    if (event === "chargeback.updated") {
      yield* s.call("admin", "POST", `/admin/sandbox/chargebacks/${encode(chargebackId)}/resolve`, {
        outcome: "accepted"
      })
      s.steps.push(`resolved ${chargebackId} for the payer: the 10.00 held left`)
    }
    return transactionId
  })

/** `refund.*`: a paid charge refunded through the admin API; the sandbox completes or refuses it. */
const remoteRefund = (s: Session, event: Domain.EventType) =>
  Effect.gen(function* () {
    yield* s.needAdmin(`trigger ${event}`)
    const amount = event === "refund.failed" ? 6.66 : 10
    yield* s.topUpIfShort(`a refund of ${reais(amount)} (the charge's fee stays earned)`, amount)
    const transactionId = yield* s.paid
    const refund = yield* s.call(
      "admin",
      "POST",
      `${s.merchantPath}/charges/${encode(transactionId)}/refunds`,
      { amount, description: `pixgate trigger ${event}` },
      { "idempotency-key": `trigger-${transactionId}` }
    )
    s.steps.push(`refunded ${reais(amount)} of ${transactionId}: ${field(refund, "refundId")}`)
    s.steps.push(
      event === "refund.failed"
        ? "the sandbox refuses a refund of 6.66 2-3 s later (refund.failed); the amount returns to the balance"
        : "the sandbox completes the refund 2-3 s later (refund.completed)"
    )
    return transactionId
  })

/** Makes `event` through the server; answers what it did. */
export const remoteTrigger = (server: Server, event: Domain.EventType, topUp: boolean) =>
  Effect.gen(function* () {
    const s = session(server, event, topUp)
    let transactionId = ""
    switch (event) {
      case "webhook.test": {
        yield* s.needAdmin("trigger webhook.test")
        const sent = yield* s.call("admin", "POST", `${s.merchantPath}/webhooks/test/test`)
        s.steps.push(`sent test event ${field(sent, "eventId")} (delivery ${field(sent, "deliveryId")})`)
        break
      }
      case "transaction.created":
        transactionId = yield* s.charge(10)
        break
      case "transaction.completed":
        transactionId = yield* s.paid
        break
      case "transaction.failed":
        // No API expires a charge at once: the shortest expiry there is.
        transactionId = yield* s.charge(6.66, { expiresIn: 60 })
        s.steps.push(`${transactionId} is never paid (6.66) and expires 60 s later: transaction.failed then`)
        break
      case "withdrawal.created":
        transactionId = yield* s.payout
        break
      case "withdrawal.completed":
        transactionId = yield* s.payout
        if (s.admin) {
          yield* s.call("admin", "POST", `/admin/sandbox/transactions/${encode(transactionId)}/settle`)
          s.steps.push(`settled ${transactionId}`)
        } else s.steps.push(`the sandbox settles ${transactionId} 2-3 s later`)
        break
      case "chargeback.created":
      case "chargeback.updated":
        transactionId = yield* remoteChargeback(s, event)
        break
      case "refund.created":
      case "refund.completed":
      case "refund.failed":
        transactionId = yield* remoteRefund(s, event)
        break
    }
    const result = {
      event,
      server: server.url,
      mode: "test" as const,
      transactionId: transactionId || null,
      steps: s.steps
    }
    return new Readable(
      result,
      fields([["event", event], ...s.steps.map((step, i) => [`step ${i + 1}`, step] as const)])
    )
  }).pipe(Effect.catchTag("RemoteFailure", (e) => Effect.fail(new RemoteFailure({ message: e.message }))))
