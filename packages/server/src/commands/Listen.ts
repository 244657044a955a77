/**
 * `pixgate listen --forward-to URL --merchant ID`: the merchant's test-mode events, as the server
 * writes them to the database (`PIXGATE_DATABASE`), posted to a local URL as they appear, signed
 * exactly as real deliveries are (`Webhooks.signedRequest`, sent by the engine's own transport).
 * New events are found by polling the store's event list; the ones already there at start are not
 * sent. It runs until stopped (Ctrl-C). See docs/decisions.md, "pixgate listen".
 */
import {
  Domain,
  Engine,
  Errors,
  SigningKeys,
  Store,
  WebhookSignature,
  Webhooks,
  WebhookTransport
} from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import type { Flag } from "../Commands.js"
import { command, type FlagsOf } from "./Command.js"

/** How often the event list is read again. */
const pollMs = 500

/** How long the receiver has to answer each event. */
const timeoutMs = 10_000

/** The flags of `listen` (its `--mode` accepts only test). */
export const listenFlags: Readonly<Record<string, Flag>> = {
  "forward-to": {
    value: "URL",
    description: "the local URL each event is POSTed to, e.g. http://localhost:4000/webhooks",
    test: (v) => /^https?:\/\/[^\s]+$/.test(v),
    message: "--forward-to must be an http:// or https:// URL"
  },
  events: {
    value: "a,b",
    description: `only these events, comma-separated (default all): ${Domain.eventTypes.join(", ")}`,
    test: (v) => v.split(",").every((e) => Domain.eventTypes.some((t) => t === e.trim())),
    message: `--events must be a comma-separated list of: ${Domain.eventTypes.join(", ")}`
  }
}

const modeFlag: Flag = {
  value: "test",
  description: "the events' mode: test (the default; listen forwards sandbox events only)",
  test: (v) => v === "test",
  message: "--mode: listen forwards test-mode events only"
}

const run = (
  flags: FlagsOf<"forward-to" | "merchant", "mode" | "events">,
  print: (text: string) => Effect.Effect<void>
) =>
  Effect.gen(function* () {
    const engine = yield* Engine.Engine
    const store = yield* Store.Store
    const transport = yield* WebhookTransport.WebhookTransport
    const url = flags["forward-to"]
    const only = flags.events?.split(",").map((e) => e.trim())
    const merchant = yield* engine.admin.getMerchant(flags.merchant)
    const found = yield* store.getWebhookEndpoint(merchant.id, "test")
    // Without a test endpoint, keys made for this run: printed below, like any other.
    const endpoint = Option.getOrElse(found, () => ({
      secret: SigningKeys.newSigningKey().slice("whsec_".length, "whsec_".length + 32),
      secretHeader: true,
      signingKey: SigningKeys.newSigningKey(),
      previousSigningKey: null,
      previousKeyExpiresAt: null
    }))
    const seen = new Set((yield* store.listEvents(merchant.id, "test")).map((e) => e.id))
    yield* print(
      `Ready: forwarding the test-mode events of ${merchant.id} to ${url} (Ctrl-C to stop)\n` +
        `Signing key (webhook-signature, Standard Webhooks): ${endpoint.signingKey}\n` +
        `Secret (X-${WebhookSignature.token(engine.config.serviceName)}-Signature): ${endpoint.secret}\n` +
        `Keys: ${Option.isSome(found) ? "the merchant's test endpoint's" : "made for this run (the merchant has no test endpoint)"}\n`
    )
    const forward = (event: Domain.Event) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const request = yield* Effect.orDie(
          Webhooks.signedRequest(engine.config.serviceName, endpoint, event, now)
        )
        const outcome = yield* transport.post({ url, ...request, timeoutMs, publicOnly: false })
        const answer = outcome.statusCode === null ? `failed: ${outcome.error}` : `${outcome.statusCode}`
        yield* print(`${new Date(now).toISOString()}  ${event.type.padEnd(21)}  ${event.id}  -> ${answer}\n`)
      })
    const poll = Effect.gen(function* () {
      for (const event of yield* store.listEvents(merchant.id, "test")) {
        if (seen.has(event.id)) continue
        seen.add(event.id)
        if (only === undefined || only.includes(event.type)) yield* forward(event)
      }
    })
    return yield* Effect.forever(Effect.zipRight(poll, Effect.sleep(pollMs)))
  }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))))

/** `listen --forward-to URL --merchant ID [--mode test] [--events a,b]`. */
export const listenCommand = command({
  summary:
    "Forwards a merchant's test-mode events, as the server writes them, to a local URL, signed like real deliveries; prints one line per event with the receiver's status.",
  examples: [
    "pixgate listen --forward-to http://localhost:4000/webhooks --merchant mer_...",
    "pixgate listen --forward-to http://localhost:4000/webhooks --merchant mer_... --events transaction.completed,withdrawal.completed"
  ],
  usage: "listen --forward-to URL --merchant ID [--mode test] [--events a,b]",
  required: ["forward-to", "merchant"],
  optional: ["mode", "events"],
  flags: { mode: modeFlag },
  run: (_, flags, __, print) => run(flags, print)
})
