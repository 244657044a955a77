/**
 * `pixgate logs tail --merchant ID`: the merchant's webhook delivery log followed live, one line
 * per attempt the server's worker makes (time, event, delivery, attempt, the receiver's answer or
 * the error, the endpoint). It reads the log the panel's `webhook log` shows every second; the
 * attempts already there at start are not printed. It runs until stopped (Ctrl-C).
 */
import { Effect } from "effect"
import { command } from "./Command.js"
import { mode as flagMode } from "./Flags.js"
import { Readable } from "./Output.js"

/** How often the log is read again. */
const pollMs = 1000

/** The newest deliveries read each time: more than a second's worth on a development machine. */
const window = 100

/** `logs tail --merchant ID [--mode test|live]`. */
export const logsTailCommand = command({
  summary:
    "Follows a merchant's webhook delivery log live: one line per attempt the server makes, with the receiver's answer.",
  examples: [
    "pixgate logs tail --merchant mer_...",
    "pixgate logs tail --merchant mer_... --mode live --json"
  ],
  usage: "logs tail --merchant ID [--mode test|live]",
  required: ["merchant"],
  optional: ["mode"],
  flags: {
    mode: { ...flagMode, description: "only the deliveries of test (sandbox) or live events (default both)" }
  },
  run: (admin, f, _, print) =>
    Effect.gen(function* () {
      const mode = f.mode === "test" || f.mode === "live" ? f.mode : undefined
      const read = admin.webhookLog({
        merchantId: f.merchant,
        mode,
        limit: window
      })
      const seen = new Set<string>()
      const attemptsOf = Effect.map(read, (deliveries) =>
        deliveries
          .flatMap((d) => d.attempts.map((a) => ({ d, a, key: `${d.deliveryId}#${a.attempt}` })))
          .sort((x, y) => x.a.at.localeCompare(y.a.at))
      )
      for (const { key } of yield* attemptsOf) seen.add(key)
      yield* print(
        new Readable(
          undefined,
          `Following the webhook deliveries of ${f.merchant}${mode === undefined ? "" : ` (${mode})`} (Ctrl-C to stop)\n`
        )
      )
      const poll = Effect.gen(function* () {
        for (const { d, a, key } of yield* attemptsOf) {
          if (seen.has(key)) continue
          seen.add(key)
          const answer = a.statusCode === null ? `failed: ${a.error ?? "no answer"}` : `${a.statusCode}`
          const line = {
            at: a.at,
            event: d.event,
            eventId: d.eventId,
            deliveryId: d.deliveryId,
            attempt: a.attempt,
            statusCode: a.statusCode,
            error: a.error,
            durationMs: a.durationMs,
            url: d.url
          }
          yield* print(
            new Readable(
              line,
              `${a.at}  ${d.event.padEnd(21)}  ${d.deliveryId}  attempt ${a.attempt}  -> ${answer} (${Math.round(a.durationMs)} ms)  ${d.url}\n`
            )
          )
        }
      })
      return yield* Effect.forever(Effect.zipRight(poll, Effect.sleep(pollMs)))
    })
})
